export {
  HardenedReActOutputParser,
  type ParseReport,
} from "./hardened-react-output-parser";
export {
  DEFAULT_HARDENED_REACT_OUTPUT_PARSER_OPTIONS,
  resolveHardenedReActOutputParserOptions,
  type FinalAnswerCheckContext,
  type HardenedReActOutputParserOptions,
  type ParserValidators,
  type RequiredPattern,
  type ResolvedHardenedReActOutputParserOptions,
} from "./options";
export { InvalidParserOptionsError, ReActFormatError, ReActOutputParserError } from "./errors";
export type { ConflictPolicy, ParsedToolInput } from "./react-step";
export { PARSER_ERROR_REASONS, type ParserErrorReason } from "./parser-error-reasons";
export type { ParseContext } from "./validators";
export {
  describeToolInput,
  unknownArgumentNames,
  type ParserTool,
  type ToolInputIssue,
  type ToolInputKind,
  type ToolInputSpec,
} from "./tool-schema";
export { parseLooseJson, type LooseJson } from "./json-text";
export { matchToolName, type ToolNameMatch } from "./tool-names";
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
  rescueToolCalls,
  type RefusedToolCall,
  type ReplyToRescue,
  type RescuedToolCall,
  type ToolCallRescue,
  type ToolCallRescueOptions,
  type ToolCallSource,
} from "./tool-call-rescue";
export { TOOL_CALL_MESSAGES } from "./tool-call-messages";
export {
  readWrittenToolCalls,
  type WrittenCall,
  type WrittenCallShape,
  type WrittenToolCallReadOptions,
  type WrittenToolCalls,
} from "./written-tool-calls";
export {
  isUntrustedCall,
  readUntrustedCalls,
  untrustedCallKeys,
  untrustedCallName,
  UNTRUSTED_JOIN_TAIL_CHARS,
  type UntrustedCallCandidate,
  type UntrustedCallReadOptions,
} from "./untrusted-calls";
