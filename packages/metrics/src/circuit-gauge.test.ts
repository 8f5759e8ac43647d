import { Registry } from "prom-client";
import { createAgentMetrics, MetricsOptionsError } from "./index";

async function gaugeValue(registry: Registry, tool: string): Promise<number | undefined> {
  const metric = registry.getSingleMetric("react_agent_circuit_state");
  const data = await metric?.get();
  return data?.values.find((value) => value.labels.tool === tool)?.value;
}

describe("createAgentMetrics", () => {
  describe("circuit_state gauge of an idle tool", () => {
    it("reads open until the breaker's wait has passed, then half-open, with no further event", async () => {
      let nowMs = 1_000;
      const registry = new Registry();
      const metrics = createAgentMetrics({ registry, toolNames: ["parcel"], now: () => nowMs });
      metrics.record({ type: "circuit_state", toolName: "parcel", state: "open", halfOpenAfterMs: 30_000 });
      expect(await gaugeValue(registry, "parcel")).toBe(2);
      nowMs += 29_999;
      expect(await gaugeValue(registry, "parcel")).toBe(2);
      nowMs += 1;
      expect(await gaugeValue(registry, "parcel")).toBe(1);
      // The exposition a scrape gets says the same.
      expect(await registry.metrics()).toContain('react_agent_circuit_state{tool="parcel"} 1');
    });

    it("follows a later event: a probe that fails opens the circuit again with a new wait", async () => {
      let nowMs = 0;
      const registry = new Registry();
      const metrics = createAgentMetrics({ registry, toolNames: ["parcel"], now: () => nowMs });
      metrics.record({ type: "circuit_state", toolName: "parcel", state: "open", halfOpenAfterMs: 10 });
      nowMs = 10;
      metrics.record({ type: "circuit_state", toolName: "parcel", state: "half_open" });
      metrics.record({ type: "circuit_state", toolName: "parcel", state: "open", halfOpenAfterMs: 10 });
      nowMs = 15;
      expect(await gaugeValue(registry, "parcel")).toBe(2);
      metrics.record({ type: "circuit_state", toolName: "parcel", state: "closed" });
      nowMs = 100;
      expect(await gaugeValue(registry, "parcel")).toBe(0);
    });

    it("stays open when the event gives no wait (a breaker without halfOpenAfterMs)", async () => {
      let nowMs = 0;
      const registry = new Registry();
      const metrics = createAgentMetrics({ registry, toolNames: ["parcel"], now: () => nowMs });
      metrics.record({ type: "circuit_state", toolName: "parcel", state: "open" });
      nowMs = 10_000_000;
      expect(await gaugeValue(registry, "parcel")).toBe(2);
    });
  });

  describe("now option", () => {
    it("rejects a clock that is not a function, naming the field", () => {
      expect(() => createAgentMetrics({ now: 5 as unknown as () => number })).toThrow(MetricsOptionsError);
      try {
        createAgentMetrics({ now: 5 as unknown as () => number });
      } catch (error) {
        expect((error as MetricsOptionsError).field).toBe("now");
      }
    });
  });
});
