/**
 * LangChain's ReAct prompt (`hwchase17/react` on the LangChain Hub), verbatim: the format whose
 * labels `label-grammar.ts` reads. Shipped so an agent can be built offline (pulling it from the
 * Hub needs the network) and so tests, the demo and the benchmarks all use what a stock
 * `createReactAgent` user pulls. Variables: `tools`, `tool_names`, `input`, `agent_scratchpad`.
 *
 * @example
 * ```ts
 * import { PromptTemplate } from "@langchain/core/prompts";
 * import { REACT_PROMPT_TEMPLATE } from "@reins/core";
 * const prompt = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);
 * ```
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
