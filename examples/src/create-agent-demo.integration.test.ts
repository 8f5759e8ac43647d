/**
 * The demo's `--agent create-agent` mode. LangChain 1.x only (`createAgent` does not exist in
 * langchain 0.3): the compat run skips it with a named reason, and loads none of its modules.
 */
import { Registry } from "prom-client";

const describeLine1 = process.env.REINS_LANGCHAIN_LINE === "0.3" ? describe.skip : describe;

describeLine1("runBothAgentStyles (npm run demo -- --agent create-agent; LangChain 1.x only)", () => {
  let transcript = "";
  let report: Awaited<ReturnType<typeof import("./create-agent-demo").runBothAgentStyles>>;
  let scenarioIds: string[] = [];

  beforeAll(async () => {
    const { runBothAgentStyles, CREATE_AGENT_SCENARIOS } = await import("./create-agent-demo");
    const { DEMO_SCENARIOS } = await import("./demo-scenarios");
    scenarioIds = CREATE_AGENT_SCENARIOS.map((scenario) => scenario.id);
    report = await runBothAgentStyles({
      write: (text) => void (transcript += text),
      registry: new Registry(),
      // One classic scenario keeps this test short; demo.integration.test.ts runs them all.
      scenarios: DEMO_SCENARIOS.filter((scenario) => scenario.id === "repeat-loop"),
    });
  }, 120_000);

  it("reaches the expected outcome in every createAgent scenario, using every scripted turn of those that answer", () => {
    for (const result of report.createAgent.results) {
      expect({ id: result.id, error: result.outcome.error?.message, failures: result.failures }).toEqual({ id: result.id, error: undefined, failures: [] });
      if (result.outcome.stopReason === "final_answer") expect({ id: result.id, unused: result.unusedTurns }).toEqual({ id: result.id, unused: 0 });
    }
    expect(report.createAgent.results.map((result) => result.id)).toEqual(scenarioIds);
    expect(report.passed).toBe(true);
  });

  it("prints the tool calls, the ToolMessages and a summary of both agent styles", () => {
    expect(transcript).toContain("tool call currency_convert(");
    expect(transcript).toContain("ToolMessage [success] 100 EUR = 16000.00 JPY");
    expect(transcript).toMatch(/ToolMessage \[error\] Model tried to call unavailable tool "Wikipedia"/);
    expect(transcript).toContain("━━ Summary (both agent styles)");
    expect(transcript).toMatch(/AgentExecutor \+ createReactAgent \(ReAct text\): +1\/1 scenarios/);
    expect(transcript).toMatch(new RegExp(`createAgent \\+ createReinsMiddleware \\(native tool calls\\): +${scenarioIds.length}/${scenarioIds.length} scenarios`));
    // Without --metrics (printExposition) the exposition is not printed, neither per style nor for both.
    expect(transcript).not.toContain("━━ Prometheus metrics");
    expect(transcript).not.toContain("# HELP react_agent_");
    expect(transcript).toContain("Run with --metrics for the whole Prometheus exposition of both agent styles.");
  });

  it("records both styles in one Prometheus catalog, every run ended", () => {
    expect(report.exposition).toMatch(/react_agent_runs_in_progress 0/);
    expect(report.exposition).toMatch(new RegExp(`react_agent_runs_total\\{status="stopped"\\} 5`));
    expect(report.exposition).toMatch(/react_agent_stops_total\{reason="repeat"\} 2/);
    expect(report.exposition).toMatch(/react_agent_stops_total\{reason="cycle"\} 1/);
    expect(report.exposition).toMatch(/react_agent_tool_calls_total\{tool="stock_quote",outcome="timeout"\} 1/);
    expect(report.exposition).toMatch(/react_agent_tool_calls_total\{tool="send_email",outcome="dry_run"\} 1/);
    expect(report.exposition).toMatch(/react_agent_parser_repairs_total\{repair="json_smart_quotes"\} 1/);
  });
});
