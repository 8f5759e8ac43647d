export { ToolExecutor, type WrappedTool } from "./tool-executor";
export {
  DEFAULT_TOOL_EXECUTOR_OPTIONS,
  resolveToolExecutorOptions,
  type FormatObservation,
  type ResolvedToolExecutorOptions,
  type ToolExecutorLogger,
  type ToolExecutorOptions,
} from "./tool-executor-options";
export {
  DEFAULT_BULKHEAD_OPTIONS,
  DEFAULT_CACHE_OPTIONS,
  DEFAULT_CIRCUIT_BREAKER_OPTIONS,
  DEFAULT_RETRY_OPTIONS,
  DEFAULT_TOOL_POLICY,
  MAX_TIMER_MS,
  mergeToolPolicies,
  resolveToolPolicy,
  type BulkheadOptions,
  type CacheOptions,
  type CacheScope,
  type CacheScopeContext,
  type CircuitBreakerOptions,
  type ResolvedToolPolicy,
  type ResultCheck,
  type RetryJitter,
  type RetryOptions,
  type ToolCallContext,
  type ToolFallback,
  type ToolPolicy,
} from "./tool-policy";
export {
  InMemoryToolResultStore,
  type CachedToolResult,
  type InMemoryToolResultStoreOptions,
  type ToolResultStore,
} from "./result-store";
export { DEFAULT_RESULT_CHECKS, checkResultShape, type ResultCheckFailure, type ResultChecks } from "./result-check";
export { DEFAULT_MAX_OBSERVATION_CHARS, defaultFormatObservation, ensureReadableObservation } from "./format-observation";
export { RETRYABLE_NETWORK_CODES, httpStatusOf, isRetryableError, networkCodeOf, toError } from "./normalize-error";
export { MODEL_MESSAGES } from "./messages";
export {
  BulkheadRejectedError,
  CallLimitExceededError,
  CircuitOpenError,
  DuplicateCallError,
  RunStoppedError,
  SideEffectNotApprovedError,
  ToolExecutionError,
  ToolExecutorError,
  ToolExecutorOptionsError,
  ToolResultCheckError,
  ToolTimeoutError,
  ToolValidationError,
  type ResultCheckLabel,
  type ToolExecutorErrorFields,
  type ToolInputIssue,
} from "./errors";
export { type ApproveSideEffectCall, type SideEffectCall, type SideEffectCallContext } from "./confirmation";
