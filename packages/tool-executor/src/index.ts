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
  DEFAULT_MAX_CONFIRMABLE_INPUT_CHARS,
  DEFAULT_RETRY_OPTIONS,
  DEFAULT_TOOL_POLICY,
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
  isFreshCachedResult,
  type CachedToolResult,
  type InMemoryToolResultStoreOptions,
  type ToolResultStore,
} from "./result-store";
export { DEFAULT_RESULT_CHECKS, type ResultCheckFailure, type ResultChecks } from "./result-check";
export { DEFAULT_MAX_OBSERVATION_CHARS, defaultFormatObservation } from "./format-observation";
export { isRetryableError } from "./normalize-error";
export { parseRetryAfter, retryAfterMsOf } from "./retry-after";
export { type CircuitPermit, type CircuitStore, type CircuitStoreSettings } from "./circuit-store";
export { type RateLimiterLike, type RateLimitKeyContext, type RateLimitOptions, type ResolvedRateLimitOptions } from "./rate-limit-options";
// Kept while @reins/react-agent's tests import it from the package (issue 17 leaves that package alone).
export { MODEL_MESSAGES } from "./messages";
export {
  BulkheadFullError,
  CallLimitExceededError,
  CircuitOpenError,
  DuplicateCallError,
  RateLimitedError,
  StoppedRunCallError,
  SideEffectInDoubtError,
  SideEffectLedgerError,
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
export {
  DEFAULT_SIDE_EFFECT_RETENTION_MS,
  IDEMPOTENCY_KEY_FIELD,
  InMemorySideEffectLedger,
  confirmationKey,
  exactInputHash,
  idempotencyKeyFor,
  idempotencyKeyOf,
  sideEffectKey,
  type InMemorySideEffectLedgerOptions,
  type SideEffectClaim,
  type SideEffectLedger,
  type SideEffectResult,
} from "./side-effect-ledger";
export { CLAIM_LEASE_MARGIN_MS, FIRST_CLAIM_POLL_MS, MAX_CLAIM_POLL_MS, UNBOUNDED_CLAIM_LEASE_MS, claimLeaseMs } from "./side-effect-claim";
