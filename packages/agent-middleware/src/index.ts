export { createReinsMiddleware, reinsStateSchema, type ReinsMiddleware } from "./create-reins-middleware";
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
export { reinsRunSchema, type ReinsRunRecord, type RunStep } from "./run-record";
export {
  DEFAULT_REINS_MIDDLEWARE_OPTIONS,
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
export { AgentMiddlewareError, ReinsMiddlewareOptionsError, type AgentMiddlewareErrorOptions, type ReinsMiddlewareOptionsErrorOptions } from "./errors";
