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
export type { ConflictPolicy, ParsedToolInput, ParserErrorReason } from "./read-react-step";
export type { ParseContext } from "./validators";
export {
  describeToolInput,
  type ParserTool,
  type ToolInputIssue,
  type ToolInputKind,
  type ToolInputSpec,
} from "./tool-schema";
export { parseLooseJson, type LooseJson } from "./json-text";
export { matchToolName, type ToolNameMatch } from "./tool-names";
