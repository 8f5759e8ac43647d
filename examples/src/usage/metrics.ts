/**
 * @reins/metrics, alone: create the catalog in your own prom-client Registry, feed it Reins events
 * (here by hand; the pieces do it when given `metrics`), and print the Prometheus exposition.
 *
 *   npx tsx examples/src/usage/run.ts metrics
 */
import { createAgentMetrics } from "@reins/metrics";
import { Registry } from "prom-client";
import { printToStdout, type Print } from "./print";

/** The exposition text the example printed. */
export interface MetricsExampleResult {
  readonly exposition: string;
}

/** Records one short run's events and prints the non-empty samples. */
export async function main(print: Print = printToStdout): Promise<MetricsExampleResult> {
  const metrics = createAgentMetrics({ registry: new Registry(), toolNames: ["search", "calculator"] });
  metrics.record({ type: "run_start", runId: "run-1" });
  metrics.record({ type: "tool_call", toolName: "search", outcome: "timeout", durationMs: 3000, runId: "run-1" });
  metrics.record({ type: "tool_retry", toolName: "search", attempt: 1, delayMs: 250 });
  metrics.record({ type: "tool_call", toolName: "search", outcome: "success", durationMs: 420, runId: "run-1" });
  // A tool name outside the catalog's list is recorded as `unknown` (bounded labels).
  metrics.record({ type: "tool_call", toolName: "rm -rf /", outcome: "error", durationMs: 5, runId: "run-1" });
  metrics.record({ type: "run_end", runId: "run-1", status: "success", stopReason: "final_answer", durationMs: 5100 });

  const exposition = await metrics.registry.metrics();
  const samples = exposition
    .split("\n")
    .filter((line) => line.length > 0 && !line.startsWith("#") && !line.includes("_bucket{") && !/ 0$/.test(line));
  for (const sample of samples) print(sample);
  return { exposition };
}
