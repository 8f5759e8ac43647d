import { PromptTemplate } from "@langchain/core/prompts";

/**
 * LangChain's ReAct prompt (`hwchase17/react` on the LangChain Hub), verbatim, so the demo and the
 * replay use what a stock `createReactAgent` user pulls.
 */
export const REACT_PROMPT_TEMPLATE = `Answer the following questions as best you can. You have access to the following tools:

{tools}

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [{tool_names}]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Question: {input}
Thought:{agent_scratchpad}`;

/** The ReAct prompt as a `PromptTemplate` (variables `tools`, `tool_names`, `input`, `agent_scratchpad`). */
export function createReactPrompt(): PromptTemplate {
  return PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);
}
