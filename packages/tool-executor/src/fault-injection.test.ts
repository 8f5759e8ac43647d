import { DynamicTool, tool } from "@langchain/core/tools";
import type { ReinsEvent, ToolCallEvent, ToolCallOutcome } from "@reins/core";
import { z } from "zod";
import { never, seededRandom, settleWithFakeTimers } from "./__fixtures__/fake-time";
import { ToolExecutor } from "./index";

type Fault = (random: () => number, signal: AbortSignal | undefined) => unknown;

/** What a faulty tool may do on one call; chosen with a seeded PRNG. */
const FAULTS: ReadonlyArray<readonly [string, Fault]> = [
  ["hang", () => never()],
  ["slow beyond the timeout", () => new Promise((resolve) => setTimeout(() => resolve("late"), 5_000))],
  ["slow within the timeout", (random) => new Promise((resolve) => setTimeout(() => resolve("ok after a while"), Math.floor(random() * 500)))],
  ["throw a string", () => Promise.reject("plain string failure")],
  ["throw an object", () => Promise.reject({ weird: true })],
  ["throw undefined", () => Promise.reject(undefined)],
  ["throw a 503", () => Promise.reject(Object.assign(new Error("Service Unavailable"), { status: 503 }))],
  ["throw ECONNRESET", () => Promise.reject(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }))],
  ["return a ghost failure body", () => '{"code":500,"msg":"system busy"}'],
  ["return an HTTP 502 envelope", () => JSON.stringify({ status: 502, body: "Bad Gateway" })],
  ["return an unparseable JSON body", () => ({ status: 200, headers: { "content-type": "application/json" }, body: '{"truncated": ' })],
  ["return undefined", () => undefined],
  ["return a good result", (random) => `result ${Math.floor(random() * 1000)}`],
];

describe("ToolExecutor", () => {
  describe("under fault injection (1 000 calls over randomly hanging, throwing and ghost-failing tools)", () => {
    let unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };

    beforeEach(() => {
      unhandled = [];
      process.on("unhandledRejection", onUnhandled);
      jest.useFakeTimers();
    });

    afterEach(() => {
      process.off("unhandledRejection", onUnhandled);
      jest.useRealTimers();
    });

    it("settles every call with a readable observation, leaks no rejection and leaves no timer running", async () => {
      const random = seededRandom(20_261_130);
      const faultCounts = new Map<string, number>();
      const makeFaulty = (name: string): DynamicTool =>
        new DynamicTool({
          name,
          description: `${name} (faulty)`,
          func: async (_input, _runManager, config) => {
            const [label, fault] = FAULTS[Math.floor(random() * FAULTS.length)];
            faultCounts.set(label, (faultCounts.get(label) ?? 0) + 1);
            return (await fault(random, config?.signal)) as string;
          },
        });
      const structured = tool(
        async (_input: { id: number }) => {
          const [label, fault] = FAULTS[Math.floor(random() * FAULTS.length)];
          faultCounts.set(label, (faultCounts.get(label) ?? 0) + 1);
          return fault(random, undefined) as Promise<string>;
        },
        { name: "record_lookup", description: "Looks up a record by id.", schema: z.object({ id: z.number() }) },
      );
      const events: ReinsEvent[] = [];
      const executor = new ToolExecutor({
        onEvent: (event) => events.push(event),
        defaults: { timeoutMs: 1_000, retry: { maxAttempts: 2, initialDelayMs: 50, maxDelayMs: 200 }, circuitBreaker: { failureThreshold: 25, halfOpenAfterMs: 2_000 } },
        policies: {
          search: { cache: { ttlMs: 500 } },
          weather: { fallback: "Weather service degraded: using the historical average of 17 °C." },
          render: { bulkhead: { maxConcurrent: 5, maxQueued: 10 } },
          pay: { sideEffects: true },
        },
      });
      const tools = executor.wrap([makeFaulty("search"), makeFaulty("weather"), makeFaulty("render"), makeFaulty("pay"), structured]);
      const inputs = (index: number): unknown => {
        const target = index % tools.length;
        if (tools[target].name === "record_lookup") return index % 7 === 0 ? "not json" : { id: index };
        if (tools[target].name === "pay") return index % 3 === 0 ? `CONFIRM: ${index} EUR` : `${index} EUR`;
        return `query ${index % 13}`;
      };

      const observations: unknown[] = [];
      for (let batch = 0; batch < 10; batch += 1) {
        const calls = Array.from({ length: 100 }, (_, offset) => {
          const index = batch * 100 + offset;
          return tools[index % tools.length].invoke(inputs(index) as never);
        });
        const { value } = await settleWithFakeTimers(Promise.all(calls), { stepMs: 50 });
        observations.push(...value);
      }
      await jest.advanceTimersByTimeAsync(10_000);

      expect(observations).toHaveLength(1000);
      for (const observation of observations) {
        expect(typeof observation).toBe("string");
        expect((observation as string).trim()).not.toBe("");
        expect(observation).not.toMatch(/^undefined$|\[object Object\]|\n\s+at /);
      }
      const toolCalls = events.filter((event): event is ToolCallEvent => event.type === "tool_call");
      expect(toolCalls).toHaveLength(1000);
      const outcomes = new Set<ToolCallOutcome>(toolCalls.map((event) => event.outcome));
      for (const expected of ["success", "error", "timeout", "fallback", "dry_run", "invalid_input"] as const) expect(outcomes).toContain(expected);
      expect(faultCounts.get("hang")).toBeGreaterThan(10);
      expect(unhandled).toEqual([]);
      expect(jest.getTimerCount()).toBe(0);
      // A hang guard, not a speed check: 1 000 calls take ~1 s alone and over 5 s on a loaded 2-core machine.
    }, 60_000);
  });
});
