/**
 * The demo's closing table: the main counters of the run, read from the metric registry, in a few
 * lines (the whole exposition is printed only with `--metrics`).
 */
import type { AgentMetrics } from "@reins/metrics";

interface CounterValue {
  readonly labels: Record<string, string | number>;
  readonly value: number;
}

async function valuesOf(metrics: AgentMetrics, name: string): Promise<CounterValue[]> {
  const metric = metrics.registry.getSingleMetric(`${metrics.prefix}${name}`);
  if (metric === undefined) return [];
  const data = await metric.get();
  return data.values.map((entry) => ({ labels: entry.labels as Record<string, string | number>, value: entry.value }));
}

/** `label=value` pairs of the non-zero series, summed by `label`, largest first. */
function byLabel(values: readonly CounterValue[], label: string): string {
  const totals = new Map<string, number>();
  for (const entry of values) {
    if (entry.value === 0) continue;
    const key = String(entry.labels[label] ?? "");
    totals.set(key, (totals.get(key) ?? 0) + entry.value);
  }
  if (totals.size === 0) return "none";
  return [...totals]
    .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
    .map(([key, value]) => `${key} ${value}`)
    .join(", ");
}

function total(values: readonly CounterValue[]): number {
  return values.reduce((sum, entry) => sum + entry.value, 0);
}

/**
 * The main counters as an aligned two-column table.
 *
 * @param metrics - the demo's metric catalog
 * @returns the table, one counter per line, ending in a newline
 */
export async function formatCounterTable(metrics: AgentMetrics): Promise<string> {
  const prefix = metrics.prefix;
  const rows: Array<[string, string]> = [
    [`${prefix}runs_total`, byLabel(await valuesOf(metrics, "runs_total"), "status")],
    [`${prefix}stops_total`, byLabel(await valuesOf(metrics, "stops_total"), "reason")],
    [`${prefix}tool_calls_total`, byLabel(await valuesOf(metrics, "tool_calls_total"), "outcome")],
    [`${prefix}tool_retries_total`, String(total(await valuesOf(metrics, "tool_retries_total")))],
    [`${prefix}parsing_errors_total`, byLabel(await valuesOf(metrics, "parsing_errors_total"), "reason")],
    [`${prefix}parser_repairs_total`, byLabel(await valuesOf(metrics, "parser_repairs_total"), "repair")],
    [`${prefix}loop_detections_total`, byLabel(await valuesOf(metrics, "loop_detections_total"), "kind")],
    [`${prefix}tokens_total`, byLabel(await valuesOf(metrics, "tokens_total"), "type")],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}\n`).join("");
}
