import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { Registry } from "prom-client";
import { describeRequiring } from "@reins/testing";
import { createAgentMetrics } from "./index";

const docsDirectory = resolve(__dirname, "../../../docs");

function promtool(args: readonly string[], input?: string): { status: number | null; output: string } {
  const result = spawnSync("promtool", [...args], { cwd: docsDirectory, input, encoding: "utf8", timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describeRequiring([{ program: "promtool" }], "docs/alerts.yml and the exposition, checked by promtool", () => {
  it("passes promtool check rules (the recording and alerting rules are valid)", () => {
    const { status, output } = promtool(["check", "rules", "alerts.yml"]);
    expect(output).toContain("SUCCESS: 7 rules found");
    expect(status).toBe(0);
  });

  it("passes promtool test rules (the alerts' unit tests on synthetic series)", () => {
    const { status, output } = promtool(["test", "rules", "alerts.test.yml"]);
    expect(output).toContain("SUCCESS");
    expect(status).toBe(0);
  });

  it("fails promtool test rules when an alert is broken (the unit tests can fail)", () => {
    const broken = readFileSync(resolve(docsDirectory, "alerts.yml"), "utf8").replace("(react_agent_circuit_state) == 2", "(react_agent_circuit_state) >= 1");
    const tests = readFileSync(resolve(docsDirectory, "alerts.test.yml"), "utf8");
    // promtool reads rule files from disk: give it a broken copy beside a copy of the tests.
    const directory = mkdtempSync(resolve(tmpdir(), "reins-promtool-"));
    try {
      writeFileSync(resolve(directory, "alerts.yml"), broken);
      writeFileSync(resolve(directory, "alerts.test.yml"), tests);
      const result = spawnSync("promtool", ["test", "rules", "alerts.test.yml"], { cwd: directory, encoding: "utf8", timeout: 60_000 });
      expect(result.status).not.toBe(0);
      expect(`${result.stdout}${result.stderr}`).toContain("ReactAgentCircuitOpen");
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("passes promtool check metrics on the exposition of a catalog that saw every event type", async () => {
    const metrics = createAgentMetrics({ registry: new Registry(), toolNames: ["search", "parcel"] });
    metrics.record({ type: "run_start", runId: "r1" });
    metrics.record({ type: "step", runId: "r1", step: "thought" });
    metrics.record({ type: "step_duration", runId: "r1", phase: "llm", durationMs: 900 });
    metrics.record({ type: "parser_repair", repair: "markdown_labels" });
    metrics.record({ type: "parser_error", reason: "unknown_tool", message: "Use one of: search, parcel." });
    metrics.record({ type: "tool_call", toolName: "search", outcome: "success", durationMs: 420 });
    metrics.record({ type: "tool_retry", toolName: "parcel", attempt: 2, delayMs: 250 });
    metrics.record({ type: "circuit_state", toolName: "parcel", state: "open", halfOpenAfterMs: 30_000 });
    metrics.record({ type: "observation_cleaned", toolName: "search", rawChars: 5_000, cleanChars: 800, truncated: true, notes: [] });
    metrics.record({ type: "token_usage", runId: "r1", inputTokens: 1_200, outputTokens: 80, estimated: false });
    metrics.record({ type: "loop_detection", runId: "r1", kind: "repeat", level: "warn" });
    metrics.record({ type: "run_end", runId: "r1", status: "success", stopReason: "final_answer", durationMs: 3_000 });
    const exposition = await metrics.registry.metrics();
    const { status, output } = promtool(["check", "metrics"], exposition);
    expect(output).toBe("");
    expect(status).toBe(0);
  });
});

describe("docs/metrics.md", () => {
  it("shows docs/alerts.yml verbatim as its rule file", () => {
    const markdown = readFileSync(resolve(docsDirectory, "metrics.md"), "utf8");
    const rules = readFileSync(resolve(docsDirectory, "alerts.yml"), "utf8");
    const blocks = [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]);
    expect(blocks).toContain(rules);
  });
});
