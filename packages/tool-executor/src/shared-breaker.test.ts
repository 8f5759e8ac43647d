import { CircuitBreakerPolicy, ConsecutiveBreaker, circuitBreaker, handleAll } from "cockatiel";
import type { CircuitPermit, CircuitStore } from "./circuit-store";
import { SharedBreaker } from "./shared-breaker";
import { resolveToolExecutorOptions } from "./tool-executor-options";

/** A store that always grants `permit` and records what it is told. */
function fakeStore(permit: CircuitPermit): CircuitStore & { recorded: string[] } {
  const recorded: string[] = [];
  return {
    recorded,
    acquire: async () => permit,
    record: async (_circuit, _permit, outcome) => (recorded.push(outcome), outcome === "failure" ? "open" : "closed"),
  };
}

function breakerOn(store: CircuitStore): SharedBreaker {
  const local: CircuitBreakerPolicy = circuitBreaker(handleAll, { halfOpenAfter: 1000, breaker: new ConsecutiveBreaker(3) });
  return new SharedBreaker("lookup", { failureThreshold: 3, halfOpenAfterMs: 1000 }, store, local, { emit: () => undefined, log: () => undefined, lastRunIdOfTool: new Map(), options: resolveToolExecutorOptions({ logger: {} }) });
}

const status = (code: number) => Object.assign(new Error(`HTTP ${code}`), { status: code });
const run = (breaker: SharedBreaker, fails: Error | undefined) =>
  breaker.execute(async () => {
    if (fails !== undefined) throw fails;
    return "ok";
  }, new AbortController().signal, undefined, (error) => error);

describe("SharedBreaker", () => {
  it("reports nothing for a half-open probe that failed in a way that does not count (the circuit is not closed by it)", async () => {
    const store = fakeStore({ state: "half_open", probe: "p1" });
    const breaker = breakerOn(store);
    await expect(run(breaker, status(429))).rejects.toThrow("HTTP 429");
    await expect(run(breaker, status(404))).rejects.toThrow("HTTP 404");
    expect(store.recorded).toEqual([]);
  });

  it("reports a probe's success and its counted failure", async () => {
    const store = fakeStore({ state: "half_open", probe: "p1" });
    const breaker = breakerOn(store);
    await expect(run(breaker, undefined)).resolves.toBe("ok");
    await expect(run(breaker, status(503))).rejects.toThrow("HTTP 503");
    expect(store.recorded).toEqual(["success", "failure"]);
  });

  it("counts an uncounted failure of a closed-circuit call as a success, as cockatiel's consecutive breaker does", async () => {
    const store = fakeStore({ state: "closed" });
    await expect(run(breakerOn(store), status(404))).rejects.toThrow("HTTP 404");
    expect(store.recorded).toEqual(["success"]);
  });
});
