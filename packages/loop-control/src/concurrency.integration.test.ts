import { Registry } from "prom-client";
import type { ReinsEvent } from "@reins/core";
import { createAgentMetrics } from "@reins/metrics";
import { LoopControlHandler } from "./index";
import { RunDriver, type DriverStep } from "./__fixtures__/run-driver";

/** Deterministic PRNG (mulberry32) so the interleaving is the same on every run of the test. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

type Scenario = "repeat" | "cycle" | "clean" | "budget";

/** Every run uses the same tool inputs, so any state shared between runs would show up. */
const SCRIPTS: Readonly<Record<Scenario, readonly DriverStep[]>> = {
  repeat: Array.from({ length: 4 }, () => ({ tool: "search", toolInput: "weather", observation: "22 °C" })),
  cycle: ["ls", "cat", "ls", "cat", "ls", "cat"].map((tool, index) => ({
    tool,
    toolInput: ".",
    observation: "a.txt",
    thought: `Step ${index}: ${tool === "ls" ? "list the folder" : "read the file content now"}`,
  })),
  clean: [
    { tool: "search", toolInput: "weather", observation: "22 °C", thought: "Find the weather first." },
    { tool: "calculator", toolInput: "22 * 9 / 5 + 32", observation: "71.6", thought: "Convert it to Fahrenheit." },
  ],
  budget: Array.from({ length: 8 }, (_, index) => ({
    tool: index % 2 === 0 ? "search" : "calculator",
    toolInput: `page ${index}`,
    observation: `result ${index}`,
    thought: `Look at result page number ${index} of the listing.`,
  })),
};

/** What each scenario must decide: loop detections in order, then the run's end. */
const EXPECTED: Readonly<Record<Scenario, { detections: string[]; end: string; steps: number }>> = {
  // The same call with the same result: warned at the 3rd call, stopped at the 4th (3 ran).
  repeat: { detections: ["repeat:warn", "repeat:stop"], end: "stopped:repeat", steps: 4 },
  cycle: { detections: ["cycle:warn", "cycle:warn", "cycle:stop"], end: "stopped:cycle", steps: 6 },
  clean: { detections: [], end: "success:final_answer", steps: 2 },
  budget: { detections: [], end: "stopped:max_steps", steps: 6 },
};

const SCENARIOS: readonly Scenario[] = ["repeat", "cycle", "clean", "budget"];
const RUNS = 1000;

describe("LoopControlHandler", () => {
  describe("with 1 000 concurrent runs and interleaved events", () => {
    it("decides each run from its own sequence, totals metrics over runs and keeps no state afterwards", async () => {
      const metrics = createAgentMetrics({ registry: new Registry(), toolNames: ["search", "calculator", "ls", "cat"] });
      const eventsByRun = new Map<string, ReinsEvent[]>();
      const order: string[] = [];
      const handler = new LoopControlHandler({
        maxSteps: 6,
        metrics,
        onEvent: (event) => {
          const runId = "runId" in event && typeof event.runId === "string" ? event.runId : "none";
          const list = eventsByRun.get(runId) ?? [];
          list.push(event);
          eventsByRun.set(runId, list);
          order.push(runId);
        },
      });
      const next = random(42);
      const pause = async (): Promise<void> => {
        const yields = Math.floor(next() * 4);
        for (let index = 0; index < yields; index += 1) await Promise.resolve();
      };
      const stepsTaken = new Map<string, number>();

      await Promise.all(
        Array.from({ length: RUNS }, async (_, index) => {
          const scenario = SCENARIOS[index % SCENARIOS.length];
          const runId = `run-${index}`;
          const driver = new RunDriver(handler, runId, pause);
          await driver.start();
          let taken = 0;
          for (const step of SCRIPTS[scenario]) {
            const stopped = await driver.step(step);
            if (stopped !== undefined) break;
            taken += 1;
          }
          stepsTaken.set(runId, taken);
          if (scenario === "clean") await driver.finish("71.6 °F");
        }),
      );

      // The runs really interleaved (one callback emits several events in a row, so not every pair switches).
      const switches = order.filter((runId, index) => index > 0 && runId !== order[index - 1]).length;
      expect(switches).toBeGreaterThan(order.length / 4);

      const mismatches: string[] = [];
      for (let index = 0; index < RUNS; index += 1) {
        const runId = `run-${index}`;
        const expected = EXPECTED[SCENARIOS[index % SCENARIOS.length]];
        const events = eventsByRun.get(runId) ?? [];
        const detections = events.flatMap((event) => (event.type === "loop_detection" ? [`${event.kind}:${event.level}`] : []));
        const end = events.filter((event) => event.type === "run_end").map((event) => (event.type === "run_end" ? `${event.status}:${event.stopReason}` : ""));
        if (JSON.stringify(detections) !== JSON.stringify(expected.detections) || JSON.stringify(end) !== JSON.stringify([expected.end])) {
          mismatches.push(`${runId}: ${detections.join(",")} → ${end.join(",")}`);
        }
        const actions = events.filter((event) => event.type === "step" && event.step === "action").length;
        if (actions !== expected.steps) mismatches.push(`${runId}: ${actions} actions, expected ${expected.steps}`);
      }
      expect(mismatches).toEqual([]);

      // Metric totals equal the sum over runs of each run's own events.
      const all = [...eventsByRun.values()].flat();
      const count = (predicate: (event: ReinsEvent) => boolean): number => all.filter(predicate).length;
      const value = async (name: string, labels: Record<string, string>): Promise<number> => {
        const metric = await metrics.registry.getSingleMetric(name)?.get();
        const sample = metric?.values.find((candidate) =>
          Object.entries(labels).every(([key, labelValue]) => candidate.labels[key] === labelValue),
        );
        return sample?.value ?? 0;
      };
      const perScenario = RUNS / SCENARIOS.length;
      expect(await value("react_agent_runs_total", { status: "stopped" })).toBe(count((event) => event.type === "run_end" && event.status === "stopped"));
      expect(await value("react_agent_runs_total", { status: "stopped" })).toBe(3 * perScenario);
      expect(await value("react_agent_runs_total", { status: "success" })).toBe(perScenario);
      for (const reason of ["repeat", "cycle", "max_steps", "final_answer"]) {
        expect(await value("react_agent_stops_total", { reason })).toBe(perScenario);
      }
      for (const [kind, level] of [["repeat", "warn"], ["repeat", "stop"], ["cycle", "warn"], ["cycle", "stop"]]) {
        expect(await value("react_agent_loop_detections_total", { kind, level })).toBe(
          count((event) => event.type === "loop_detection" && event.kind === kind && event.level === level),
        );
      }
      expect(await value("react_agent_loop_detections_total", { kind: "repeat", level: "warn" })).toBe(perScenario);
      for (const step of ["thought", "action", "observation", "finish"]) {
        expect(await value("react_agent_steps_total", { step })).toBe(count((event) => event.type === "step" && event.step === step));
      }
      expect(await value("react_agent_steps_total", { step: "action" })).toBe(perScenario * (4 + 6 + 2 + 6));
      expect(await value("react_agent_runs_in_progress", {})).toBe(0);

      expect(handler.activeRunCount).toBe(0);
      expect(handler.runContext.size).toBe(0);
      expect(handler.runContext.linkCount).toBe(0);
    }, 60_000);
  });
});
