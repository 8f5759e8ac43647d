import { Registry } from "prom-client";
import { RunContextStore, type ReinsEvent } from "@reins/core";
import { createAgentMetrics } from "@reins/metrics";
import {
  BudgetExceededError,
  LoopControlHandler,
  LoopControlOptionsError,
  LoopStoppedError,
  RunStoppedError,
  type LoopAuditRecord,
  type LoopControlOptions,
} from "./index";
import { RunDriver } from "./__fixtures__/run-driver";

function setup(options: LoopControlOptions = {}): {
  handler: LoopControlHandler;
  events: ReinsEvent[];
  driver: (runId?: string) => RunDriver;
} {
  const events: ReinsEvent[] = [];
  const handler = new LoopControlHandler({ onEvent: (event) => events.push(event), ...options });
  return { handler, events, driver: (runId = "run-1") => new RunDriver(handler, runId) };
}

const search = (input: string, observation = `result for ${input}`) => ({ tool: "search", toolInput: input, observation });

describe("LoopControlHandler", () => {
  describe("construction", () => {
    it("raises handler errors so LangChain propagates its throws", () => {
      const handler = new LoopControlHandler();
      expect(handler.raiseError).toBe(true);
      expect(handler.awaitHandlers).toBe(true);
    });

    it.each([
      [{ mode: "stop" }, "mode"],
      [{ repeat: { stopAt: 1 } }, "repeat.stopAt"],
      [{ cycle: { minPeriod: 4, maxPeriod: 2 } }, "cycle.maxPeriod"],
      [{ stall: { maxDistance: 80 } }, "stall.maxDistance"],
      [{ maxSteps: 0 }, "maxSteps"],
      [{ maxTokens: -5 }, "maxTokens"],
      [{ prices: { "gpt-x": { inputUsdPerMillionTokens: 1 } } }, "prices.gpt-x.outputUsdPerMillionTokens"],
      [{ audit: { sink: 42 } }, "audit.sink"],
      [{ budgetWarnRatio: 0 }, "budgetWarnRatio"],
    ])("rejects %j naming the field", (options, field) => {
      let thrown: unknown;
      try {
        new LoopControlHandler(options as LoopControlOptions);
      } catch (error) {
        thrown = error;
      }
      expect(LoopControlOptionsError.isInstance(thrown)).toBe(true);
      expect((thrown as LoopControlOptionsError).field).toBe(field);
    });
  });

  describe("repeated action", () => {
    it("runs the call after two identical results with a warning quoting them, and stops once the same call had the same result 3 times", async () => {
      const { handler, driver } = setup();
      const run = driver();
      await run.start();
      expect(await run.step(search("weather Paris", "22 °C"))).toBeUndefined();
      expect(await run.step(search('  "weather   Paris" ', "22 °C"))).toBeUndefined();
      expect(handler.runContext.contextOf("run-1")?.loop.pendingNotes).toEqual([]);
      await run.plan(search("weather Paris"));
      const notes = handler.runContext.contextOf("run-1")?.loop.pendingNotes ?? [];
      expect(notes).toEqual([
        "[Loop notice] You already called search with this input twice. It returned: 22 °C Use that result, try a different action, or give your Final Answer.",
      ]);
      await run.act(search("weather Paris", "22 °C"));
      const error = await run.step(search("weather Paris"));
      expect(LoopStoppedError.isInstance(error)).toBe(true);
      const stopped = error as LoopStoppedError;
      expect(stopped.stopReason).toBe("repeat");
      expect(stopped.repetitions).toBe(3);
      expect(stopped.steps.map((step) => step.observation)).toEqual(["22 °C", "22 °C", "22 °C"]);
      expect(stopped.action.toolInput).toBe("weather Paris");
      expect(stopped.message).toBe('Run run-1 stopped: tool "search" returned the same result 3 times for the same input (after 3 steps).');
    });

    it("with requireSameObservation: false, counts every identical call: warns at the 2nd, stops at the 3rd before it runs", async () => {
      const { handler, driver } = setup({ repeat: { requireSameObservation: false } });
      const run = driver();
      await run.start();
      expect(await run.step(search("weather Paris", "22 °C"))).toBeUndefined();
      await run.plan(search("weather Paris"));
      expect(handler.runContext.contextOf("run-1")?.loop.pendingNotes).toEqual([
        "[Loop notice] You already called search with this input once. It returned: 22 °C Use that result, try a different action, or give your Final Answer.",
      ]);
      await run.act(search("weather Paris", "23 °C"));
      const error = (await run.step(search("weather Paris"))) as LoopStoppedError;
      expect(error.stopReason).toBe("repeat");
      expect(error.message).toBe('Run run-1 stopped: tool "search" was called 3 times with the same input (after 2 steps).');
    });

    it("removes its own notes from an observation before comparing or quoting it", async () => {
      const { handler, driver } = setup({ repeat: { requireSameObservation: true } });
      const run = driver();
      await run.start();
      await run.step(search("weather Paris", "22 °C"));
      await run.step(search("weather Paris", "22 °C"));
      await run.plan(search("weather Paris"));
      const notes = handler.runContext.contextOf("run-1")?.loop.pendingNotes ?? [];
      expect(notes).toHaveLength(1);
      // The wrapped tool drains the note and appends it to this call's observation.
      const appended = `22 °C\n\n${notes.splice(0).join("\n")}`;
      await run.act(search("weather Paris", appended));
      const error = (await run.step(search("weather Paris"))) as LoopStoppedError;
      expect(error.stopReason).toBe("repeat");
      expect(error.steps.map((step) => step.observation)).toEqual(["22 °C", "22 °C", "22 °C"]);
    });

    it("treats reordered JSON inputs as the same input", async () => {
      const { driver } = setup();
      const run = driver();
      await run.start();
      await run.step({ tool: "lookup", toolInput: { city: "Paris", unit: "C" }, observation: "22" });
      await run.step({ tool: "lookup", toolInput: '{"unit": "C", "city": "Paris"}', observation: "22" });
      expect(await run.step({ tool: "lookup", toolInput: { unit: "C", city: "Paris" }, observation: "22" })).toBeUndefined();
      expect(RunStoppedError.isInstance(await run.step({ tool: "lookup", toolInput: { city: "Paris", unit: "C" } }))).toBe(true);
    });

    it("does not flag polling with changing results (the default rule): job_status until done", async () => {
      const { handler, driver, events } = setup();
      const run = driver();
      await run.start();
      for (const status of ["queued", "running", "running-50%", "running-90%", "done"]) {
        expect(await run.step({ tool: "job_status", toolInput: "42", observation: status })).toBeUndefined();
      }
      expect(events.filter((event) => event.type === "loop_detection")).toEqual([]);
      expect(handler.runContext.contextOf("run-1")?.loop.pendingNotes).toEqual([]);
    });

    it("still stops polling that keeps returning the same result: at most 3 executions", async () => {
      const { driver, events } = setup();
      const run = driver();
      await run.start();
      await run.step({ tool: "job_status", toolInput: "42", observation: "queued" });
      await run.step({ tool: "job_status", toolInput: "42", observation: "queued" });
      expect(await run.step({ tool: "job_status", toolInput: "42", observation: "queued" })).toBeUndefined();
      const error = await run.step({ tool: "job_status", toolInput: "42" });
      expect(LoopStoppedError.isInstance(error)).toBe(true);
      expect(events.filter((event) => event.type === "loop_detection").map((event) => (event as { level: string }).level)).toEqual([
        "warn",
        "stop",
      ]);
    });

    it("ignores AgentExecutor's parse-error pseudo-tool when the rejected reply names no action", async () => {
      const { driver, events } = setup();
      const run = driver();
      await run.start();
      for (let index = 0; index < 3; index += 1) {
        expect(
          await run.step({
            tool: "_Exception",
            toolInput: "Invalid Format: Missing 'Action:'",
            observation: "Invalid Format",
            log: "I'm sorry, but I cannot provide an answer without an Action.",
          }),
        ).toBeUndefined();
      }
      expect(events.some((event) => event.type === "loop_detection")).toBe(false);
    });
    it("counts rejected replies that keep naming the same action (a tool that does not exist)", async () => {
      const { driver, events } = setup();
      const run = driver();
      await run.start();
      const rejected = (wording: string) => ({
        tool: "_Exception",
        toolInput: "Jester is not a registered tool. Valid tools: Wikipedia.",
        observation: "Jester is not a registered tool. Valid tools: Wikipedia.",
        log: `I need to call the Jester tool ${wording} with the input "foo".\nAction: Jester\nAction Input: foo`,
      });
      expect(await run.step(rejected("three times"))).toBeUndefined();
      expect(await run.step(rejected("two more times"))).toBeUndefined();
      expect(await run.step(rejected("again"))).toBeUndefined();
      const stopped = await run.step(rejected("one more time"));
      expect(LoopStoppedError.isInstance(stopped)).toBe(true);
      expect((stopped as LoopStoppedError).stopReason).toBe("repeat");
      expect(events.filter((event) => event.type === "loop_detection").map((event) => (event as { level: string }).level)).toEqual([
        "warn",
        "stop",
      ]);
    });
  });

  describe("cycle", () => {
    it("warns at A→B→A→B and stops at the 3rd full period, a cycle of period 2", async () => {
      const { handler, driver, events } = setup();
      const run = driver();
      await run.start();
      await run.step({ tool: "ls", toolInput: ".", observation: "a.txt" });
      await run.step({ tool: "cat", toolInput: "a.txt", observation: "hello" });
      await run.step({ tool: "ls", toolInput: ".", observation: "a.txt" });
      await run.plan({ tool: "cat", toolInput: "a.txt" });
      expect(handler.runContext.contextOf("run-1")?.loop.pendingNotes.at(-1)).toBe(
        "[Loop notice] You are going in circles (ls → cat, repeated). These steps will not give new results: use what you found, try something different, or give your Final Answer.",
      );
      await run.act({ tool: "cat", toolInput: "a.txt", observation: "hello" });
      await run.step({ tool: "ls", toolInput: ".", observation: "a.txt" });
      const error = (await run.step({ tool: "cat", toolInput: "a.txt" })) as LoopStoppedError;
      expect(error.stopReason).toBe("cycle");
      expect(error.period).toBe(2);
      expect(error.steps).toHaveLength(5);
      const detections = events.filter((event) => event.type === "loop_detection");
      expect(detections.map((event) => `${(event as { kind: string }).kind}:${(event as { level: string }).level}`)).toEqual([
        "cycle:warn",
        "cycle:warn",
        "cycle:stop",
      ]);
    });

    it("stops a cycle of period 3 after 3 full periods when repeats are off", async () => {
      const { driver } = setup({ repeat: false });
      const run = driver();
      await run.start();
      const tools = ["a", "b", "c"];
      let error: unknown;
      let steps = 0;
      while (error === undefined && steps < 12) {
        error = await run.step({ tool: tools[steps % 3], toolInput: "x", observation: "y" });
        steps += 1;
      }
      expect((error as LoopStoppedError).stopReason).toBe("cycle");
      expect(steps).toBe(9);
      expect((error as LoopStoppedError).period).toBe(3);
    });
  });

  describe("stall", () => {
    it("warns at 3 near-duplicate thoughts after stale observations and stops at 5, even with different actions", async () => {
      const { driver, events } = setup({ maxSteps: 50 });
      const run = driver();
      await run.start();
      let error: unknown;
      let steps = 0;
      while (error === undefined && steps < 10) {
        steps += 1;
        error = await run.step({
          tool: "search",
          toolInput: `query ${steps}`,
          observation: "nothing",
          thought: `Thought ${steps}: I need to find another source to see if the claim is supported.`,
        });
      }
      // Step 1's observation is new, so its thought does not count: warn at steps 4 and 5, stop at 6.
      expect(steps).toBe(6);
      expect((error as LoopStoppedError).stopReason).toBe("stall");
      expect(events.filter((event) => event.type === "loop_detection").map((event) => (event as { level: string }).level)).toEqual([
        "warn",
        "warn",
        "stop",
      ]);
    });
  });

  describe("budgets", () => {
    it("lets the maxSteps-th step run, warns before it, then refuses the next model call", async () => {
      const { handler, driver } = setup({ maxSteps: 5 });
      const run = driver();
      await run.start();
      for (let index = 1; index <= 5; index += 1) {
        expect(await run.step(search(`q${index}`))).toBeUndefined();
      }
      const context = handler.runContext.contextOf("run-1");
      expect(context?.loop.pendingNotes).toContain("[Budget notice] Only 1 steps left. Give your Final Answer soon with what you have.");
      expect(context?.loop.stop?.reason).toBe("max_steps");
      const error = (await run.step(search("q6"))) as BudgetExceededError;
      expect(BudgetExceededError.isInstance(error)).toBe(true);
      expect(error.stopReason).toBe("max_steps");
      expect(error.limit).toBe(5);
      expect(error.steps).toHaveLength(5);
    });

    it("publishes the max_steps stop only after the last allowed step's tool has run, so that call is not refused", async () => {
      const { handler, driver } = setup({ maxSteps: 2, mode: "finish" });
      const run = driver();
      await run.start();
      expect(await run.step(search("q1"))).toBeUndefined();
      await run.plan(search("q2"));
      const context = handler.runContext.contextOf("run-1");
      expect(context?.loop.stop).toBeUndefined();
      await run.act(search("q2"));
      expect(context?.loop.stop?.reason).toBe("max_steps");
    });

    it("throws again at the next planning step when a model-start throw was swallowed inside a tool", async () => {
      let now = 0;
      const { handler, driver } = setup({ maxDurationMs: 1000, now: () => now });
      const run = driver();
      await run.start();
      await run.step(search("a"));
      now = 5000;
      // A tool that calls a model itself: the stop error thrown there never reaches the executor.
      await handler.handleToolStart({ lc: 1, type: "not_implemented", id: ["t"] }, "x", "tool-1", "run-1", undefined, undefined, "search");
      await expect(
        handler.handleChatModelStart({ lc: 1, type: "not_implemented", id: ["m"] }, [], "nested-llm", "tool-1"),
      ).rejects.toMatchObject({ stopReason: "time_budget" });
      await handler.handleToolEnd("", "tool-1", "run-1");
      const error = await run.step(search("b"));
      expect(BudgetExceededError.isInstance(error)).toBe(true);
      expect(handler.runContext.size).toBe(0);
    });

    it("stops on wall time, checked at the next model start", async () => {
      let now = 1_000;
      const { driver } = setup({ maxDurationMs: 10_000, now: () => now });
      const run = driver();
      await run.start();
      await run.step(search("a"));
      now += 10_001;
      const error = (await run.step(search("b"))) as BudgetExceededError;
      expect(error.stopReason).toBe("time_budget");
      expect(error.used).toBe(10_001);
      expect(error.steps).toHaveLength(1);
    });

    it("stops on reported token usage and on cost from the price table", async () => {
      const tokens = setup({ maxTokens: 1000 });
      const tokenRun = tokens.driver();
      await tokenRun.start();
      await tokenRun.step({ ...search("a"), usage: { inputTokens: 600, outputTokens: 100 } });
      // The model call that crosses the budget has its action refused.
      const tokenError = (await tokenRun.step({ ...search("b"), usage: { inputTokens: 300, outputTokens: 100 } })) as BudgetExceededError;
      expect(tokenError.stopReason).toBe("token_budget");
      expect(tokenError.used).toBe(1100);
      expect(tokenError.steps).toHaveLength(1);

      const cost = setup({ maxCostUsd: 0.01, prices: { replay: { inputUsdPerMillionTokens: 5000, outputUsdPerMillionTokens: 15000 } } });
      const costRun = cost.driver();
      await costRun.start();
      const costError = (await costRun.step({ ...search("a"), usage: { inputTokens: 1, outputTokens: 1 } })) as BudgetExceededError;
      expect(costError.stopReason).toBe("cost_budget");
      expect(costError.used).toBeCloseTo(0.02, 10);
      expect(costError.steps).toHaveLength(0);
    });

    it("estimates tokens from text when the provider reports none", async () => {
      const { events, driver } = setup();
      const run = driver();
      await run.start();
      await run.step({ tool: "search", toolInput: "abcd", observation: "x", thought: "abcdefgh" });
      const usage = events.find((event) => event.type === "token_usage");
      expect(usage).toEqual({
        type: "token_usage",
        runId: "run-1",
        inputTokens: 0,
        outputTokens: Math.ceil("abcdefgh\nAction: search\nAction Input: abcd".length / 4),
        estimated: true,
      });
    });
  });

  describe("finish mode", () => {
    it("never throws, records the decision, and ends the run as stopped with its reason", async () => {
      const { handler, driver, events } = setup({ mode: "finish" });
      const run = driver();
      await run.start();
      for (let index = 0; index < 4; index += 1) expect(await run.step(search("same", "same result"))).toBeUndefined();
      expect(handler.runContext.contextOf("run-1")?.loop.stop).toEqual({
        reason: "repeat",
        message: 'Run run-1 stopped: tool "search" returned the same result 3 times for the same input (after 4 steps).',
      });
      await run.finish("What I found so far: same result", { stopReason: "repeat" });
      expect(events.at(-1)).toMatchObject({ type: "run_end", runId: "run-1", status: "stopped", stopReason: "repeat" });
      expect(handler.runContext.size).toBe(0);
    });
  });

  describe("run lifecycle", () => {
    it("emits run, step and duration events and frees the run at its end", async () => {
      const store = new RunContextStore();
      const { handler, driver, events } = setup({ runContext: store });
      const run = driver();
      await run.start();
      await run.step(search("a"));
      await run.finish("42");
      expect(events.map((event) => (event.type === "step" ? `step:${event.step}` : event.type === "step_duration" ? `duration:${event.phase}` : event.type))).toEqual([
        "run_start",
        "duration:llm",
        "token_usage",
        "step:thought",
        "step:action",
        "duration:cycle",
        "duration:tool",
        "step:observation",
        "step:thought",
        "duration:cycle",
        "step:finish",
        "run_end",
      ]);
      expect(events.at(-1)).toMatchObject({ status: "success", stopReason: "final_answer" });
      expect(store.size).toBe(0);
      expect(store.linkCount).toBe(0);
      expect(handler.activeRunCount).toBe(0);
    });

    it("reports AgentExecutor's own iteration stop as max_steps", async () => {
      const { driver, events } = setup({ maxSteps: Number.POSITIVE_INFINITY });
      const run = driver();
      await run.start();
      await run.finish("Agent stopped due to max iterations.");
      expect(events.at(-1)).toMatchObject({ type: "run_end", status: "stopped", stopReason: "max_steps" });
    });

    it("ends a run that failed for another reason as an error", async () => {
      const { handler, events } = setup();
      const run = new RunDriver(handler, "run-9");
      await run.start();
      await handler.handleChainError(new Error("model unavailable"), "run-9");
      expect(events.at(-1)).toMatchObject({ type: "run_end", status: "error", stopReason: "error" });
      expect(handler.runContext.size).toBe(0);
    });

    it("reports a throwing listener to onError without breaking the run", async () => {
      const errors: unknown[] = [];
      const handler = new LoopControlHandler({
        onEvent: () => {
          throw new Error("listener down");
        },
        onError: (error) => errors.push(error),
      });
      const run = new RunDriver(handler, "r");
      await run.start();
      await run.step(search("a"));
      await run.finish();
      expect(errors.length).toBeGreaterThan(0);
      expect(handler.activeRunCount).toBe(0);
    });
  });

  describe("audit trail", () => {
    it("writes one redacted record per step to the sink", async () => {
      const records: LoopAuditRecord[] = [];
      const { driver } = setup({
        audit: { sink: (record) => records.push(record), redact: (record) => ({ ...record, toolInput: "[redacted]" }) },
      });
      const run = driver();
      await run.start();
      await run.step({ ...search("secret", "22 °C"), extra: { repairs: ["markdown_labels"] } });
      await run.step(search("secret", "22 °C"));
      await run.step(search("secret", "22 °C"));
      await run.step(search("secret"));
      expect(records.map((record) => [record.step, record.outcome, record.toolInput, record.stopReason])).toEqual([
        [1, "observed", "[redacted]", undefined],
        [2, "observed", "[redacted]", undefined],
        [3, "warned", "[redacted]", undefined],
        [4, "stopped", "[redacted]", "repeat"],
      ]);
      expect(records[0]).toMatchObject({
        type: "reins.loop_control.step",
        runId: "run-1",
        thought: "I should use search.",
        tool: "search",
        observationChars: 5,
        repairs: ["markdown_labels"],
      });
      expect(records[0].observationFingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(records[2].detection).toEqual({ kind: "repeat", level: "warn", count: 2 });
    });

    it("writes JSON lines to a stream-like sink", async () => {
      const lines: string[] = [];
      const { driver } = setup({ audit: { sink: { write: (line: string) => lines.push(line) } } });
      const run = driver();
      await run.start();
      await run.step(search("a"));
      await run.finish("ok");
      expect(lines).toHaveLength(2);
      expect(lines.every((line) => line.endsWith("\n"))).toBe(true);
      expect(JSON.parse(lines[1])).toMatchObject({ outcome: "finish", stopReason: "final_answer", step: 2 });
    });
  });

  describe("metrics", () => {
    it("feeds @reins/metrics through the metrics option", async () => {
      const metrics = createAgentMetrics({ registry: new Registry(), toolNames: ["search"] });
      const handler = new LoopControlHandler({ metrics });
      const run = new RunDriver(handler, "m");
      await run.start();
      for (let index = 0; index < 4; index += 1) await run.step(search("a"));
      const text = await metrics.registry.metrics();
      expect(text).toContain('react_agent_runs_total{status="stopped"} 1');
      expect(text).toContain('react_agent_stops_total{reason="repeat"} 1');
      expect(text).toContain('react_agent_loop_detections_total{kind="repeat",level="warn"} 1');
      expect(text).toContain('react_agent_steps_total{step="observation"} 3');
    });
  });
});
