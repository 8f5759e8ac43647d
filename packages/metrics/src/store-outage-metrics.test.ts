import { Registry } from "prom-client";
import { createAgentMetrics } from "./index";

describe("createAgentMetrics: store_outage", () => {
  it("counts each outage in store_outages_total{store} and holds store_down{store} at 1 until the store works again", async () => {
    const registry = new Registry();
    const metrics = createAgentMetrics({ registry });
    metrics.record({ type: "store_outage", store: "circuit_store", status: "down", toolName: "search", operation: "acquire", error: new Error("ECONNREFUSED") });
    let text = await registry.metrics();
    expect(text).toContain('react_agent_store_outages_total{store="circuit_store"} 1');
    expect(text).toContain('react_agent_store_down{store="circuit_store"} 1');
    expect(text).toContain('react_agent_store_outages_total{store="result_store"} 0');
    metrics.record({ type: "store_outage", store: "circuit_store", status: "recovered", toolName: "search", downMs: 5000, failedOperations: 116 });
    text = await registry.metrics();
    expect(text).toContain('react_agent_store_outages_total{store="circuit_store"} 1');
    expect(text).toContain('react_agent_store_down{store="circuit_store"} 0');
  });
});
