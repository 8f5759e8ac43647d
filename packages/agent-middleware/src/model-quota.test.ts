import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";
import { createModelQuotaMiddleware, ModelQuotaExceededError, type ModelQuotaLimiter } from "./index";

/** A fixed-window limiter on an injected clock, with rate-limiter-flexible's rejection shape. */
class ClockLimiter implements ModelQuotaLimiter {
  readonly consumed = new Map<string, number>();
  readonly blocks: Array<{ key: string; secDuration: number }> = [];
  private readonly blockedUntil = new Map<string, number>();
  constructor(
    private readonly points: number,
    private readonly clock: { nowMs: number },
  ) {}
  async consume(key: string, points = 1): Promise<unknown> {
    const until = this.blockedUntil.get(key) ?? 0;
    if (until > this.clock.nowMs) throw { msBeforeNext: until - this.clock.nowMs, remainingPoints: 0 };
    const used = (this.consumed.get(key) ?? 0) + points;
    if (used > this.points) throw { msBeforeNext: 1000, remainingPoints: 0 };
    this.consumed.set(key, used);
    return { remainingPoints: this.points - used };
  }
  async block(key: string, secDuration: number): Promise<unknown> {
    this.blocks.push({ key, secDuration });
    this.blockedUntil.set(key, this.clock.nowMs + secDuration * 1000);
    return {};
  }
  async penalty(key: string, points = 1): Promise<unknown> {
    this.consumed.set(key, (this.consumed.get(key) ?? 0) + points);
    return {};
  }
  async reward(key: string, points = 1): Promise<unknown> {
    this.consumed.set(key, (this.consumed.get(key) ?? 0) - points);
    return {};
  }
}

/** The error shape of the OpenAI SDK's RateLimitError: `status` 429 and a `Headers` object. */
function rateLimitError(retryAfterSeconds: number): Error {
  return Object.assign(new Error("429 Rate limit reached"), { status: 429, headers: new Headers({ "retry-after": String(retryAfterSeconds) }) });
}

/** createAgent wraps an error thrown by a middleware in its MiddlewareError (`cause`). */
const quotaErrorOf = (thrown: unknown): unknown => (thrown instanceof Error && !(thrown instanceof ModelQuotaExceededError) ? thrown.cause : thrown);

const reply = (text: string) => new AIMessage({ content: text, usage_metadata: { input_tokens: 40, output_tokens: 10, total_tokens: 50 } });

describe("createModelQuotaMiddleware", () => {
  describe("a provider 429 with Retry-After", () => {
    it("blocks the key once for the whole fleet; this replica and another one wait the cooldown out, then call the model", async () => {
      const clock = { nowMs: 1_000_000 };
      const waits: number[] = [];
      const requests = new ClockLimiter(100, clock);
      const options = { requests, now: () => clock.nowMs, sleep: async (ms: number) => void (waits.push(ms), (clock.nowMs += ms)), key: () => "gpt-4o-mini" };
      const first = createAgent({ model: fakeModel().respond(rateLimitError(2)).respond(reply("A.")), tools: [], middleware: [createModelQuotaMiddleware(options)] });
      const result = await first.invoke({ messages: [new HumanMessage("Q?")] });
      expect(result.messages.at(-1)?.content).toBe("A.");
      expect(requests.blocks).toEqual([{ key: "gpt-4o-mini", secDuration: 2 }]);
      expect(waits).toEqual([2000]);

      // Another replica during a cooldown: it waits for the block, it does not hit the provider early.
      await requests.block("gpt-4o-mini", 1.5);
      let calledAtMs: number | undefined;
      const second = createAgent({ model: fakeModel().respond(() => ((calledAtMs = clock.nowMs), reply("B."))), tools: [], middleware: [createModelQuotaMiddleware(options)] });
      const startedAtMs = clock.nowMs;
      await second.invoke({ messages: [new HumanMessage("Q?")] });
      expect(calledAtMs).toBe(startedAtMs + 1500);
    });

    it("does not wait past the run's time budget: ModelQuotaExceededError after one fleet block", async () => {
      const clock = { nowMs: 0 };
      const requests = new ClockLimiter(100, clock);
      const model = fakeModel().respond(rateLimitError(30)).respond(reply("never"));
      const agent = createAgent({ model, tools: [], middleware: [createModelQuotaMiddleware({ requests, maxDurationMs: 10_000, now: () => clock.nowMs, sleep: async (ms) => void (clock.nowMs += ms) })] });
      const error = await agent.invoke({ messages: [new HumanMessage("Q?")] }).catch(quotaErrorOf);
      expect(error).toBeInstanceOf(ModelQuotaExceededError);
      expect((error as ModelQuotaExceededError).retryAfterMs).toBe(30_000);
      expect(requests.blocks).toHaveLength(1);
    });
  });

  describe("quota", () => {
    it("waits for the window when no request is left, within maxWaitMs", async () => {
      const clock = { nowMs: 0 };
      const requests = new ClockLimiter(0, clock);
      const agent = createAgent({ model: fakeModel().respond(reply("A.")), tools: [], middleware: [createModelQuotaMiddleware({ requests, maxWaitMs: 500, now: () => clock.nowMs, sleep: async (ms) => void (clock.nowMs += ms) })] });
      const error = await agent.invoke({ messages: [new HumanMessage("Q?")] }).catch(quotaErrorOf);
      expect(error).toBeInstanceOf(ModelQuotaExceededError);
      expect((error as ModelQuotaExceededError).retryAfterMs).toBe(1000);
    });

    it("takes estimated tokens before the call and corrects them with usage_metadata after", async () => {
      const clock = { nowMs: 0 };
      const tokens = new ClockLimiter(10_000, clock);
      const agent = createAgent({ model: fakeModel().respond(reply("A.")), tools: [], middleware: [createModelQuotaMiddleware({ tokens, key: () => "k", now: () => clock.nowMs })] });
      await agent.invoke({ messages: [new HumanMessage("Q?")] });
      expect(tokens.consumed.get("k")).toBe(50);
    });

    it("fails open and reports when the limiter's store fails", async () => {
      const errors: unknown[] = [];
      const requests: ModelQuotaLimiter = { consume: () => Promise.reject(new Error("redis down")) };
      const agent = createAgent({ model: fakeModel().respond(reply("A.")), tools: [], middleware: [createModelQuotaMiddleware({ requests, onError: (error) => errors.push(error) })] });
      const result = await agent.invoke({ messages: [new HumanMessage("Q?")] });
      expect(result.messages.at(-1)?.content).toBe("A.");
      expect(errors).toHaveLength(1);
    });

    it("rejects options without a limiter, naming the field", () => {
      expect(() => createModelQuotaMiddleware({})).toThrow(/modelQuota/);
      expect(() => createModelQuotaMiddleware({ requests: {} as ModelQuotaLimiter })).toThrow(/modelQuota\.requests/);
    });
  });
});
