import { AgentExecutor } from "@langchain/classic/agents";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicTool } from "@langchain/core/tools";
import { REACT_PROMPT_TEMPLATE } from "@reins/core";
import { ScriptedChatModel } from "@reins/testing";
import { createReactAgent } from "./index";

afterEach(() => {
  jest.useRealTimers();
});

/** Advances fake time in 10 ms steps until the promise settles; returns its value and the virtual time taken. */
async function settle<T>(promise: Promise<T>, maxVirtualMs = 60_000): Promise<{ value: T; elapsedMs: number }> {
  const startedAt = Date.now();
  let outcome: { value: T } | { error: unknown } | undefined;
  promise.then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  while (outcome === undefined) {
    if (Date.now() - startedAt > maxVirtualMs) throw new Error(`did not settle within ${maxVirtualMs} ms of virtual time`);
    await jest.advanceTimersByTimeAsync(10);
  }
  if ("error" in outcome) throw outcome.error;
  return { value: outcome.value, elapsedMs: Date.now() - startedAt };
}

describe("createReactAgent with a run time budget", () => {
  describe.each(["invoke", "stream"] as const)("when a tool never settles and has no timeout of its own (%s path)", (path) => {
    it("cuts the call at the run's remaining time, tells the model, and ends the run gracefully with time_budget", async () => {
      jest.useFakeTimers();
      const started: string[] = [];
      // Never settles and ignores its AbortSignal.
      const hanging = new DynamicTool({
        name: "slow_lookup",
        description: "Looks something up (slowly).",
        func: (input) => {
          started.push(input);
          return new Promise<string>(() => undefined);
        },
      });
      const llm = new ScriptedChatModel({ chunkChars: 7, replies: ["Thought: look it up\nAction: slow_lookup\nAction Input: the answer", "Final Answer: too late"] });
      const agent = await createReactAgent({
        llm,
        tools: [hanging],
        prompt: PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE),
        // A clock read at call time, so jest's fake Date.now drives the budget.
        loopControl: { mode: "finish", maxDurationMs: 500, now: () => Date.now() },
        toolExecutor: { defaults: { timeoutMs: Number.POSITIVE_INFINITY, deadlineMs: Number.POSITIVE_INFINITY } },
      });
      const executor = new AgentExecutor({ agent, tools: agent.tools, returnIntermediateSteps: true });
      const input = { input: "what is the answer?" };
      const running =
        path === "invoke"
          ? executor.invoke(input, { callbacks: agent.callbacks })
          : (async () => {
              let last: Record<string, unknown> = {};
              const steps: unknown[] = [];
              for await (const chunk of await executor.stream(input, { callbacks: agent.callbacks })) {
                const record = chunk as Record<string, unknown>;
                if ("output" in record) last = record;
                else if (Array.isArray(record.intermediateSteps)) steps.push(...record.intermediateSteps);
              }
              return { ...last, intermediateSteps: steps };
            })();
      const { value, elapsedMs } = await settle(running);
      expect(started).toEqual(["the answer"]);
      expect(elapsedMs).toBeLessThanOrEqual(1000);
      const steps = value.intermediateSteps as Array<{ observation: string }>;
      expect(steps[0].observation).toMatch(/^Tool "slow_lookup" was stopped: the time allowed for this task has run out\./);
      expect(value.stopReason).toBe("time_budget");
      expect(typeof value.output).toBe("string");
      expect(jest.getTimerCount()).toBe(0);
    });
  });
});
