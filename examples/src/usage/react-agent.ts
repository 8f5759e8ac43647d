/**
 * @reins/react-agent: LangChain's ReAct example with Reins swapped in (see
 * docs/getting-started.md), run against a scripted model. The model first names a tool that does
 * not exist, then writes markdown labels, the flaky tool fails twice before answering, and the
 * agent still finishes — with `stopReason` in
 * the executor's result and every event in the metrics registry.
 *
 *   npx tsx examples/src/usage/run.ts react-agent
 */
import { AgentExecutor } from "@langchain/classic/agents";
import { tool } from "@langchain/core/tools";
import { createAgentMetrics } from "@reins/metrics";
import { createReactAgent } from "@reins/react-agent";
import { Registry } from "prom-client";
import { z } from "zod";
import { createReactPrompt } from "../react-prompt";
import { ScriptedChatModel } from "@reins/testing";
import { printToStdout, type Print } from "./print";

/** What the run returned. */
export interface ReactAgentExampleResult {
  readonly output: string;
  readonly stopReason: unknown;
  readonly weatherAttempts: number;
  readonly modelCalls: number;
  /** What the model read after naming the unknown tool. */
  readonly correctiveObservation: string;
  readonly toolCallsMetric: string;
}

const SCRIPT = [
  // A tool that does not exist: the model gets a corrective message listing the real tools.
  "Thought: I need the current weather.\nAction: weather_api\nAction Input: Paris",
  // Markdown labels and a quoted input: the stock parser would take `**Action:**` as no action.
  '**Thought:** I need the current weather.\n**Action:** weather\n**Action Input:** "Paris"',
  "Thought: I now know the final answer\nFinal Answer: It is 22 °C with light rain in Paris.",
];

/** Runs the swapped-in agent once and prints the answer, the stop reason and the tool metrics. */
export async function main(print: Print = printToStdout): Promise<ReactAgentExampleResult> {
  let weatherAttempts = 0;
  const weather = tool(
    async (city: string) => {
      weatherAttempts += 1;
      if (weatherAttempts <= 2) throw Object.assign(new Error("Service Unavailable"), { status: 503 });
      return { city, temperature_c: 22, conditions: "light rain", request_id: "req_91ab" };
    },
    { name: "weather", description: "Current weather. Input: a city.", schema: z.string() },
  );
  const tools = [weather];
  const llm = new ScriptedChatModel({ replies: SCRIPT });
  const prompt = createReactPrompt();
  const metrics = createAgentMetrics({ registry: new Registry(), toolNames: ["weather"] });

  // The swap: Reins' createReactAgent instead of LangChain's, same llm/tools/prompt, plus options.
  const agent = await createReactAgent({
    llm,
    tools,
    prompt,
    metrics,
    toolExecutor: { defaults: { retry: { initialDelayMs: 5, maxDelayMs: 20, jitter: "none" } } },
  });
  const agentExecutor = new AgentExecutor({
    agent,
    tools: agent.tools,
    returnIntermediateSteps: true,
  });
  const result = await agentExecutor.invoke({ input: "What is the weather in Paris?" });

  const toolCallsMetric = (await metrics.registry.getSingleMetricAsString("react_agent_tool_calls_total"))
    .split("\n")
    .filter((line) => !line.startsWith("#") && !line.endsWith(" 0"))
    .join("\n");
  const steps = result.intermediateSteps as Array<{ action: { tool: string }; observation: string }>;
  const correctiveObservation = steps[0]?.observation ?? "";
  print(`after the unknown tool the model read: ${correctiveObservation}`);
  print(`output: ${String(result.output)}`);
  print(`stopReason: ${String(result.stopReason)}`);
  print(`weather attempts: ${weatherAttempts}`);
  print(toolCallsMetric);
  return {
    output: String(result.output),
    stopReason: result.stopReason,
    weatherAttempts,
    modelCalls: llm.callCount,
    correctiveObservation,
    toolCallsMetric,
  };
}
