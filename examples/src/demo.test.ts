import { Registry } from "prom-client";
import { DEMO_SCENARIOS } from "./demo-scenarios";
import { runDemo, serveMetrics } from "./demo-runner";

describe("runDemo", () => {
  describe("against the replay server with every scenario", () => {
    let transcript = "";
    let report: Awaited<ReturnType<typeof runDemo>>;

    beforeAll(async () => {
      report = await runDemo({ write: (text) => void (transcript += text), registry: new Registry() });
    }, 120_000);

    it.each(DEMO_SCENARIOS.map((scenario) => [scenario.id]))("reaches the expected outcome in %s", (id) => {
      const result = report.results.find((candidate) => candidate.id === id);
      expect(result?.outcome.error).toBeUndefined();
      expect(result?.failures).toEqual([]);
    });

    it("uses every scripted reply of the scenarios that end with a final answer", () => {
      for (const result of report.results) {
        if (result.outcome.stopReason === "final_answer") expect({ id: result.id, unused: result.unusedReplies }).toEqual({ id: result.id, unused: 0 });
      }
    });

    it("prints the steps, each final answer and a summary line per scenario", () => {
      expect(transcript).toContain("**Action Input:** Japan");
      expect(transcript).toContain("Observation: 1028");
      expect(transcript).toContain("Final Answer: The capital of Japan is Tokyo.");
      for (const scenario of DEMO_SCENARIOS) expect(transcript).toMatch(new RegExp(`^✓ ${scenario.id} `, "m"));
      expect(transcript).toContain(`${DEMO_SCENARIOS.length}/${DEMO_SCENARIOS.length} scenarios reached their expected outcome.`);
    });

    it("stops a repeat before its third call runs: no call is refused, two tool calls ran", () => {
      const repeat = report.results.find((candidate) => candidate.id === "repeat-loop");
      expect(repeat?.outcome.refusedCalls).toBe(0);
      expect(transcript).toMatch(/^✓ repeat-loop +stopReason=repeat \(2 tool calls, /m);
      // maxSteps: 3 lets the third step's tool run; the stop ends the run at the next planning.
      const budget = report.results.find((candidate) => candidate.id === "step-budget");
      expect(budget?.outcome.refusedCalls).toBe(0);
      expect(transcript).toMatch(/^✓ step-budget +stopReason=max_steps \(3 tool calls, 3 model calls, /m);
      expect(transcript).toMatch(/^✓ markdown-labels +stopReason=final_answer \(1 tool call, 2 model calls, /m);
    });

    it("ends with the Prometheus exposition of the whole run", () => {
      expect(report.passed).toBe(true);
      expect(transcript).toContain("# TYPE react_agent_runs_total counter");
      expect(report.exposition).toMatch(new RegExp(`react_agent_runs_total\\{status="success"\\} \\d+`));
      expect(report.exposition).toMatch(/react_agent_stops_total\{reason="repeat"\} 1/);
      expect(report.exposition).toMatch(/react_agent_stops_total\{reason="cycle"\} 1/);
      expect(report.exposition).toMatch(/react_agent_tool_calls_total\{tool="parcel_status",outcome="fallback"\} 3/);
      expect(report.exposition).toMatch(/react_agent_tool_retries_total\{tool="weather_forecast"\} 2/);
    });
  });

  describe("through AgentExecutor.stream() with every scenario", () => {
    let report: Awaited<ReturnType<typeof runDemo>>;

    beforeAll(async () => {
      report = await runDemo({ write: () => undefined, registry: new Registry(), executorPath: "stream" });
    }, 120_000);

    it.each(DEMO_SCENARIOS.map((scenario) => [scenario.id]))("reaches the expected outcome in %s", (id) => {
      const result = report.results.find((candidate) => candidate.id === id);
      expect(result?.outcome.error).toBeUndefined();
      expect(result?.failures).toEqual([]);
    });
  });
});

describe("serveMetrics", () => {
  describe("when scraped", () => {
    it("serves the registry on 127.0.0.1 /metrics and 404 elsewhere", async () => {
      const registry = new Registry();
      registry.setDefaultLabels({});
      const { server, url } = await serveMetrics(registry);
      try {
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
        const response = await fetch(url);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toContain("text/plain");
        expect((await fetch(url.replace("/metrics", "/other"))).status).toBe(404);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
      }
    });
  });
});
