import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import type { ReinsEvent } from "@reins/core";
import { createAgent } from "langchain";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { createReinsMiddleware, ReinsMiddlewareOptionsError, type ReinsMiddlewareOptions, windowIdOf } from "./index";

/** A reply with usage: 100 tokens in, 50 out. */
const answer = (text: string): AIMessage => new AIMessage({ content: text, usage_metadata: { input_tokens: 100, output_tokens: 50, total_tokens: 150 } });

function agentWith(options: ReinsMiddlewareOptions, replies: number) {
  let model = fakeModel();
  for (let index = 0; index < replies; index += 1) model = model.respond(answer(`Answer ${index + 1}.`));
  const checkpointer = new MemorySaver();
  return createAgent({ model, tools: [], checkpointer, middleware: [createReinsMiddleware(options)] });
}

const ask = (agent: ReturnType<typeof agentWith>, threadId: string, userId?: string) =>
  agent.invoke({ messages: [new HumanMessage("What is it?")] }, { configurable: { thread_id: threadId, ...(userId !== undefined ? { user_id: userId } : {}) } });

describe("scoped budgets", () => {
  describe("thread scope (MemorySaver)", () => {
    it("counts model calls across the runs of a thread and stops the run past the thread's budget with stopScope thread", async () => {
      const events: ReinsEvent[] = [];
      const agent = agentWith({ budgets: { thread: { maxModelCalls: 2 } }, onEvent: (event) => events.push(event) }, 3);
      expect((await ask(agent, "t1")).stopReason).toBe("final_answer");
      const second = await ask(agent, "t1");
      expect(second.stopReason).toBe("final_answer");
      expect(second.reinsThread?.modelCalls).toBe(2);
      const third = await ask(agent, "t1");
      expect(third.stopReason).toBe("max_steps");
      expect(third.stopScope).toBe("thread");
      expect(third.reinsThread?.modelCalls).toBe(2);
      const ends = events.filter((event) => event.type === "run_end");
      expect(ends.map((event) => (event.type === "run_end" ? [event.stopReason, event.scope] : []))).toEqual([
        ["final_answer", undefined],
        ["final_answer", undefined],
        ["max_steps", "thread"],
      ]);
      // Another thread has its own budget.
      expect((await ask(agent, "t2")).stopReason).toBe("final_answer");
    });

    it("adds each run's tokens to the thread and stops at the thread's token budget", async () => {
      const agent = agentWith({ budgets: { thread: { maxTokens: 400 } } }, 4);
      const results = [];
      for (let run = 0; run < 4; run += 1) results.push(await ask(agent, "tokens"));
      expect(results.map((result) => result.stopReason)).toEqual(["final_answer", "final_answer", "final_answer", "token_budget"]);
      expect(results[2]?.reinsThread).toEqual({ modelCalls: 3, inputTokens: 300, outputTokens: 150, costUsd: 0 });
      expect(results[3]?.stopScope).toBe("thread");
    });

    it("counts cost from loop control's prices across runs", async () => {
      const agent = agentWith({ loopControl: { prices: { "*": { inputUsdPerMillionTokens: 10_000, outputUsdPerMillionTokens: 10_000 } } }, budgets: { thread: { maxCostUsd: 3 } } }, 4);
      const results = [];
      for (let run = 0; run < 3; run += 1) results.push(await ask(agent, "cost"));
      // 150 tokens at 0.01 USD each: 1.5 USD per run.
      expect(results[1]?.reinsThread?.costUsd).toBeCloseTo(3, 6);
      expect(results.map((result) => [result.stopReason, result.stopScope])).toEqual([
        ["final_answer", undefined],
        ["final_answer", undefined],
        ["cost_budget", "thread"],
      ]);
    });
  });

  describe("user scope (RateLimiterMemory)", () => {
    it("counts a user's model calls across threads; other users and runs without a user key are not stopped", async () => {
      const counter = new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: 0 });
      const agent = agentWith({ budgets: { user: { key: (config) => config.configurable?.user_id, counter, window: "none", maxModelCalls: 2 } } }, 6);
      expect((await ask(agent, "a1", "alice")).stopReason).toBe("final_answer");
      expect((await ask(agent, "a2", "alice")).stopReason).toBe("final_answer");
      const third = await ask(agent, "a3", "alice");
      expect([third.stopReason, third.stopScope]).toEqual(["max_steps", "user"]);
      expect((await ask(agent, "b1", "bob")).stopReason).toBe("final_answer");
      expect((await ask(agent, "n1")).stopReason).toBe("final_answer");
    });

    it("starts a new daily window on the next UTC day (injected clock)", async () => {
      let nowMs = Date.UTC(2026, 11, 4, 23, 0, 0);
      const counter = new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: 0 });
      const agent = agentWith({ loopControl: { now: () => nowMs }, budgets: { user: { key: (config) => config.configurable?.user_id, counter, maxTokens: 200 } } }, 4);
      expect((await ask(agent, "d1", "alice")).stopReason).toBe("final_answer");
      expect((await ask(agent, "d2", "alice")).stopReason).toBe("final_answer");
      const spent = await ask(agent, "d3", "alice");
      expect([spent.stopReason, spent.stopScope]).toEqual(["token_budget", "user"]);
      nowMs = Date.UTC(2026, 11, 5, 0, 30, 0);
      expect((await ask(agent, "d4", "alice")).stopReason).toBe("final_answer");
    });

    it("fails open and reports when the counter fails", async () => {
      const errors: unknown[] = [];
      const counter = { get: () => Promise.reject(new Error("redis down")), penalty: () => Promise.reject(new Error("redis down")) };
      const agent = agentWith({ loopControl: { onError: (error) => errors.push(error) }, budgets: { user: { key: () => "alice", counter, maxModelCalls: 1 } } }, 2);
      expect((await ask(agent, "f1")).stopReason).toBe("final_answer");
      expect((await ask(agent, "f2")).stopReason).toBe("final_answer");
      expect(errors.map((error) => (error as Error).message).join("\n")).toContain("redis down");
    });
  });

  describe("onExhausted: ask", () => {
    it("pauses at the thread's budget with an interrupt; an extension within maxExtension continues the run, { stop: true } ends it gracefully", async () => {
      const agent = agentWith({ budgets: { thread: { maxModelCalls: 1 }, onExhausted: "ask", maxExtension: { maxModelCalls: 1 } } }, 3);
      const config = { configurable: { thread_id: "ask" } };
      expect((await agent.invoke({ messages: [new HumanMessage("One?")] }, config)).stopReason).toBe("final_answer");
      const paused = await agent.invoke({ messages: [new HumanMessage("Two?")] }, config);
      const request = (paused as { __interrupt__?: Array<{ value: Record<string, unknown> }> }).__interrupt__?.[0]?.value;
      expect(request).toMatchObject({ type: "reins_budget_exhausted", scope: "thread", stopReason: "max_steps", limit: 1, extensionLeft: { modelCalls: 1 } });
      // More than maxExtension is capped to it.
      const resumed = await agent.invoke(new Command({ resume: { extend: { modelCalls: 5 } } }), config);
      expect(resumed.stopReason).toBe("final_answer");
      expect(resumed.reinsThread).toMatchObject({ modelCalls: 2, extension: { modelCalls: 1 } });
      // The extension is used up: the next run asks again, and { stop: true } ends it as a stop.
      await agent.invoke({ messages: [new HumanMessage("Three?")] }, config);
      const stopped = await agent.invoke(new Command({ resume: { stop: true } }), config);
      expect([stopped.stopReason, stopped.stopScope]).toEqual(["max_steps", "thread"]);
    });
  });

  describe("options", () => {
    it("rejects a counter whose window is shorter than the budget's, a missing key and a bad limit, naming the field", () => {
      const short = new RateLimiterMemory({ points: 1, duration: 3600 });
      expect(() => createReinsMiddleware({ budgets: { user: { key: () => "u", counter: short, window: "day" } } })).toThrow(/budgets\.user\.counter/);
      expect(() => createReinsMiddleware({ budgets: { user: { counter: short } as never } })).toThrow(ReinsMiddlewareOptionsError);
      expect(() => createReinsMiddleware({ budgets: { thread: { maxTokens: -1 } } })).toThrow(/budgets\.thread\.maxTokens/);
      expect(() => createReinsMiddleware({ loopControl: false, budgets: { thread: { maxTokens: 10 } } })).toThrow(/budgets/);
    });

    it("names windows by UTC day and month", () => {
      const nowMs = Date.UTC(2026, 0, 31, 23, 59, 0);
      expect([windowIdOf("day", nowMs), windowIdOf("month", nowMs), windowIdOf("none", nowMs)]).toEqual(["2026-01-31", "2026-01", "all"]);
    });
  });
});
