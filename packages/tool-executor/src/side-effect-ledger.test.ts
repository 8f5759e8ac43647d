import { ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { RunContextStore, toolOutcomeOf, type ReinsEvent } from "@reins/core";
import {
  InMemorySideEffectLedger,
  SideEffectInDoubtError,
  ToolExecutor,
  exactInputHash,
  idempotencyKeyFor,
  idempotencyKeyOf,
  sideEffectKey,
  type SideEffectLedger,
  type ToolExecutorOptions,
} from "./index";

function setUp(options: { ledger?: SideEffectLedger; approve?: (call: unknown, context: { inDoubt?: boolean }) => boolean; deadlineMs?: number; now?: () => number } = {}) {
  const executions: Array<{ amount: number; idempotencyKey: string | undefined }> = [];
  const pay = tool(
    async ({ amount }: { amount: number }, config: RunnableConfig) => {
      executions.push({ amount, idempotencyKey: idempotencyKeyOf(config) });
      return `Paid ${amount}.`;
    },
    { name: "pay", description: "Pay", schema: z.object({ amount: z.number() }) },
  );
  const events: ReinsEvent[] = [];
  const ledger = options.ledger ?? new InMemorySideEffectLedger();
  const executorOptions: ToolExecutorOptions = {
    sideEffectLedger: ledger,
    onEvent: (event) => events.push(event),
    ...(options.now !== undefined ? { now: options.now } : {}),
    policies: { pay: { sideEffects: true, approve: options.approve ?? (() => true), ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}) } },
  };
  const wrap = (): ((amount: number, callId?: string, threadId?: string) => Promise<ToolMessage>) => {
    const [wrapped] = new ToolExecutor(executorOptions).wrap([pay]);
    return async (amount, callId = "call_1", threadId = "thread-1") =>
      (await wrapped.invoke({ name: "pay", args: { amount }, id: callId, type: "tool_call" }, { configurable: { thread_id: threadId } })) as ToolMessage;
  };
  return { wrap, executions, events, ledger };
}

describe("side-effect ledger", () => {
  describe("a side-effect call replayed with the same thread, call id and input", () => {
    it("runs the tool once; the replay gets the stored result (same ToolMessage content and outcome)", async () => {
      const { wrap, executions } = setUp();
      const first = await wrap()(10);
      // A second executor (a resumed process) over the same ledger.
      const second = await wrap()(10);
      expect(executions).toHaveLength(1);
      expect(second.content).toBe(first.content);
      expect(toolOutcomeOf(second)).toBe("success");
    });

    it("runs again for another call id, another thread or another input", async () => {
      const { wrap, executions } = setUp();
      const call = wrap();
      await call(10);
      await call(10, "call_2");
      await call(10, "call_1", "thread-2");
      await call(11);
      expect(executions.map((execution) => execution.amount)).toEqual([10, 10, 10, 11]);
    });
  });

  describe("the idempotency key", () => {
    it("reaches the tool as configurable.reins_idempotency_key: thread + call id, the same on a replay after a lost result", async () => {
      const { wrap, executions } = setUp();
      await wrap()(10);
      expect(executions[0]?.idempotencyKey).toBe(idempotencyKeyFor("thread:thread-1", "call_1"));
      expect(executions[0]?.idempotencyKey).toMatch(/^reins-[0-9a-f]{40}$/);
    });
  });

  describe("a claim whose holder died before storing a result", () => {
    it("is in doubt: never run again, outcome in_doubt, a model text that says the effect may have happened", async () => {
      let now = 1_000;
      const ledger = new InMemorySideEffectLedger({ now: () => now });
      const key = sideEffectKey("thread:thread-1", "pay", "call_1", { amount: 10 });
      expect(await ledger.claim(key, "dead-holder", 100)).toEqual({ state: "claimed" });
      now += 101;
      const { wrap, executions, events } = setUp({ ledger, approve: (_call, context) => context.inDoubt !== true, now: () => now });
      const message = await wrap()(10);
      expect(executions).toHaveLength(0);
      expect(toolOutcomeOf(message)).toBe("in_doubt");
      expect(message.status).toBe("error");
      expect(String(message.content)).toMatch(/MAY ALREADY HAVE HAPPENED/);
      const call = events.find((event) => event.type === "tool_call");
      expect(call).toMatchObject({ outcome: "in_doubt" });
      expect((call as { error?: Error }).error).toBeInstanceOf(SideEffectInDoubtError);
    });

    it("runs again when approve decides so (context.inDoubt: true)", async () => {
      let now = 1_000;
      const ledger = new InMemorySideEffectLedger({ now: () => now });
      const key = sideEffectKey("thread:thread-1", "pay", "call_1", { amount: 10 });
      await ledger.claim(key, "dead-holder", 100);
      now += 101;
      const decisions: Array<boolean | undefined> = [];
      const { wrap, executions } = setUp({ ledger, approve: (_call, context) => (decisions.push(context.inDoubt), true), now: () => now });
      const message = await wrap()(10);
      expect(decisions).toEqual([undefined, true]);
      expect(executions).toHaveLength(1);
      expect(toolOutcomeOf(message)).toBe("success");
    });
  });

  describe("a claim still held by another holder", () => {
    afterEach(() => jest.useRealTimers());

    it("waits (with backoff) for the holder's result and returns it without running the tool", async () => {
      jest.useFakeTimers();
      const ledger = new InMemorySideEffectLedger();
      const key = sideEffectKey("thread:thread-1", "pay", "call_1", { amount: 10 });
      await ledger.claim(key, "other", 60_000);
      const claims = jest.spyOn(ledger, "claim");
      const { wrap, executions } = setUp({ ledger });
      const pending = wrap()(10);
      await jest.advanceTimersByTimeAsync(1_000);
      await ledger.complete(key, "other", { observation: "Paid 10 (by the other replica).", outcome: "success" }, 60_000);
      await jest.advanceTimersByTimeAsync(2_000);
      const message = await pending;
      expect(executions).toHaveLength(0);
      expect(message.content).toBe("Paid 10 (by the other replica).");
      // Backoff: a handful of looks in 3 s, not a polling storm.
      expect(claims.mock.calls.length).toBeLessThan(10);
    });

    it("reports in doubt once its own deadline has passed", async () => {
      jest.useFakeTimers();
      const ledger = new InMemorySideEffectLedger();
      const key = sideEffectKey("thread:thread-1", "pay", "call_1", { amount: 10 });
      await ledger.claim(key, "other", 600_000);
      const { wrap, executions } = setUp({ ledger, deadlineMs: 3_000 });
      const pending = wrap()(10);
      await jest.advanceTimersByTimeAsync(5_000);
      const message = await pending;
      expect(executions).toHaveLength(0);
      expect(toolOutcomeOf(message)).toBe("in_doubt");
    });
  });

  describe("a ledger that fails", () => {
    it("refuses the call (never runs it unguarded), outcome error", async () => {
      const ledger = new InMemorySideEffectLedger();
      jest.spyOn(ledger, "claim").mockRejectedValue(new Error("ECONNREFUSED"));
      const { wrap, executions } = setUp({ ledger });
      const message = await wrap()(10);
      expect(executions).toHaveLength(0);
      expect(toolOutcomeOf(message)).toBe("error");
    });
  });

  describe("a tool that never started (call cap)", () => {
    it("releases its claim, so the key is not left in doubt", async () => {
      const ledger = new InMemorySideEffectLedger();
      const key = sideEffectKey("thread:thread-1", "pay", "call_2", { amount: 10 });
      const release = jest.spyOn(ledger, "release");
      const store = new RunContextStore();
      store.start("run-1");
      const [wrapped] = new ToolExecutor({ runContext: store, sideEffectLedger: ledger, policies: { pay: { sideEffects: true, approve: () => true, maxCallsPerRun: 1 } } }).wrap([
        tool(async () => "Paid.", { name: "pay", description: "Pay", schema: z.object({ amount: z.number() }) }),
      ]);
      const outcomes: unknown[] = [];
      for (const id of ["call_1", "call_2"]) {
        store.link(`tool-${id}`, "run-1");
        const message = (await wrapped.invoke({ name: "pay", args: { amount: 10 }, id, type: "tool_call" }, { configurable: { thread_id: "thread-1" }, runId: `tool-${id}` })) as ToolMessage;
        outcomes.push(toolOutcomeOf(message));
      }
      expect(outcomes).toEqual(["success", "rejected"]);
      expect(release).toHaveBeenCalledTimes(1);
      expect(release).toHaveBeenCalledWith(key, expect.any(String));
      expect(await ledger.claim(key, "next", 1_000)).toEqual({ state: "claimed" });
    });
  });

  describe("exactInputHash", () => {
    it("tells apart inputs that differ in any character, and ignores key order", () => {
      expect(exactInputHash("Paris")).not.toBe(exactInputHash(" Paris"));
      expect(exactInputHash({ a: 1, b: 2 })).toBe(exactInputHash({ b: 2, a: 1 }));
      expect(exactInputHash({ a: 1 })).not.toBe(exactInputHash('{"a":1}'));
    });
  });
});
