/**
 * @reins/react-output-parser, alone: parse what real models write, and see the corrective message
 * the model gets instead of LangChain's generic "Could not parse LLM output".
 *
 *   npx tsx examples/src/usage/run.ts react-output-parser
 */
import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import { tool } from "@langchain/core/tools";
import { HardenedReActOutputParser } from "@reins/react-output-parser";
import { z } from "zod";
import { printToStdout, type Print } from "./print";

/** What the example parsed: one entry per model reply. */
export interface ParserExampleResult {
  readonly parsed: ReadonlyArray<{ reply: string; result?: AgentAction | AgentFinish; observation?: string }>;
}

const search = tool(async (query: string) => `results for ${query}`, {
  name: "search",
  description: "Search the web. Input: a query.",
  schema: z.string(),
});
const convertCurrency = tool(async ({ amount, to }: { amount: number; to: string }) => `${amount} ${to}`, {
  name: "convert_currency",
  description: "Convert an amount of EUR to another currency.",
  schema: z.object({ amount: z.number(), to: z.string() }),
});

const REPLIES = [
  // Markdown labels and a quoted input: the quotes go, the action stays.
  '**Thought:** I should look this up.\n**Action:** search\n**Action Input:** "ReAct prompting"',
  // A JSON blob with single quotes and a trailing comma for an object-schema tool: repaired and validated.
  "Thought: convert it\nAction: convert_currency\nAction Input: {'amount': 12.5, 'to': 'USD',}",
  // The model invented the observation: it is cut off, the action is kept.
  "Action: search\nAction Input: weather Paris\nObservation: 31 °C and sunny\nThought: done",
  "Thought: I now know the final answer\nFinal Answer: 42",
  // An unknown tool: a corrective retry that lists the real tools.
  "Thought: let me browse\nAction: web_browser\nAction Input: https://example.com",
];

/** Parses a handful of real-world reply shapes and prints each result or corrective message. */
export async function main(print: Print = printToStdout): Promise<ParserExampleResult> {
  const parser = new HardenedReActOutputParser({ tools: [search, convertCurrency] });
  const parsed: Array<{ reply: string; result?: AgentAction | AgentFinish; observation?: string }> = [];
  for (const reply of REPLIES) {
    const report = parser.parseDetailed(reply);
    print(`reply: ${JSON.stringify(reply)}`);
    if (report.ok) {
      const { result } = report;
      print(
        "tool" in result
          ? `  → action ${result.tool} ${JSON.stringify(result.toolInput)}${report.repairs.length > 0 ? ` (repairs: ${report.repairs.join(", ")})` : ""}`
          : `  → final answer ${JSON.stringify(result.returnValues.output)}`,
      );
      parsed.push({ reply, result });
    } else {
      print(`  → corrective message for the model (${report.reason}): ${report.observation}`);
      parsed.push({ reply, observation: report.observation });
    }
  }
  return { parsed };
}
