import { Tool } from "@langchain/core/tools";

/** The tool name LangChain's `AgentExecutor` gives a parse-error step. */
export const EXCEPTION_TOOL_NAME = "_Exception";

/**
 * The parse-error step's tool, among `agent.tools`, so the executor's `stream()` loop (which looks
 * the step's tool up among the tools it was given, where `invoke()` uses a built-in one) shows the
 * model the same corrective observation as `invoke()`: its input, unchanged. LangChain's own
 * `ExceptionTool` (`agents/executor`) does the same; it is not exported on both lines, so it is
 * written here. Not listed in the prompt and not a tool the parser accepts.
 */
export class ReActExceptionTool extends Tool {
  static override lc_name(): string {
    return "ReActExceptionTool";
  }

  name = EXCEPTION_TOOL_NAME;
  description = "Shows the model why its last reply could not be used (the agent's parse-error step).";

  protected async _call(query: string): Promise<string> {
    return query;
  }
}
