export { createReactAgent, pickRunContext } from "./create-react-agent";
export {
  DEFAULT_REACT_AGENT_OPTIONS,
  REQUIRED_PROMPT_VARIABLES,
  resolveReactAgentOptions,
  type CreateReactAgentOptions,
  type ReactAgentInput,
  type ReactAgentLoopControlOptions,
  type ReactAgentParserOptions,
  type ReactAgentTool,
  type ResolvedReactAgentOptions,
} from "./react-agent-options";
export { ReinsReactAgent, type ReinsReactAgentFields } from "./reins-react-agent";
export { ReActExceptionTool } from "./exception-tool";
export { readReinsAgentOutput, type ReinsAgentFinding, type ReinsAgentOutput } from "./agent-output";
export { formatReActScratchpad, renderToolDescriptions } from "./scratchpad";
export {
  ReactAgentError,
  ReactAgentOptionsError,
  ReactAgentToolsError,
  type ReactAgentErrorOptions,
  type ReactAgentOptionsErrorOptions,
  type ReactAgentToolsErrorOptions,
} from "./errors";
