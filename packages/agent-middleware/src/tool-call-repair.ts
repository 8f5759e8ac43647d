/**
 * The tool-call repair the middleware applies to every call: `@reins/react-output-parser`'s
 * `repairToolCall` (shared with `reins-parse`), re-exported here where createAgent users find it.
 */
export {
  DEFAULT_TOOL_CALL_REPAIR_OPTIONS,
  repairToolCall,
  type RepairableTool,
  type ToolCallRefusal,
  type ToolCallRepairOptions,
  type ToolCallRepairResult,
  type WrittenToolCall,
} from "@reins/react-output-parser";
