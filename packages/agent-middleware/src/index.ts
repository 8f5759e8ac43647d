export {
  createReinsMiddleware,
  DEFAULT_REINS_MIDDLEWARE_OPTIONS,
  reinsStateSchema,
  type ReinsMiddleware,
  type ReinsMiddlewareLoopControlOptions,
  type ReinsMiddlewareOptions,
} from "./create-reins-middleware";
export {
  DEFAULT_TOOL_CALL_REPAIR_OPTIONS,
  repairToolCall,
  type RepairableTool,
  type ToolCallRepairOptions,
  type ToolCallRepairResult,
  type WrittenToolCall,
} from "./tool-call-repair";
export { RunLoopMonitor, type LoopVerdict, type MonitoredCall } from "./loop-monitor";
export { MIDDLEWARE_MESSAGES } from "./messages";
export { AgentMiddlewareError, ReinsMiddlewareOptionsError, type AgentMiddlewareErrorOptions, type ReinsMiddlewareOptionsErrorOptions } from "./errors";
