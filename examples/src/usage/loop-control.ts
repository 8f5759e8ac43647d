/**
 * @reins/loop-control with LangChain's own agent: the stock `createReactAgent` + `AgentExecutor`
 * and a scripted model that keeps calling the same tool. LoopControlHandler (default
 * `mode: "throw"`) lets the same call run while its result changes; once it returned the same
 * result 3 times, it refuses the 4th identical call with a typed error that carries the stop
 * reason and the steps so far — instead of burning all `maxIterations`. (With the tools wrapped by
 * `@reins/tool-executor`, the model would first read a warning note in its observation; Reins'
 * `createReactAgent` wires that, and finishes gracefully instead of throwing.)
 *
 *   npx tsx examples/src/usage/run.ts loop-control
 */
import { AgentExecutor, createReactAgent } from "@langchain/classic/agents";
import { tool } from "@langchain/core/tools";
import { LoopControlHandler, RunStoppedError } from "@reins/loop-control";
import { z } from "zod";
import { createReactPrompt } from "../react-prompt";
import { ScriptedChatModel } from "@reins/testing";
import { printToStdout, type Print } from "./print";

/** How the run ended. */
export interface LoopControlExampleResult {
  readonly stopReason: string;
  readonly stepsBeforeStop: number;
  readonly modelCalls: number;
  readonly toolCalls: number;
}

const SAME_ACTION = "Thought: I should check the weather.\nAction: weather\nAction Input: Paris";

/** Runs a looping agent and prints why and when it was stopped. */
export async function main(print: Print = printToStdout): Promise<LoopControlExampleResult> {
  let toolCalls = 0;
  const weather = tool(
    async (city: string) => {
      toolCalls += 1;
      return `${city}: 22 °C`;
    },
    { name: "weather", description: "Current weather. Input: a city.", schema: z.string() },
  );
  // The model would loop forever: ten identical actions, never a Final Answer.
  const llm = new ScriptedChatModel({ replies: Array.from({ length: 10 }, () => SAME_ACTION) });
  const tools = [weather];
  const agent = await createReactAgent({ llm, tools, prompt: createReactPrompt() });
  const executor = new AgentExecutor({ agent, tools, maxIterations: 10 });
  const loopControl = new LoopControlHandler({ maxSteps: 8 });

  try {
    const result = await executor.invoke({ input: "What is the weather in Paris?" }, { callbacks: [loopControl] });
    throw new Error(`the run was expected to stop, it answered: ${String(result.output)}`);
  } catch (error) {
    if (!RunStoppedError.isInstance(error)) throw error;
    print(`stopped: ${error.stopReason} — ${error.message}`);
    for (const step of error.steps) print(`  step: ${step.action.tool}(${JSON.stringify(step.action.toolInput)}) → ${JSON.stringify(step.observation)}`);
    print(`model calls: ${llm.callCount}, tool calls: ${toolCalls}`);
    return { stopReason: error.stopReason, stepsBeforeStop: error.steps.length, modelCalls: llm.callCount, toolCalls };
  }
}
