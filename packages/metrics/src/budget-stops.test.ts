import { Registry } from "prom-client";
import { createAgentMetrics } from "./index";

describe("budget_stops_total", () => {
  describe("at run_end", () => {
    it("counts budget stops by scope (the run's own when unset) and reason; other stops are not counted", async () => {
      const registry = new Registry();
      const metrics = createAgentMetrics({ registry });
      for (const [runId, stopReason, scope] of [
        ["a", "cost_budget", "user"],
        ["b", "max_steps", "thread"],
        ["c", "token_budget", undefined],
        ["d", "final_answer", undefined],
        ["e", "repeat", undefined],
      ] as const) {
        metrics.record({ type: "run_start", runId });
        metrics.record({ type: "run_end", runId, status: stopReason === "final_answer" ? "success" : "stopped", stopReason, durationMs: 1, ...(scope !== undefined ? { scope } : {}) });
      }
      const metric = (await registry.getMetricsAsJSON()).find((candidate) => candidate.name === "react_agent_budget_stops_total");
      const values = (metric?.values ?? []).map((value) => [value.labels.scope, value.labels.reason, value.value]);
      expect(values).toEqual(
        expect.arrayContaining([
          ["user", "cost_budget", 1],
          ["thread", "max_steps", 1],
          ["run", "token_budget", 1],
        ]),
      );
      expect(values.filter(([, , count]) => (count as number) > 0)).toHaveLength(3);
    });
  });
});
