import { Counter, Gauge, Histogram } from "prom-client";
import type { ResolvedAgentMetricsOptions } from "./agent-metrics-options";
import { MetricConflictError } from "./errors";
import {
  AGENT_METRIC_CATALOG,
  type AgentMetricDefinition,
  type AgentMetricKey,
  type TypedAgentMetricDefinition,
} from "./metric-catalog";

/**
 * The prom-client instrument a catalog entry becomes: a `Counter`, `Gauge` or `Histogram` over its
 * label names (`string` for a metric without labels).
 */
export type InstrumentOf<Definition> =
  Definition extends TypedAgentMetricDefinition<infer Type, infer Label>
    ? ([Label] extends [never] ? string : Label) extends infer Labels extends string
      ? Type extends "counter"
        ? Counter<Labels>
        : Type extends "gauge"
          ? Gauge<Labels>
          : Histogram<Labels>
      : never
    : never;

/** One instrument per {@link AGENT_METRIC_CATALOG} entry, under the same key. */
export type AgentMetricInstruments = {
  readonly [Key in AgentMetricKey]: InstrumentOf<(typeof AGENT_METRIC_CATALOG)[Key]>;
};

type AnyInstrument = Counter<string> | Gauge<string> | Histogram<string>;

function createInstrument(
  definition: AgentMetricDefinition,
  options: ResolvedAgentMetricsOptions,
  collect?: () => void,
): AnyInstrument {
  const name = `${options.prefix}${definition.name}`;
  if (options.registry.getSingleMetric(name) !== undefined) throw new MetricConflictError({ metricName: name });
  const configuration = {
    name,
    help: definition.help,
    labelNames: [...definition.labelNames],
    registers: [options.registry],
    ...(definition.aggregator === undefined ? {} : { aggregator: definition.aggregator }),
  };
  switch (definition.type) {
    case "counter":
      return new Counter(configuration);
    case "gauge":
      return new Gauge(collect === undefined ? configuration : { ...configuration, collect });
    case "histogram":
      return new Histogram({ ...configuration, buckets: [...options[definition.buckets ?? "durationBucketsSeconds"]] });
  }
}

/** Every combination of a metric's closed label values, or none when a label is open. */
function closedSeries(definition: AgentMetricDefinition): Array<Record<string, string>> {
  if (definition.labelNames.length === 0) return [];
  let series: Array<Record<string, string>> = [{}];
  for (const label of definition.labelNames) {
    const values = definition.labelValues[label];
    if (values === undefined) return [];
    series = series.flatMap((labels) => values.map((value) => ({ ...labels, [label]: value })));
  }
  return series;
}

/**
 * Registers one instrument per catalog entry, in catalog order, and starts every series of a
 * metric whose labels are all closed at 0 (Prometheus: "avoid missing metrics"), so `rate()` and
 * `increase()` see the first event and alerts on rare series (a loop stop) can fire.
 *
 * @param options - resolved options (registry, prefix, buckets)
 * @param collectors - a prom-client `collect` callback per gauge that computes its value at scrape
 * @returns the instruments, keyed like the catalog
 * @throws {MetricConflictError} when a name is taken or prom-client refuses one; the instruments
 *   registered before it are removed again, so the registry holds no half catalog
 */
export function createInstruments(
  options: ResolvedAgentMetricsOptions,
  collectors: Partial<Record<AgentMetricKey, () => void>> = {},
): AgentMetricInstruments {
  const created: string[] = [];
  const instruments: Partial<Record<AgentMetricKey, AnyInstrument>> = {};
  for (const [key, definition] of Object.entries(AGENT_METRIC_CATALOG) as Array<[AgentMetricKey, AgentMetricDefinition]>) {
    const name = `${options.prefix}${definition.name}`;
    try {
      instruments[key] = createInstrument(definition, options, collectors[key]);
      created.push(name);
    } catch (error) {
      for (const createdName of created) options.registry.removeSingleMetric(createdName);
      if (error instanceof MetricConflictError) throw error;
      throw new MetricConflictError({
        metricName: name,
        reason: error instanceof Error ? error.message : String(error),
        cause: error,
      });
    }
  }
  for (const [key, definition] of Object.entries(AGENT_METRIC_CATALOG) as Array<[AgentMetricKey, AgentMetricDefinition]>) {
    const instrument = instruments[key];
    for (const labels of closedSeries(definition)) {
      if (definition.type === "histogram") (instrument as Histogram<string>).zero(labels);
      else if (definition.type === "counter") (instrument as Counter<string>).inc(labels, 0);
      else (instrument as Gauge<string>).set(labels, 0);
    }
  }
  return instruments as AgentMetricInstruments;
}
