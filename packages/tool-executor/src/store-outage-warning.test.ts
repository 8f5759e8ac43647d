import { DynamicTool } from "@langchain/core/tools";
import type { ReinsEvent, StoreOutageEvent } from "@reins/core";
import type { CircuitPermit, CircuitStore } from "./circuit-store";
import { ToolExecutor } from "./index";

const REFUSED = "connect ECONNREFUSED 127.0.0.1:6379";

/** A store that fails while `down` is true. */
function flakyStore() {
  const entries = new Map<string, { value: unknown; storedAtMs: number }>();
  const state = { down: true };
  return {
    state,
    store: {
      get: async (key: string) => {
        if (state.down) throw new Error(REFUSED);
        return entries.get(key);
      },
      set: async (key: string, entry: { value: unknown; storedAtMs: number }) => {
        if (state.down) throw new Error(REFUSED);
        entries.set(key, entry);
      },
    },
  };
}

/** A shared circuit store that fails while `down` is true. */
function flakyCircuitStore(): { state: { down: boolean }; store: CircuitStore } {
  const state = { down: true };
  const answer = async <T>(value: T): Promise<T> => {
    if (state.down) throw new Error(REFUSED);
    return value;
  };
  return { state, store: { acquire: () => answer<CircuitPermit>({ state: "closed" }), record: () => answer("closed" as const) } };
}

/** A rate-limiter-flexible-like limiter whose store fails while `down` is true (an Error, not a RateLimiterRes). */
function flakyLimiter() {
  const state = { down: true };
  return { state, limiter: { consume: async () => (state.down ? Promise.reject(new Error(REFUSED)) : { remainingPoints: 9, msBeforeNext: 0 }) } };
}

const lookup = () => new DynamicTool({ name: "lookup", description: "Looks up.", func: async (input) => `result for ${input}` });
const outagesOf = (events: readonly ReinsEvent[]) => events.filter((event): event is StoreOutageEvent => event.type === "store_outage");

describe("a shared store outage with no logger", () => {
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(console, "warn").mockImplementation(() => {});
  });
  afterEach(() => warn.mockRestore());

  it("warns on the console once per outage and once when the store works again, with a store_outage event for each", async () => {
    const { store, state } = flakyStore();
    const events: ReinsEvent[] = [];
    const [wrapped] = new ToolExecutor({ onEvent: (event) => events.push(event), defaults: { cache: { ttlMs: 60_000, scope: "global", store } } }).wrap([lookup()]);
    expect(await wrapped.invoke("a")).toBe("result for a"); // the call still runs, without the cache
    await wrapped.invoke("b");
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/cache store failed on get for tool "lookup" \(connect ECONNREFUSED.*pass \{ logger \}/);
    state.down = false;
    await wrapped.invoke("c");
    expect(warn).toHaveBeenCalledTimes(2);
    expect(String(warn.mock.calls[1][0])).toMatch(/cache store works again \(tool "lookup"\), after [\d.]+ s and 4 failed operations/);
    state.down = true;
    await wrapped.invoke("d");
    expect(warn).toHaveBeenCalledTimes(3);
    expect(outagesOf(events).map((event) => [event.store, event.status, event.operation, event.failedOperations])).toEqual([
      ["result_store", "down", "get", undefined],
      ["result_store", "recovered", undefined, 4],
      ["result_store", "down", "get", undefined],
    ]);
    // Every failed operation is still counted (tool_cache_errors_total).
    expect(events.filter((event) => event.type === "tool_cache_error")).toHaveLength(6);
  });

  it("warns once for a shared circuit store outage of many calls (not once per failed operation), then once when it works again", async () => {
    const { store, state } = flakyCircuitStore();
    const events: ReinsEvent[] = [];
    const [wrapped] = new ToolExecutor({ onEvent: (event) => events.push(event), defaults: { circuitBreaker: { failureThreshold: 5, halfOpenAfterMs: 1000, store } } }).wrap([lookup()]);
    for (const input of ["a", "b", "c", "d", "e"]) expect(await wrapped.invoke(input)).toBe(`result for ${input}`);
    expect(events.filter((event) => event.type === "circuit_store_error")).toHaveLength(5);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/shared circuit store failed on acquire for tool "lookup".*local breaker decides/);
    state.down = false;
    await wrapped.invoke("f");
    expect(warn).toHaveBeenCalledTimes(2);
    expect(outagesOf(events).map((event) => [event.store, event.status])).toEqual([
      ["circuit_store", "down"],
      ["circuit_store", "recovered"],
    ]);
  });

  it("warns once for a rate limiter whose store is down (the calls go on without the quota)", async () => {
    const { limiter, state } = flakyLimiter();
    const events: ReinsEvent[] = [];
    const [wrapped] = new ToolExecutor({ onEvent: (event) => events.push(event), policies: { lookup: { rateLimit: { limiter } } } }).wrap([lookup()]);
    await wrapped.invoke("a");
    await wrapped.invoke("b");
    state.down = false;
    await wrapped.invoke("c");
    expect(warn).toHaveBeenCalledTimes(2);
    expect(String(warn.mock.calls[0][0])).toMatch(/rate limiter's store failed on consume for tool "lookup"/);
    expect(outagesOf(events).map((event) => [event.store, event.status, event.failedOperations])).toEqual([
      ["rate_limiter", "down", undefined],
      ["rate_limiter", "recovered", 2],
    ]);
  });
});

describe("a shared store outage with a logger", () => {
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(console, "warn").mockImplementation(() => {});
  });
  afterEach(() => warn.mockRestore());

  it("stays off the console; the logger gets one warn per outage, one info when it ends, each failure at debug", async () => {
    const { store, state } = flakyStore();
    const lines: Array<[string, string]> = [];
    const logger = { warn: (message: string) => lines.push(["warn", message]), info: (message: string) => lines.push(["info", message]), debug: (message: string) => lines.push(["debug", message]) };
    const [wrapped] = new ToolExecutor({ logger, defaults: { cache: { ttlMs: 60_000, scope: "global", store } } }).wrap([lookup()]);
    await wrapped.invoke("a");
    await wrapped.invoke("b");
    state.down = false;
    await wrapped.invoke("c");
    expect(warn).not.toHaveBeenCalled();
    expect(lines.filter(([level]) => level === "warn").map(([, message]) => message)).toEqual([expect.stringMatching(/cache store failed on get for tool "lookup"/)]);
    expect(lines.filter(([level]) => level === "info").map(([, message]) => message)).toEqual([expect.stringMatching(/cache store works again/)]);
    expect(lines.filter(([level, message]) => level === "debug" && /Cache store failed on get/.test(message))).toHaveLength(2);
  });

  it("is silenced by logger: {}", async () => {
    const { store } = flakyStore();
    const [wrapped] = new ToolExecutor({ logger: {}, defaults: { cache: { ttlMs: 60_000, scope: "global", store } } }).wrap([lookup()]);
    await wrapped.invoke("a");
    expect(warn).not.toHaveBeenCalled();
  });
});
