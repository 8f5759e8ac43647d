import { Registry } from "prom-client";
import { DEMO_SCENARIOS } from "./demo-scenarios";
import { runDemo, serveMetrics } from "./demo-runner";
import { scrapeInstructions, startBackgroundLoad } from "./demo-serve";

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

    it("stops a repeat once the same call got the same result 3 times, before a 4th runs: no call is refused, three tool calls ran", () => {
      const repeat = report.results.find((candidate) => candidate.id === "repeat-loop");
      expect(repeat?.outcome.refusedCalls).toBe(0);
      expect(transcript).toMatch(/^✓ repeat-loop +stopReason=repeat \(3 tool calls, /m);
      // maxSteps: 3 lets the third step's tool run; the stop ends the run at the next planning.
      const budget = report.results.find((candidate) => candidate.id === "step-budget");
      expect(budget?.outcome.refusedCalls).toBe(0);
      expect(transcript).toMatch(/^✓ step-budget +stopReason=max_steps \(3 tool calls, 3 model calls, /m);
      expect(transcript).toMatch(/^✓ markdown-labels +stopReason=final_answer \(1 tool call, 2 model calls, /m);
    });

    it("ends with the summary and a short table of the main counters, without the exposition", () => {
      expect(transcript).not.toContain("# TYPE react_agent_");
      const summary = transcript.slice(transcript.lastIndexOf("━━ Summary"));
      expect(summary).toMatch(/^  react_agent_runs_total +success \d+/m);
      expect(summary).toMatch(/^  react_agent_stops_total +final_answer \d+, .*repeat 1/m);
      expect(summary).toMatch(/^  react_agent_tool_retries_total +[1-9]\d*$/m);
      expect(summary.trimEnd().split("\n").pop()).toBe(`${DEMO_SCENARIOS.length}/${DEMO_SCENARIOS.length} scenarios reached their expected outcome.`);
      expect(summary.split("\n").length).toBeLessThan(DEMO_SCENARIOS.length + 16);
    });

    it("returns the Prometheus exposition of the whole run", () => {
      expect(report.passed).toBe(true);
      expect(report.exposition).toMatch(new RegExp(`react_agent_runs_total\\{status="success"\\} \\d+`));
      expect(report.exposition).toMatch(/react_agent_stops_total\{reason="repeat"\} 1/);
      expect(report.exposition).toMatch(/react_agent_stops_total\{reason="cycle"\} 1/);
      expect(report.exposition).toMatch(/react_agent_tool_calls_total\{tool="parcel_status",outcome="fallback"\} 3/);
      expect(report.exposition).toMatch(/react_agent_tool_retries_total\{tool="weather_forecast"\} 2/);
    });
  });

  describe("through AgentExecutor.stream() with every scenario and --metrics", () => {
    let report: Awaited<ReturnType<typeof runDemo>>;
    let transcript = "";

    beforeAll(async () => {
      report = await runDemo({ write: (text) => void (transcript += text), registry: new Registry(), executorPath: "stream", printExposition: true });
    }, 120_000);

    it("prints the whole exposition before the summary, so the summary stays last", () => {
      const exposition = transcript.indexOf("# TYPE react_agent_runs_total counter");
      expect(exposition).toBeGreaterThan(0);
      expect(transcript.lastIndexOf("━━ Summary")).toBeGreaterThan(exposition);
    });

    it.each(DEMO_SCENARIOS.map((scenario) => [scenario.id]))("reaches the expected outcome in %s", (id) => {
      const result = report.results.find((candidate) => candidate.id === id);
      expect(result?.outcome.error).toBeUndefined();
      expect(result?.failures).toEqual([]);
    });
  });
});

describe("startBackgroundLoad", () => {
  it("runs bounded rounds of the scenarios into the demo's registry, one at a time, and stops", async () => {
    const registry = new Registry();
    const first = await runDemo({ write: () => undefined, registry, scenarios: DEMO_SCENARIOS.slice(0, 2) });
    const runsBefore = (await first.metrics.runsTotal.get()).values.reduce((sum, entry) => sum + entry.value, 0);
    const load = startBackgroundLoad({ metrics: first.metrics, scenarios: DEMO_SCENARIOS.slice(0, 2), pauseMs: 0, maxRounds: 2 });
    await load.done;
    expect(load.rounds).toBe(2);
    const runsAfter = (await first.metrics.runsTotal.get()).values.reduce((sum, entry) => sum + entry.value, 0);
    expect(runsAfter - runsBefore).toBe(4);
  }, 60_000);

  it("stops between rounds when asked, without waiting out the pause", async () => {
    const report = await runDemo({ write: () => undefined, registry: new Registry(), scenarios: DEMO_SCENARIOS.slice(0, 1) });
    const load = startBackgroundLoad({ metrics: report.metrics, scenarios: DEMO_SCENARIOS.slice(0, 1), pauseMs: 60_000 });
    while (load.rounds === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await load.stop();
    expect(load.rounds).toBe(1);
  }, 60_000);
});

describe("scrapeInstructions", () => {
  it("gives the URL and a scrape config targeting the served host and port", () => {
    const text = scrapeInstructions("http://127.0.0.1:40123/metrics");
    expect(text).toContain("http://127.0.0.1:40123/metrics");
    expect(text).toContain('- targets: ["127.0.0.1:40123"]');
    expect(text).toContain("job_name: reins-demo");
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
