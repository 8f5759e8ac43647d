// The real OpenTelemetry SDK as the otel tests read it back: a pull metric reader, an in-memory span
// exporter, and the lookups over what they collected. Used by this package's tests and by
// @reins/agent-middleware's (the createAgent path).
import type { Attributes } from "@opentelemetry/api";
import { AggregationTemporality, MeterProvider, MetricReader, type HistogramMetricData, type MetricData } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";

/** A pull reader: `collect()` returns what the SDK aggregated so far. */
export class TestMetricReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** A meter provider and a tracer provider wired to a test reader and an in-memory exporter. */
export interface TestSdk {
  readonly reader: TestMetricReader;
  readonly exporter: InMemorySpanExporter;
  readonly meterProvider: MeterProvider;
  readonly tracerProvider: BasicTracerProvider;
  shutdown(): Promise<void>;
}

export function createTestSdk(): TestSdk {
  const reader = new TestMetricReader();
  const exporter = new InMemorySpanExporter();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    reader,
    exporter,
    meterProvider,
    tracerProvider,
    shutdown: async () => {
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
    },
  };
}

/** Every collected metric by its name; fails the test on a collection error. */
export async function metricsByName(reader: TestMetricReader): Promise<Map<string, MetricData>> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  const byName = new Map<string, MetricData>();
  for (const scope of resourceMetrics.scopeMetrics) for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric);
  return byName;
}

export function histogram(byName: Map<string, MetricData>, name: string): HistogramMetricData {
  const metric = byName.get(name);
  if (metric === undefined) throw new Error(`no metric ${name}; got ${[...byName.keys()].join(", ")}`);
  return metric as HistogramMetricData;
}

function pointsWhere(metric: HistogramMetricData, match: Attributes) {
  return metric.dataPoints.filter((point) => Object.entries(match).every(([key, value]) => point.attributes[key] === value));
}

/** How many observations the histogram's points with these attributes hold. */
export function countWhere(metric: HistogramMetricData, match: Attributes): number {
  return pointsWhere(metric, match).reduce((sum, point) => sum + point.value.count, 0);
}

/** The sum of the observations the histogram's points with these attributes hold. */
export function sumWhere(metric: HistogramMetricData, match: Attributes): number {
  return pointsWhere(metric, match).reduce((sum, point) => sum + (point.value.sum ?? 0), 0);
}
