import type { Serialized } from "@langchain/core/load/serializable";
import type { ReinsEvent } from "@reins/core";
import { LoopControlHandler, LoopControlOptionsError, RunEvictedError, type LoopControlOptions } from "./index";
import { RunDriver } from "./__fixtures__/run-driver";

const search = (input: string, observation = `result for ${input}`) => ({ tool: "search", toolInput: input, observation });

describe("LoopControlHandler", () => {
  describe("with an onError that throws itself", () => {
    it("still never breaks the run and falls back to a process warning", async () => {
      const warnings: string[] = [];
      const emitWarning = jest.spyOn(process, "emitWarning").mockImplementation((warning) => {
        warnings.push(String(warning));
      });
      const events: ReinsEvent[] = [];
      const handler = new LoopControlHandler({
        onEvent: (event) => {
          events.push(event);
          throw new Error("listener down");
        },
        onError: () => {
          throw new Error("onError down");
        },
      });
      const run = new RunDriver(handler, "r");
      try {
        await run.start();
        expect(await run.step(search("a"))).toBeUndefined();
        await run.finish("ok");
      } finally {
        emitWarning.mockRestore();
      }
      expect(events.at(-1)).toMatchObject({ type: "run_end", status: "success" });
      expect(handler.activeRunCount).toBe(0);
      expect(warnings.some((message) => message.includes("onError down") && message.includes("listener down"))).toBe(true);
    });
  });

  describe("with runs whose end never arrives", () => {
    const SERIALIZED: Serialized = { lc: 1, type: "not_implemented", id: ["test"] };

    function setup(options: LoopControlOptions): { handler: LoopControlHandler; events: ReinsEvent[]; errors: unknown[]; clock: { now: number } } {
      const events: ReinsEvent[] = [];
      const errors: unknown[] = [];
      const clock = { now: 0 };
      const handler = new LoopControlHandler({
        onEvent: (event) => events.push(event),
        onError: (error) => errors.push(error),
        now: () => clock.now,
        ...options,
      });
      return { handler, events, errors, clock };
    }

    it("evicts a run idle for runIdleTimeoutMs when another run starts, ending it as an error", async () => {
      const { handler, events, errors, clock } = setup({ runIdleTimeoutMs: 1000 });
      const abandoned = new RunDriver(handler, "abandoned");
      await abandoned.start();
      await abandoned.step(search("a"));
      clock.now = 1001;
      await new RunDriver(handler, "next").start();
      expect(handler.activeRunCount).toBe(1);
      expect(handler.runContext.size).toBe(1);
      expect(handler.runContext.linkCount).toBe(0);
      expect(events.filter((event) => event.type === "run_end")).toEqual([
        { type: "run_end", runId: "abandoned", status: "error", stopReason: "error", durationMs: 1001 },
      ]);
      expect(errors).toHaveLength(1);
      expect(RunEvictedError.isInstance(errors[0])).toBe(true);
      expect(errors[0]).toMatchObject({ runId: "abandoned", reason: "idle", idleMs: 1001 });
    });

    it("ignores late callbacks of an evicted run instead of adopting its chains as new runs", async () => {
      const { handler, events, clock } = setup({ runIdleTimeoutMs: 1000 });
      const abandoned = new RunDriver(handler, "abandoned");
      await abandoned.start();
      clock.now = 5000;
      await new RunDriver(handler, "next").start();
      // The abandoned executor wakes up: its agent chain, model call and action arrive late.
      await handler.handleChainStart(SERIALIZED, {}, "abandoned:agent:late", "abandoned");
      await expect(abandoned.step(search("b"))).resolves.toBeUndefined();
      await handler.handleChainEnd({}, "abandoned:agent:late", "abandoned");
      await handler.handleChainEnd({ output: "late" }, "abandoned");
      expect(handler.activeRunCount).toBe(1);
      expect(events.filter((event) => event.type === "run_start").map((event) => (event as { runId: string }).runId)).toEqual([
        "abandoned",
        "next",
      ]);
      expect(events.filter((event) => event.type === "run_end")).toEqual([
        { type: "run_end", runId: "abandoned", status: "error", stopReason: "error", durationMs: 5000 },
      ]);
    });

    it("keeps at most maxActiveRuns, evicting the least recently active run", async () => {
      const { handler, events, errors } = setup({ maxActiveRuns: 2 });
      const first = new RunDriver(handler, "first");
      const second = new RunDriver(handler, "second");
      await first.start();
      await second.start();
      await first.step(search("a"));
      await new RunDriver(handler, "third").start();
      expect(handler.activeRunCount).toBe(2);
      expect(handler.snapshot("second")).toBeUndefined();
      expect(handler.snapshot("first")?.steps).toBe(1);
      expect(events.filter((event) => event.type === "run_end").map((event) => (event as { runId: string }).runId)).toEqual(["second"]);
      expect(errors[0]).toMatchObject({ runId: "second", reason: "capacity" });
    });

    it("keeps thousands of live runs under the defaults", async () => {
      const { handler, errors } = setup({});
      for (let index = 0; index < 2000; index += 1) await new RunDriver(handler, `run-${index}`).start();
      expect(handler.activeRunCount).toBe(2000);
      expect(errors).toEqual([]);
    });

    it.each([
      [{ runIdleTimeoutMs: 0 }, "runIdleTimeoutMs"],
      [{ runIdleTimeoutMs: Number.NaN }, "runIdleTimeoutMs"],
      [{ maxActiveRuns: 0 }, "maxActiveRuns"],
      [{ maxActiveRuns: 2.5 }, "maxActiveRuns"],
    ])("rejects %j naming the field", (options, field) => {
      expect(() => new LoopControlHandler(options)).toThrow(expect.objectContaining({ field }));
      expect(() => new LoopControlHandler(options)).toThrow(LoopControlOptionsError);
    });
  });

  describe("when the model call that crosses a budget gives the final answer", () => {
    it.each([
      ["token", { maxTokens: 1000 }],
      ["cost", { maxCostUsd: 0.0011, prices: { replay: { inputUsdPerMillionTokens: 1, outputUsdPerMillionTokens: 1 } } }],
    ])("reports the run as a success with stopReason final_answer (%s budget)", async (_budget, options) => {
      const events: ReinsEvent[] = [];
      const handler = new LoopControlHandler({ onEvent: (event) => events.push(event), ...(options as LoopControlOptions) });
      const run = new RunDriver(handler, "r");
      await run.start();
      await run.step({ ...search("a"), usage: { inputTokens: 600, outputTokens: 100 } });
      await run.answer("22 °C", { inputTokens: 300, outputTokens: 100 });
      expect(events.at(-1)).toMatchObject({ type: "run_end", status: "success", stopReason: "final_answer" });
      expect(handler.activeRunCount).toBe(0);
    });
  });

  describe("with invalid options", () => {
    it.each([
      [{ audit: null }, "audit"],
      [{ audit: "stdout" }, "audit"],
      [{ repeat: { warnAt: 4, stopAt: 3 } }, "repeat.warnAt"],
      [{ cycle: { warnRepetitions: 4, stopRepetitions: 3 } }, "cycle.warnRepetitions"],
      [{ stall: { warnAt: 6, stopAt: 5 } }, "stall.warnAt"],
      [{ repeat: { stopAfter: 3 } }, "repeat.stopAfter"],
      [{ cycle: ["ls"] }, "cycle"],
      [{ prices: { "gpt-4o": null } }, "prices.gpt-4o"],
      [{ now: () => Number.NaN }, "now"],
      [{ repeat: { window: 1 } }, "repeat.window"],
      [{ cycle: { window: 10 } }, "cycle.window"],
      [{ stall: { window: 4 } }, "stall.window"],
    ])("rejects %j with LoopControlOptionsError naming the field", (options, field) => {
      let thrown: unknown;
      try {
        new LoopControlHandler(options as unknown as LoopControlOptions);
      } catch (error) {
        thrown = error;
      }
      expect(LoopControlOptionsError.isInstance(thrown)).toBe(true);
      expect((thrown as LoopControlOptionsError).field).toBe(field);
    });

    it("treats a detector field set to undefined as its default", () => {
      const handler = new LoopControlHandler({ repeat: { stopAt: undefined, warnAt: 2 }, stall: { window: undefined } });
      expect(handler.options.repeat).toMatchObject({ stopAt: 3, warnAt: 2 });
      expect(handler.options.stall).toMatchObject({ window: 6 });
    });
  });

  describe("with an estimateTokens that throws", () => {
    it("reports the error and still counts the call's tokens (characters ÷ 4) toward the budget", async () => {
      const errors: unknown[] = [];
      const handler = new LoopControlHandler({
        maxTokens: 5,
        estimateTokens: () => {
          throw new Error("tokenizer unavailable");
        },
        onError: (error) => errors.push(error),
      });
      const run = new RunDriver(handler, "r");
      await run.start();
      const error = await run.step({ tool: "search", toolInput: "abcd", observation: "x", thought: "a long enough thought to pass five tokens" });
      expect(error).toMatchObject({ stopReason: "token_budget" });
      expect(String(errors[0])).toContain("tokenizer unavailable");
    });
  });

  describe("with an estimateTokens that returns no number", () => {
    it("reports a clear error to onError and falls back to characters ÷ 4", async () => {
      const errors: unknown[] = [];
      const events: ReinsEvent[] = [];
      const handler = new LoopControlHandler({
        estimateTokens: (() => Promise.resolve(5)) as unknown as (text: string) => number,
        onError: (error) => errors.push(error),
        onEvent: (event) => events.push(event),
      });
      const run = new RunDriver(handler, "r");
      await run.start();
      await run.step({ tool: "search", toolInput: "abcd", observation: "x", thought: "abcdefgh" });
      expect(events.find((event) => event.type === "token_usage")).toMatchObject({
        outputTokens: Math.ceil("abcdefgh\nAction: search\nAction Input: abcd".length / 4),
        estimated: true,
      });
      expect(LoopControlOptionsError.isInstance(errors[0])).toBe(true);
      expect(errors[0]).toMatchObject({ field: "estimateTokens" });
      expect(String(errors[0])).toContain("returned [object Promise]");
    });
  });

  describe("pricing and token usage", () => {
    const SERIALIZED: Serialized = { lc: 1, type: "not_implemented", id: ["test"] };
    const prices = {
      "gpt-4o": { inputUsdPerMillionTokens: 2.5, outputUsdPerMillionTokens: 10 },
      "gpt-4o-mini": { inputUsdPerMillionTokens: 0.15, outputUsdPerMillionTokens: 0.6 },
    };

    async function costOf(invocationModel: string | undefined, llmOutput: Record<string, unknown>): Promise<{ costUsd: number; events: ReinsEvent[] }> {
      const events: ReinsEvent[] = [];
      const handler = new LoopControlHandler({ prices, onEvent: (event) => events.push(event) });
      await handler.handleChainStart(SERIALIZED, {}, "run", undefined);
      await handler.handleChatModelStart(
        SERIALIZED,
        [],
        "llm",
        "run",
        invocationModel === undefined ? {} : { invocation_params: { model: invocationModel } },
      );
      await handler.handleLLMEnd({ generations: [[{ text: "Final Answer: 4" }]], llmOutput }, "llm", "run");
      return { costUsd: handler.snapshot("run")?.costUsd ?? Number.NaN, events };
    }

    it("prices a dated model name the provider reports with the table entry of the requested model", async () => {
      const usage = { tokenUsage: { promptTokens: 1_000_000, completionTokens: 0 } };
      expect((await costOf("gpt-4o-mini", { ...usage, model_name: "gpt-4o-mini-2024-07-18" })).costUsd).toBeCloseTo(0.15, 10);
    });

    it("prices a dated model name by the longest table key it starts with", async () => {
      const usage = { tokenUsage: { promptTokens: 1_000_000, completionTokens: 0 } };
      expect((await costOf(undefined, { ...usage, model_name: "gpt-4o-mini-2024-07-18" })).costUsd).toBeCloseTo(0.15, 10);
      expect((await costOf(undefined, { ...usage, model_name: "gpt-4o-2024-08-06" })).costUsd).toBeCloseTo(2.5, 10);
    });

    it("marks LangChain's estimatedTokenUsage as estimated", async () => {
      const { events } = await costOf("gpt-4o", { estimatedTokenUsage: { promptTokens: 10, completionTokens: 5 } });
      expect(events.find((event) => event.type === "token_usage")).toMatchObject({ inputTokens: 10, outputTokens: 5, estimated: true });
    });
  });

  describe("steps counted for the thought/action gap", () => {
    const stepCounts = (events: ReinsEvent[]): Record<string, number> => {
      const counts: Record<string, number> = { thought: 0, action: 0, observation: 0, finish: 0 };
      for (const event of events) if (event.type === "step") counts[event.step] += 1;
      return counts;
    };

    it.each([
      ["a graceful stop's answer", { output: "I stopped because…", stopReason: "repeat" }],
      ["AgentExecutor's own iteration-limit answer", { output: "Agent stopped due to max iterations." }],
    ])("does not count %s as a finish, so action + finish never exceeds thought", async (_name, returnValues) => {
      const events: ReinsEvent[] = [];
      const handler = new LoopControlHandler({ mode: "finish", onEvent: (event) => events.push(event) });
      const run = new RunDriver(handler, "r");
      await run.start();
      for (let index = 0; index < 3; index += 1) await run.step(search("same", "same result"));
      const { output, ...extra } = returnValues;
      await run.finish(output, extra);
      expect(stepCounts(events)).toEqual({ thought: 3, action: 3, observation: 3, finish: 0 });
    });

    it("counts the model's own final answer as a thought and a finish", async () => {
      const events: ReinsEvent[] = [];
      const handler = new LoopControlHandler({ onEvent: (event) => events.push(event) });
      const run = new RunDriver(handler, "r");
      await run.start();
      await run.step(search("a"));
      await run.answer("42");
      expect(stepCounts(events)).toEqual({ thought: 2, action: 1, observation: 1, finish: 1 });
    });
  });

  describe("with repeat.pollingTools", () => {
    it("lets the listed tool poll with changing results while other tools keep the plain rule (requireSameObservation: false)", async () => {
      const events: ReinsEvent[] = [];
      const handler = new LoopControlHandler({ repeat: { pollingTools: ["job_status"], requireSameObservation: false }, onEvent: (event) => events.push(event) });
      const run = new RunDriver(handler, "r");
      await run.start();
      for (const status of ["queued", "running 10%", "running 60%", "done"]) {
        expect(await run.step({ tool: "job_status", toolInput: "42", observation: status, thought: `Check job 42 again (${status}).` })).toBeUndefined();
      }
      expect(events.filter((event) => event.type === "loop_detection")).toEqual([]);
      await run.step(search("report 42", "ready"));
      await run.step(search("report 42", "ready"));
      const error = await run.step(search("report 42"));
      expect(error).toMatchObject({ stopReason: "repeat" });
    });

    it("still stops the listed tool when it keeps returning the same result", async () => {
      const handler = new LoopControlHandler({ repeat: { pollingTools: ["job_status"] } });
      const run = new RunDriver(handler, "r");
      await run.start();
      const poll = { tool: "job_status", toolInput: "42", observation: "queued" };
      for (let index = 0; index < 3; index += 1) expect(await run.step(poll)).toBeUndefined();
      expect(await run.step(poll)).toMatchObject({ stopReason: "repeat" });
    });

    it("rejects a pollingTools that is not a list of tool names", () => {
      expect(() => new LoopControlHandler({ repeat: { pollingTools: "job_status" as unknown as string[] } })).toThrow(
        expect.objectContaining({ field: "repeat.pollingTools" }),
      );
    });
  });
});
