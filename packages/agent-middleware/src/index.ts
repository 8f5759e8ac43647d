export { createReinsMiddleware, DUPLICATE_MESSAGE_ID_REPAIR, reinsStateSchema, type ReinsMiddleware } from "./create-reins-middleware";
export { reinsRunSchema, runCallSchema, type ReinsRunRecord, type RunCall, type RunStep } from "./run-record";
export { CALLS_METADATA_KEY, OUTCOME_SIGNATURE_METADATA_KEY } from "./state-guard";
export {
  emptyThreadRecord,
  reinsThreadSchema,
  type BudgetExhaustedInterrupt,
  type BudgetExhaustedResume,
  USER_BUDGET_WINDOWS,
  windowIdOf,
  type ReinsThreadRecord,
  type ScopedBudgetOptions,
  type ScopeLimits,
  type ScopeUsageCounter,
  type UserBudgetOptions,
  type UserBudgetWindow,
  type UserKeyContext,
} from "./scoped-budgets";
export {
  createModelQuotaMiddleware,
  DEFAULT_MODEL_QUOTA_OPTIONS,
  ModelQuotaExceededError,
  type ModelQuotaKeyContext,
  type ModelQuotaLimiter,
  type ModelQuotaOptions,
} from "./model-quota";
export {
  DEFAULT_REINS_MIDDLEWARE_OPTIONS,
  type ReinsMiddlewareLogger,
  type ReinsMiddlewareLoopControlOptions,
  type ReinsMiddlewareOptions,
} from "./reins-middleware-options";
export {
  DEFAULT_TOOL_CALL_REPAIR_OPTIONS,
  repairToolCall,
  type RepairableTool,
  type ToolCallRefusal,
  type ToolCallRepairOptions,
  type ToolCallRepairResult,
  type WrittenToolCall,
} from "./tool-call-repair";
export {
  SERVER_PARSE_FAILURE_REPAIRS,
  SERVER_PARSE_FAILURE_SERVERS,
  serverParseFailureOf,
  type ServerParseFailure,
  type ServerParseFailureServer,
} from "./server-parse-failure";
export { AgentMiddlewareError, ReinsMiddlewareOptionsError, type AgentMiddlewareErrorOptions, type ReinsMiddlewareOptionsErrorOptions } from "./errors";
