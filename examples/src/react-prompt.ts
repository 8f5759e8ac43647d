import { PromptTemplate } from "@langchain/core/prompts";
import { REACT_PROMPT_TEMPLATE } from "@reins/core";

// LangChain's ReAct prompt (`hwchase17/react`), verbatim, from @reins/core: the demo and the
// replay use what a stock `createReactAgent` user pulls.
export { REACT_PROMPT_TEMPLATE };

/** The ReAct prompt as a `PromptTemplate` (variables `tools`, `tool_names`, `input`, `agent_scratchpad`). */
export function createReactPrompt(): PromptTemplate {
  return PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);
}
