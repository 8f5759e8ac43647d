import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { DynamicStructuredTool, DynamicTool } from "@langchain/core/tools";
import { RunContextStore, type ReinsEvent, type ToolCallEvent } from "@reins/core";
import { z } from "zod";
import { never, settleWithFakeTimers } from "./__fixtures__/fake-time";
import { ToolExecutor, ToolTimeoutError } from "./index";

afterEach(() => {
  jest.useRealTimers();
});

/** A string tool that records its inputs and how many of its calls run at once. */
function probeTool(name: string, body: (input: string, signal: AbortSignal | undefined) => Promise<string>) {
  const calls: string[] = [];
  let running = 0;
  const stats = { maxRunning: 0 };
  const tool = new DynamicTool({
    name,
    description: `${name} tool`,
    func: async (input, _runManager, config) => {
      calls.push(input);
      running += 1;
      stats.maxRunning = Math.max(stats.maxRunning, running);
      try {
        return await body(input, config?.signal);
      } finally {
        running -= 1;
      }
    },
  });
  return { tool, calls, stats };
}

function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise<never>((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe("ToolExecutor cache keys", () => {
  describe("with inputs that a normalising key would merge", () => {
    it("makes the eight colliding string inputs eight calls", async () => {
      const echo = probeTool("search", async (input) => `r:${JSON.stringify(input)}`);
      const [wrapped] = new ToolExecutor({ defaults: { cache: { scope: "global" } } }).wrap([echo.tool]);
      const inputs = ["a  b", "a b", '"q"', "q", "line\nbreak", "line break", "1.0", "1"];
      const observations: unknown[] = [];
      for (const input of inputs) observations.push(await wrapped.invoke(input));
      expect(echo.calls).toEqual(inputs);
      expect(observations).toEqual(inputs.map((input) => `r:${JSON.stringify(input)}`));
      // Each is cached under its own key: repeats are served, none from another input.
      for (const input of inputs) expect(await wrapped.invoke(input)).toBe(`r:${JSON.stringify(input)}`);
      expect(echo.calls).toHaveLength(8);
    });

    it("keeps number literals of JSON text as written (1.0 vs 1, 20-digit ids) and sorts object keys", async () => {
      const seen: unknown[] = [];
      const lookup = new DynamicStructuredTool({
        name: "order",
        description: "Looks up an order",
        schema: z.object({ id: z.number(), page: z.number().optional() }),
        func: async (input) => {
          seen.push(input);
          return `order ${seen.length}`;
        },
      });
      const [wrapped] = new ToolExecutor({ defaults: { cache: { scope: "global" } } }).wrap([lookup]);
      const texts = ['{"id": 12345678901234567890}', '{"id": 12345678901234567891}', '{"id": 1.0}', '{"id": 1}'];
      for (const text of texts) await wrapped.invoke(text as never);
      expect(seen).toHaveLength(4);
      // The same object with its keys in another order and other spacing is the same input.
      await wrapped.invoke('{"page": 2, "id": 7}' as never);
      expect(await wrapped.invoke('{ "id":7,"page":2 }' as never)).toBe("order 5");
      expect(seen).toHaveLength(5);
    });
  });

  describe("with a user key", () => {
    it("lets cache.key decide which inputs are the same", async () => {
      const echo = probeTool("search", async (input) => `r:${input}`);
      const [wrapped] = new ToolExecutor({ defaults: { cache: { scope: "global", key: (input) => String(input).trim().toLowerCase() } } }).wrap([echo.tool]);
      await wrapped.invoke("Paris");
      expect(await wrapped.invoke("  paris ")).toBe("r:Paris");
      expect(echo.calls).toEqual(["Paris"]);
    });
  });
});

describe("ToolExecutor idempotency", () => {
  describe("a tool not declared idempotent that ignores its signal and hangs", () => {
    it("is never started twice: the timeout ends the call at once with the timeout observation", async () => {
      jest.useFakeTimers();
      const slowWrite = probeTool("save_note", () => never());
      const [wrapped] = new ToolExecutor({ defaults: { timeoutMs: 1000 } }).wrap([slowWrite.tool]);
      const { value, elapsedMs } = await settleWithFakeTimers(wrapped.invoke("note"), { stepMs: 5 });
      expect(slowWrite.calls).toEqual(["note"]);
      expect(slowWrite.stats.maxRunning).toBe(1);
      expect(elapsedMs).toBeLessThanOrEqual(1000 + 10);
      expect(value).toMatch(/^Tool "save_note" did not answer within 1 s\./);
    });
  });

  describe("an idempotent tool whose timed-out attempt is still running", () => {
    it("retries only once the abandoned attempt has settled, so two attempts never run at once", async () => {
      jest.useFakeTimers();
      let attempt = 0;
      // The first attempt ignores its signal and takes 1.5 s; the second answers at once.
      const read = probeTool("read_page", async () => {
        attempt += 1;
        if (attempt === 1) {
          await sleep(1500);
          return "late";
        }
        return "page text";
      });
      const [wrapped] = new ToolExecutor({ defaults: { timeoutMs: 1000, idempotent: true, retry: { jitter: "none", initialDelayMs: 100 } } }).wrap([read.tool]);
      const { value, elapsedMs } = await settleWithFakeTimers(wrapped.invoke("url"), { stepMs: 5 });
      expect(value).toBe("page text");
      expect(read.calls).toHaveLength(2);
      expect(read.stats.maxRunning).toBe(1);
      expect(elapsedMs).toBeGreaterThanOrEqual(1500);
    });
  });
});

describe("ToolExecutor deadlines", () => {
  describe("with the default policy and a tool that never settles", () => {
    it("answers within the 30 s call deadline (not 30 s × 3 attempts + backoff)", async () => {
      jest.useFakeTimers();
      const hanging = probeTool("slow", () => never());
      const [wrapped] = new ToolExecutor().wrap([hanging.tool]);
      const { value, elapsedMs } = await settleWithFakeTimers(wrapped.invoke("q"), { stepMs: 50 });
      expect(elapsedMs).toBeLessThanOrEqual(30_000 + 50);
      expect(hanging.calls).toHaveLength(1);
      expect(value).toMatch(/did not answer within 30 s/);
      expect(jest.getTimerCount()).toBe(0);
    });
  });

  describe("with deadlineMs shorter than the attempts and backoff", () => {
    it("bounds all attempts and backoff together and reports the call deadline", async () => {
      jest.useFakeTimers();
      const events: ReinsEvent[] = [];
      const hanging = probeTool("slow", (_input, signal) => untilAborted(signal));
      const [wrapped] = new ToolExecutor({
        onEvent: (event) => events.push(event),
        defaults: { timeoutMs: 1000, deadlineMs: 2500, idempotent: true, retry: { maxAttempts: 5, initialDelayMs: 100, maxDelayMs: 100, jitter: "none" } },
      }).wrap([hanging.tool]);
      const { value, elapsedMs } = await settleWithFakeTimers(wrapped.invoke("q"), { stepMs: 5 });
      expect(elapsedMs).toBeLessThanOrEqual(2500 + 10);
      expect(hanging.calls).toHaveLength(3);
      expect(value).toMatch(/^Tool "slow" did not answer within 2.5 s \(tried 3 times\)/);
      const call = events.find((event): event is ToolCallEvent => event.type === "tool_call");
      expect(call?.outcome).toBe("timeout");
      expect(ToolTimeoutError.isInstance(call?.error) && call.error.deadline).toBe("call");
    });
  });

  describe("when the run has a time budget", () => {
    class Noop extends BaseCallbackHandler {
      name = "noop";
    }

    async function inRun(store: RunContextStore, remainingMs: number, call: (config: object) => Promise<unknown>): Promise<unknown> {
      // A registered run whose budget ends in remainingMs; the tool run's parent is the run.
      const runId = "run-1";
      const context = store.start(runId);
      context.deadlineAtMs = Date.now() + remainingMs;
      const { CallbackManager } = await import("@langchain/core/callbacks/manager");
      const manager = new CallbackManager(runId);
      manager.addHandler(new Noop());
      return call({ callbacks: manager });
    }

    it("cuts a call with timeoutMs Infinity at the run's remaining time and tells the model the time is up", async () => {
      jest.useFakeTimers();
      const store = new RunContextStore();
      const hanging = probeTool("slow", () => never());
      const [wrapped] = new ToolExecutor({ runContext: store, defaults: { timeoutMs: Number.POSITIVE_INFINITY, deadlineMs: Number.POSITIVE_INFINITY } }).wrap([hanging.tool]);
      const { value, elapsedMs } = await settleWithFakeTimers(inRun(store, 500, (config) => wrapped.invoke("q", config)), { stepMs: 5 });
      expect(elapsedMs).toBeLessThanOrEqual(510);
      expect(value).toMatch(/^Tool "slow" was stopped: the time allowed for this task has run out\./);
      expect(jest.getTimerCount()).toBe(0);
    });

    it("does not start the tool once the run's time is up", async () => {
      const store = new RunContextStore();
      const quick = probeTool("quick", async () => "done");
      const [wrapped] = new ToolExecutor({ runContext: store }).wrap([quick.tool]);
      const value = await inRun(store, -1, (config) => wrapped.invoke("q", config));
      expect(quick.calls).toEqual([]);
      expect(value).toMatch(/the time allowed for this task has run out/);
    });
  });
});
