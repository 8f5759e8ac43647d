import { AgentExecutor } from "@langchain/classic/agents";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicStructuredTool, DynamicTool } from "@langchain/core/tools";
import { z } from "zod";
import { seededRandom, settleWithFakeTimers } from "@reins/testing";
import { createReactAgent } from "./index";
import { REACT_PROMPT_TEMPLATE } from "@reins/core";
import { RUN_KIND_STOP_REASONS, RUN_KINDS, scriptedByPromptModel, seededPause } from "./__fixtures__/scripted-runs";

const REACT_PROMPT = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);

function tools() {
  const capitals: Record<string, string> = { france: "Paris", japan: "Tokyo", germany: "Berlin" };
  return [
    new DynamicTool({
      name: "capital",
      description: "Capital city of a country.",
      func: async (input: string) => capitals[input.trim().toLowerCase()] ?? "unknown",
    }),
    new DynamicStructuredTool({
      name: "add",
      description: "Adds two numbers.",
      schema: z.object({ a: z.number(), b: z.number() }),
      func: async ({ a, b }: { a: number; b: number }) => String(a + b),
    }),
  ];
}

type Outcome = { output: unknown; stopReason: unknown; steps: Array<{ tool: string; observation: unknown }> };

async function runAll(path: "invoke" | "stream", concurrent: boolean): Promise<{ outcomes: Outcome[]; leftovers: [number, number] }> {
  const agent = await createReactAgent({
    // A seeded pause of 0–3 ms (virtual) before each reply, so concurrent runs interleave.
    llm: scriptedByPromptModel(seededPause(seededRandom(34), 4)),
    tools: tools(),
    prompt: REACT_PROMPT,
    toolExecutor: { policies: { capital: { maxCallsPerRun: 2 } } },
  });
  const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true, returnIntermediateSteps: true });
  const one = async (index: number): Promise<Outcome> => {
    const input = `run-${index} ${RUN_KINDS[index % RUN_KINDS.length]}`;
    let result: Record<string, unknown> = {};
    if (path === "invoke") {
      result = await executor.invoke({ input }, { callbacks: agent.callbacks });
    } else {
      for await (const chunk of await executor.stream({ input }, { callbacks: agent.callbacks })) result = { ...result, ...chunk };
    }
    const steps = ((result.intermediateSteps ?? []) as Array<{ action: { tool: string }; observation: unknown }>).map((step) => ({
      tool: step.action.tool,
      observation: step.observation,
    }));
    return { output: result.output, stopReason: result.stopReason, steps: path === "invoke" ? steps : [] };
  };
  const indices = Array.from({ length: 50 }, (_, index) => index);
  const outcomes: Outcome[] = [];
  if (concurrent) {
    outcomes.push(...(await Promise.all(indices.map(one))));
  } else {
    for (const index of indices) outcomes.push(await one(index));
  }
  return { outcomes, leftovers: [agent.runContext.size, agent.runContext.linkCount] };
}

describe("createReactAgent", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  describe.each(["invoke", "stream"] as const)("with 50 concurrent executor.%s calls on one agent", (path) => {
    it("gives every run the result it gets alone: loop state, call caps and stop decisions do not cross runs", async () => {
      const { value: serial } = await settleWithFakeTimers(runAll(path, false), { stepMs: 1 });
      const { value: concurrent } = await settleWithFakeTimers(runAll(path, true), { stepMs: 1 });
      expect(concurrent.outcomes).toEqual(serial.outcomes);
      expect(serial.outcomes.map((outcome) => outcome.stopReason)).toEqual(
        Array.from({ length: 50 }, (_, index) => RUN_KIND_STOP_REASONS[RUN_KINDS[index % 4]]),
      );
      expect(serial.outcomes[0].output).toBe("Tokyo for run-0");
      expect(serial.outcomes[1].output).toContain("- capital(France): Paris");
      expect(concurrent.leftovers).toEqual([0, 0]);
      expect(serial.leftovers).toEqual([0, 0]);
    }, 60_000);
  });
});
