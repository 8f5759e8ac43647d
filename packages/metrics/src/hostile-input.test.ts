import { Registry } from "prom-client";
import type { ReinsEvent } from "@reins/core";
import {
  AGENT_METRIC_CATALOG,
  MetricsEventError,
  createAgentMetrics,
  type AgentMetrics,
} from "./index";

describe("createAgentMetrics", () => {
  describe("record() with events of odd shapes", () => {
    let metrics: AgentMetrics;
    beforeEach(() => {
      metrics = createAgentMetrics({ registry: new Registry(), toolNames: ["search"] });
    });

    it.each([[null], [undefined], ["tool_call"], [42], [{}], [{ type: 7 }]])(
      "throws MetricsEventError for %j instead of a TypeError",
      (event) => {
        let thrown: unknown;
        try {
          metrics.record(event as unknown as ReinsEvent);
        } catch (error) {
          thrown = error;
        }
        expect(MetricsEventError.isInstance(thrown)).toBe(true);
        expect((thrown as Error).message).toMatch(/^Cannot record a metrics event: /);
      },
    );

    it("ignores an event type it does not know (a newer @reins/core)", async () => {
      expect(() => metrics.record({ type: "future_event" } as unknown as ReinsEvent)).not.toThrow();
      expect(await metrics.registry.metrics()).not.toContain("future_event");
    });

    it("counts a tool call with a NaN duration but observes no duration", async () => {
      metrics.record({ type: "tool_call", toolName: "search", outcome: "success", durationMs: Number.NaN });
      const tool = await metrics.toolCallsTotal.get();
      const duration = await metrics.toolDurationSeconds.get();
      expect(tool.values.find((sample) => sample.labels.tool === "search")?.value).toBe(1);
      expect(duration.values.filter((sample) => sample.metricName?.endsWith("_count") && sample.labels.tool === "search")).toEqual([]);
    });
  });

  describe("closed label sets", () => {
    it("start at 0 for every value, so rate() and increase() see the first event", async () => {
      const metrics = createAgentMetrics({ registry: new Registry() });
      const text = await metrics.registry.metrics();
      for (const definition of Object.values(AGENT_METRIC_CATALOG)) {
        const entries = Object.entries(definition.labelValues);
        if (entries.length === 0 || entries.length !== definition.labelNames.length) continue;
        const name = `react_agent_${definition.name}${definition.type === "histogram" ? "_count" : ""}`;
        const combos = entries.reduce<Array<Record<string, string>>>(
          (acc, [label, values]) => acc.flatMap((combo) => values.map((value) => ({ ...combo, [label]: value }))),
          [{}],
        );
        for (const combo of combos) {
          const found = text
            .split("\n")
            .some(
              (line) =>
                line.startsWith(`${name}{`) &&
                line.endsWith("} 0") &&
                Object.entries(combo).every(([label, value]) => line.includes(`${label}="${value}"`)),
            );
          expect({ name, combo, found }).toEqual({ name, combo, found: true });
        }
      }
    });
  });

  describe("with two copies of @reins/metrics in one process (CJS and ESM builds)", () => {
    it("returns the first copy's catalog for the same registry and prefix instead of throwing", () => {
      const registry = new Registry();
      const first = createAgentMetrics({ registry });
      let second: AgentMetrics | undefined;
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const copy = require("./create-agent-metrics") as typeof import("./create-agent-metrics");
        expect(copy.createAgentMetrics).not.toBe(createAgentMetrics);
        second = copy.createAgentMetrics({ registry, toolNames: ["search"] });
      });
      expect(second).toBe(first);
      expect(first.toolLabel("search")).toBe("search");
    });
  });
});
