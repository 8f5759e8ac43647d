import { DynamicTool } from "@langchain/core/tools";
import type { ReinsEvent, ToolCallEvent } from "@reins/core";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { settleWithFakeTimers } from "@reins/testing";
import { parseRetryAfter, retryAfterMsOf, ToolExecutor, ToolExecutorOptionsError, type ToolResultStore, type CachedToolResult } from "./index";
import { cacheSlotOf } from "./result-cache";

/** An error shaped like a fetch/axios failure with a `Retry-After`. */
function overloaded(status: number, retryAfter: string, where: "headers" | "response" | "Headers" = "headers"): Error {
  const error = new Error(`HTTP ${status}`);
  if (where === "headers") return Object.assign(error, { status, headers: { "Retry-After": retryAfter } });
  if (where === "Headers") return Object.assign(error, { status, headers: new Headers({ "retry-after": retryAfter }) });
  return Object.assign(error, { response: { status, headers: { "retry-after": retryAfter } } });
}

function callEvents(events: ReinsEvent[]): ToolCallEvent[] {
  return events.filter((event): event is ToolCallEvent => event.type === "tool_call");
}

// Waits (Retry-After, quota windows, retries, slow tools) run on jest's fake timers, in virtual time.
afterEach(() => {
  jest.useRealTimers();
});

describe("Retry-After", () => {
  describe("parseRetryAfter", () => {
    it("reads delay-seconds and HTTP-dates relative to now, and nothing else", () => {
      const now = Date.parse("Wed, 02 Dec 2026 07:00:00 GMT");
      expect(parseRetryAfter("2", now)).toBe(2000);
      expect(parseRetryAfter(" 0 ", now)).toBe(0);
      expect(parseRetryAfter("Wed, 02 Dec 2026 07:00:03 GMT", now)).toBe(3000);
      expect(parseRetryAfter("Wed, 02 Dec 2026 06:00:00 GMT", now)).toBe(0);
      expect(parseRetryAfter("1.5", now)).toBeUndefined();
      expect(parseRetryAfter("soon", now)).toBeUndefined();
      expect(parseRetryAfter("99999999", now)).toBe(86_400_000);
    });
  });

  describe("retryAfterMsOf", () => {
    it("reads error.headers, error.response.headers and Headers, for 429 and 503 only", () => {
      expect(retryAfterMsOf(overloaded(429, "1"), 0)).toBe(1000);
      expect(retryAfterMsOf(overloaded(503, "2", "response"), 0)).toBe(2000);
      expect(retryAfterMsOf(overloaded(429, "3", "Headers"), 0)).toBe(3000);
      expect(retryAfterMsOf(overloaded(500, "1"), 0)).toBeUndefined();
      expect(retryAfterMsOf(new Error("x", { cause: overloaded(429, "4") }), 0)).toBe(4000);
      expect(retryAfterMsOf("429", 0)).toBeUndefined();
    });
  });

  describe("a 429 with Retry-After: 1", () => {
    it("is not retried sooner than 1 s, and the retry succeeds", async () => {
      jest.useFakeTimers();
      const startedAt: number[] = [];
      const flaky = new DynamicTool({
        name: "quotes",
        description: "quotes",
        func: async () => {
          startedAt.push(Date.now());
          if (startedAt.length === 1) throw overloaded(429, "1");
          return "ok";
        },
      });
      const [wrapped] = new ToolExecutor({ defaults: { retry: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 20 } } }).wrap([flaky]);
      expect((await settleWithFakeTimers(wrapped.invoke("x"))).value).toBe("ok");
      expect(startedAt).toHaveLength(2);
      expect(startedAt[1] - startedAt[0]).toBeGreaterThanOrEqual(1000);
    });
  });

  describe("a Retry-After that does not fit in the deadline", () => {
    it("is not retried; the observation says when to try again", async () => {
      jest.useFakeTimers();
      let calls = 0;
      const limited = new DynamicTool({
        name: "quotes",
        description: "quotes",
        func: async () => {
          calls += 1;
          throw overloaded(503, "120", "response");
        },
      });
      const [wrapped] = new ToolExecutor({ defaults: { deadlineMs: 2_000, retry: { maxAttempts: 3, initialDelayMs: 10 } } }).wrap([limited]);
      const { value, elapsedMs } = await settleWithFakeTimers(wrapped.invoke("x"));
      const observation = String(value);
      expect(elapsedMs).toBeLessThan(1_000);
      expect(calls).toBe(1);
      expect(observation).toMatch(/asked to wait about 120 s before trying again/);
    });
  });
});

describe("the circuit breaker and HTTP answers", () => {
  it("counts 5xx failures but not 4xx answers (429 included): the service is answering", async () => {
    let status = 429;
    const answering = new DynamicTool({
      name: "quotes",
      description: "quotes",
      func: async () => {
        throw Object.assign(new Error(`HTTP ${status}`), { status });
      },
    });
    const executor = new ToolExecutor({ policies: { quotes: { retry: false, circuitBreaker: { failureThreshold: 2 } } } });
    const [wrapped] = executor.wrap([answering]);
    for (const answer of [429, 404, 400, 429]) {
      status = answer;
      await wrapped.invoke("x");
    }
    expect(executor.circuitStateOf("quotes")).toBe("closed");
    status = 503;
    await wrapped.invoke("x");
    await wrapped.invoke("x");
    expect(executor.circuitStateOf("quotes")).toBe("open");
  });
});

describe("rateLimit", () => {
  it("rejects an object that is not a limiter, naming the field", () => {
    expect(() => new ToolExecutor({ policies: { search: { rateLimit: { limiter: {} as never } } } })).toThrow(ToolExecutorOptionsError);
    expect(() => new ToolExecutor({ policies: { search: { rateLimit: { limiter: {} as never } } } })).toThrow(/policies\.search\.rateLimit\.limiter/);
  });

  it("makes calls wait for their slot within the deadline, so the upstream never sees more than the quota", async () => {
    jest.useFakeTimers();
    const startedAt: number[] = [];
    const upstream = new DynamicTool({
      name: "search",
      description: "search",
      func: async (input) => {
        startedAt.push(Date.now());
        return `found ${input}`;
      },
    });
    const limiter = new RateLimiterMemory({ points: 2, duration: 1 });
    const [wrapped] = new ToolExecutor({ policies: { search: { rateLimit: { limiter }, deadlineMs: 5_000 } } }).wrap([upstream]);
    const { value: answers } = await settleWithFakeTimers(Promise.all(["a", "b", "c", "d"].map((input) => wrapped.invoke(input))));
    expect(answers).toEqual(["found a", "found b", "found c", "found d"]);
    // Two calls per second at most: the third and fourth started a window later.
    const sorted = [...startedAt].sort((x, y) => x - y);
    expect(sorted[2] - sorted[0]).toBeGreaterThanOrEqual(900);
  });

  it("answers a rate-limited observation, not a raw 429, when no slot comes within maxWaitMs; the tool is not started and the circuit does not count it", async () => {
    let calls = 0;
    const upstream = new DynamicTool({
      name: "search",
      description: "search",
      func: async () => {
        calls += 1;
        return "ok";
      },
    });
    const events: ReinsEvent[] = [];
    const limiter = new RateLimiterMemory({ points: 1, duration: 10 });
    const executor = new ToolExecutor({ onEvent: (event) => events.push(event), policies: { search: { rateLimit: { limiter, maxWaitMs: 100 }, circuitBreaker: { failureThreshold: 1 } } } });
    const [wrapped] = executor.wrap([upstream]);
    expect(await wrapped.invoke("a")).toBe("ok");
    const observation = String(await wrapped.invoke("b"));
    expect(observation).toMatch(/^Tool "search" was not called: its request quota is used up right now \(a slot frees in about 10 s\)/);
    expect(calls).toBe(1);
    expect(callEvents(events).map((event) => [event.outcome, event.error?.name])).toEqual([
      ["success", undefined],
      ["rejected", "RateLimitedError"],
    ]);
    expect(executor.circuitStateOf("search")).toBe("closed");
  });

  it("keys by a function (per tenant) and counts retries against the quota", async () => {
    jest.useFakeTimers();
    let calls = 0;
    const upstream = new DynamicTool({
      name: "search",
      description: "search",
      func: async () => {
        calls += 1;
        if (calls === 1) throw Object.assign(new Error("Bad Gateway"), { status: 502 });
        return "ok";
      },
    });
    const limiter = new RateLimiterMemory({ points: 10, duration: 60 });
    const [wrapped] = new ToolExecutor({
      policies: { search: { retry: { initialDelayMs: 1, maxDelayMs: 2 }, rateLimit: { limiter, key: (context) => `tenant:${String(context.metadata?.tenant)}` } } },
    }).wrap([upstream]);
    expect((await settleWithFakeTimers(wrapped.invoke("a", { metadata: { tenant: "acme" } }))).value).toBe("ok");
    const acme = await limiter.get("tenant:acme");
    expect(acme?.consumedPoints).toBe(2);
    expect(await limiter.get("search")).toBeNull();
  });

  it("lets the call through and logs when the limiter's store fails (no insurance limiter)", async () => {
    const warnings: string[] = [];
    const broken = { consume: async () => Promise.reject(new Error("connection is closed")) };
    const upstream = new DynamicTool({ name: "search", description: "search", func: async () => "ok" });
    const [wrapped] = new ToolExecutor({ logger: { warn: (message) => warnings.push(message) }, policies: { search: { rateLimit: { limiter: broken } } } }).wrap([upstream]);
    expect(await wrapped.invoke("a")).toBe("ok");
    // One warning per outage of the limiter's store (each failure is logged at debug).
    expect(warnings).toEqual([expect.stringMatching(/^the rate limiter's store failed on consume for tool "search" \(connection is closed\); calls are made without the shared quota/)]);
  });
});

describe("single-flight", () => {
  it("runs 10 concurrent identical calls once, and different scopes apart", async () => {
    jest.useFakeTimers();
    const calls: string[] = [];
    const slow = new DynamicTool({
      name: "lookup",
      description: "lookup",
      func: async (input, _runManager, config) => {
        calls.push(`${String(config?.metadata?.user)}:${input}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return `value of ${input}`;
      },
    });
    const events: ReinsEvent[] = [];
    const [wrapped] = new ToolExecutor({
      onEvent: (event) => events.push(event),
      policies: { lookup: { cache: { ttlMs: 60_000, scope: (context) => context.metadata?.user as string } } },
    }).wrap([slow]);
    const { value: answers } = await settleWithFakeTimers(Promise.all(Array.from({ length: 10 }, () => wrapped.invoke("k", { metadata: { user: "alice" } }))));
    expect(new Set(answers)).toEqual(new Set(["value of k"]));
    expect(calls).toEqual(["alice:k"]);
    expect(callEvents(events).map((event) => event.outcome).sort()).toEqual(["success", ...Array(9).fill("cached")].sort());
    await settleWithFakeTimers(Promise.all([wrapped.invoke("k", { metadata: { user: "bob" } }), wrapped.invoke("k", { metadata: { user: "carol" } })]));
    expect(calls.sort()).toEqual(["alice:k", "bob:k", "carol:k"]);
  });

  it("shares a failure with the calls that joined it, and runs again afterwards", async () => {
    jest.useFakeTimers();
    let calls = 0;
    const failing = new DynamicTool({
      name: "lookup",
      description: "lookup",
      func: async () => {
        calls += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (calls === 1) throw new Error("boom");
        return "ok";
      },
    });
    const [wrapped] = new ToolExecutor({ policies: { lookup: { retry: false, cache: { ttlMs: 60_000, scope: "global" } } } }).wrap([failing]);
    const { value: answers } = await settleWithFakeTimers(Promise.all([wrapped.invoke("k"), wrapped.invoke("k")]));
    expect(answers.every((answer) => /failed: boom/.test(String(answer)))).toBe(true);
    expect(calls).toBe(1);
    expect((await settleWithFakeTimers(wrapped.invoke("k"))).value).toBe("ok");
    expect(calls).toBe(2);
  });

  it("does not share a run its own caller cancelled: the call that joined it runs its own", async () => {
    jest.useFakeTimers();
    let calls = 0;
    let leaderStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (leaderStarted = resolve));
    const slow = new DynamicTool({
      name: "lookup",
      description: "lookup",
      func: async (_input, _runManager, config) => {
        calls += 1;
        if (calls === 1) leaderStarted();
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 50);
          config?.signal?.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(new Error("aborted"));
          });
        });
        return "ok";
      },
    });
    const [wrapped] = new ToolExecutor({ policies: { lookup: { retry: false, cache: { ttlMs: 60_000, scope: "global" } } } }).wrap([slow]);
    const leader = new AbortController();
    const first = wrapped.invoke("k", { signal: leader.signal }).catch((error: unknown) => error);
    const second = wrapped.invoke("k");
    // The leader's caller cancels once the leader's run has started (the other call has joined it by then).
    void started.then(() => leader.abort());
    const { value: [, answer] } = await settleWithFakeTimers(Promise.all([first, second]));
    expect(answer).toBe("ok");
    expect(calls).toBe(2);
  });

  it("uses the store's claim to wait for another process's entry, and releases its own lease", async () => {
    const released: string[] = [];
    let calls = 0;
    const slotOf = (toolInput: string) => cacheSlotOf({ ttlMs: 60_000, scope: "global", maxEntries: 100 } as never, { toolName: "lookup", toolInput, runId: undefined, sourceText: undefined } as never) as { key: string; keyCheck: string };
    const first = slotOf("first");
    const entries = new Map<string, CachedToolResult>();
    const store: ToolResultStore = {
      get: (key) => entries.get(key),
      set: (key, entry) => void entries.set(key, entry),
      // The first claim is "another process held the lease and stored this"; later ones take the lease.
      claim: async (key) => (key === first.key ? { value: "from another process", storedAtMs: Date.now(), keyCheck: first.keyCheck } : undefined),
      release: (key) => void released.push(key),
    };
    const counting = new DynamicTool({ name: "lookup", description: "lookup", func: async () => String((calls += 1)) });
    const [wrapped] = new ToolExecutor({ policies: { lookup: { cache: { ttlMs: 60_000, scope: "global", store } } } }).wrap([counting]);
    expect(await wrapped.invoke("first")).toBe("from another process");
    expect(calls).toBe(0);
    expect(await wrapped.invoke("second")).toBe("1");
    expect(released).toEqual([slotOf("second").key]);
  });
});
