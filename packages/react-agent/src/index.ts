export {
  createReactAgent,
  DEFAULT_REACT_AGENT_OPTIONS,
  ReinsReactAgent,
  resolveReactAgentOptions,
  trimContinuation,
  type CreateReactAgentOptions,
  type ReactAgentInput,
  type ReactAgentLoopControlOptions,
  type ReactAgentParserOptions,
  type ReactAgentTool,
  type ReinsReactAgentFields,
  type ResolvedReactAgentOptions,
} from "./create-react-agent";
export { formatReActScratchpad, renderToolDescriptions } from "./scratchpad";
export {
  ReactAgentError,
  ReactAgentOptionsError,
  type ReactAgentErrorOptions,
  type ReactAgentOptionsErrorOptions,
} from "./errors";
