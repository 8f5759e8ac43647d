import type { AgentStep } from "@langchain/core/agents";

/**
 * The scratchpad of LangChain's ReAct agent: each step's log, then `Observation: …`, then the
 * `Thought: ` the model continues from. Same text as `formatLogToString` in
 * `langchain/agents/format_scratchpad/log` (re-implemented: a package may not import
 * `langchain` or `@langchain/classic`, since users run either line).
 *
 * @param steps - the executor's intermediate steps, oldest first
 * @param observationPrefix - label before each observation
 * @param llmPrefix - label the model continues from
 * @param notesOf - model-facing notes to show after a step's observation (Reins' loop notes,
 *   written by the agent at this edge so they reach the model whatever wraps the tools)
 * @returns the scratchpad text (`""` for no steps)
 */
export function formatReActScratchpad(
  steps: readonly AgentStep[],
  observationPrefix = "Observation: ",
  llmPrefix = "Thought: ",
  notesOf?: (step: AgentStep) => string | undefined,
): string {
  let scratchpad = "";
  for (const step of steps) {
    const notes = notesOf?.(step);
    const observation = notes === undefined ? String(step.observation) : `${String(step.observation)}\n\n${notes}`;
    scratchpad += [step.action.log, `\n${observationPrefix}${observation}`, llmPrefix].join("\n");
  }
  return scratchpad;
}

/**
 * The tool list of LangChain's ReAct prompt, one `name: description` per line. Same text as
 * `renderTextDescription` in `langchain/tools/render`.
 *
 * @param tools - LangChain tools (anything with `name` and `description`)
 */
export function renderToolDescriptions(tools: ReadonlyArray<{ readonly name: string; readonly description: string }>): string {
  return tools.map((tool) => `${tool.name}: ${tool.description}`).join("\n");
}
