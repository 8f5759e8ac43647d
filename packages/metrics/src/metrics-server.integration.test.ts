import { Registry } from "prom-client";
import { MetricsOptionsError, createAgentMetrics, startMetricsServer } from "./index";

describe("startMetricsServer", () => {
  describe("on a free loopback port", () => {
    it("serves the exposition at /metrics with the registry's content type and 404 elsewhere", async () => {
      const metrics = createAgentMetrics({ registry: new Registry() });
      metrics.record({ type: "run_start", runId: "r" });
      const server = await startMetricsServer({ registry: metrics.registry });
      try {
        expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
        const response = await fetch(server.url);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe(metrics.registry.contentType);
        expect(await response.text()).toContain("react_agent_runs_in_progress 1");
        const missing = await fetch(server.url.replace("/metrics", "/other"));
        expect(missing.status).toBe(404);
        await missing.text();
      } finally {
        await server.close();
      }
    });
  });

  describe("with invalid options", () => {
    it("rejects a bad port naming the field", async () => {
      await expect(startMetricsServer({ registry: new Registry(), port: 70000 })).rejects.toMatchObject({ field: "port" });
      await expect(startMetricsServer({ registry: new Registry(), path: "metrics" })).rejects.toBeInstanceOf(MetricsOptionsError);
    });

    it.each([
      [{ path: 5 }, "path"],
      [{ host: 127 }, "host"],
      [{ host: "" }, "host"],
    ])("rejects %j with MetricsOptionsError naming the field", async (options, field) => {
      const attempt = startMetricsServer({ registry: new Registry(), ...(options as object) });
      await expect(attempt).rejects.toBeInstanceOf(MetricsOptionsError);
      await expect(attempt).rejects.toMatchObject({ field });
    });
  });
});
