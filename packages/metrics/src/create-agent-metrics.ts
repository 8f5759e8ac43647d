import type { Registry } from "prom-client";
import type { ReinsEvent, ReinsEventRecorder } from "@reins/core";
import { resolveAgentMetricsOptions, type AgentMetricsOptions, type ResolvedAgentMetricsOptions } from "./agent-metrics-options";
import { BoundedLabel } from "./bounded-label";
import { MetricsEventError, MetricsOptionsError } from "./errors";
import { CIRCUIT_STATE_VALUE, recordEvent, type RecordContext } from "./record-event";
import { createInstruments, type AgentMetricInstruments } from "./instruments";
import { AGENT_METRIC_CATALOG, OTHER_LABEL, UNREGISTERED_TOOL_LABEL } from "./metric-catalog";
import { instancesOf, signatureOf } from "./registry-instances";

const IDENTIFIER_PATTERN = /^[a-z][a-z0-9_]{0,47}$/;
const TOOL_NAME_PATTERN = /^[\p{L}\p{N}_.:\- ]{1,64}$/u;

/**
 * The Reins metric catalog, registered in one prom-client `Registry`, and a recorder that turns
 * every Reins event into samples. Pass it as the `metrics` option of any Reins piece. It has one
 * prom-client instrument per {@link AGENT_METRIC_CATALOG} entry, under the same key
 * (`runsTotal`, `toolCallsTotal`, …).
 */
export interface AgentMetrics extends ReinsEventRecorder, AgentMetricInstruments {
  /** The registry holding every metric below; serve `await registry.metrics()` on `/metrics`. */
  readonly registry: Registry;
  /** The metric name prefix in use. */
  readonly prefix: string;
  /**
   * Adds tool names the `tool` label may take; any name not registered is recorded as
   * `unregistered` and never learned. Reins' agents call it as they are built (one metrics object
   * shared by several agents learns each one's tools). At most `maxToolLabels` names are kept.
   * @param toolNames - registered tool names, e.g. `tools.map((tool) => tool.name)`
   */
  registerTools(toolNames: readonly string[]): void;
  /** The `tool` label value recorded for `toolName`. */
  toolLabel(toolName: string | undefined): string;
  /**
   * Records one Reins event. Never throws for a well-formed event; unknown label values are
   * mapped to `unknown`/`other` instead of creating new series, an event type it does not know
   * (from a newer `@reins/core`) is ignored, and a NaN or negative duration, size or token count
   * is not observed (the event is still counted).
   * @throws {MetricsEventError} when `event` is not an object with a string `type`
   */
  record(event: ReinsEvent): void;
}

/**
 * Creates (or returns) the Reins metric catalog in a prom-client registry. Asking twice for the
 * same registry and prefix returns the same object instead of throwing prom-client's "already
 * registered" error; tool names passed the second time are added to the first.
 *
 * Metric names follow the Prometheus conventions: counters end in `_total`, durations are
 * `_seconds` histograms. Series of closed label sets (status, step, phase, stage, kind × level,
 * stop reason, token type) start at 0 so `rate()`/`increase()` see their first event. The
 * catalogs are remembered on the registry object itself, so two copies of this package (CJS and
 * ESM builds) share them. Labels are bounded: `tool` is a registered tool name or `unknown`, parse
 * reasons and repairs outside their set are `other`, and no run id, input or error text ever
 * becomes a label.
 *
 * @param options - see {@link AgentMetricsOptions}
 * @returns the metrics and their `record(event)` recorder
 * @throws {MetricsOptionsError} when an option is invalid, or when the registry and prefix were
 *   already used with different buckets
 * @throws {MetricConflictError} when the registry holds a foreign metric with a catalog name
 * @example
 * ```ts
 * import { Registry } from "prom-client";
 * import { createAgentMetrics } from "@reins/metrics";
 *
 * const metrics = createAgentMetrics({ registry: new Registry(), toolNames: ["search", "calculator"] });
 * metrics.record({ type: "tool_call", toolName: "search", outcome: "success", durationMs: 420 });
 * console.log(await metrics.registry.metrics());
 * ```
 */
export function createAgentMetrics(options: AgentMetricsOptions = {}): AgentMetrics {
  const resolved = resolveAgentMetricsOptions(options);
  let byPrefix = instancesOf<AgentMetrics>(resolved.registry, false);
  let existing = byPrefix?.get(resolved.prefix);
  // A registry cleared by its owner no longer holds our instruments: build them again.
  if (
    existing !== undefined &&
    resolved.registry.getSingleMetric(`${resolved.prefix}${AGENT_METRIC_CATALOG.runsTotal.name}`) !==
      (existing.metrics.runsTotal as unknown)
  ) {
    byPrefix?.delete(resolved.prefix);
    existing = undefined;
  }
  if (existing !== undefined) {
    if (existing.signature !== signatureOf(resolved)) {
      throw new MetricsOptionsError({
        field: options.durationBucketsSeconds !== undefined ? "durationBucketsSeconds" : "observationCharBuckets",
        value: options.durationBucketsSeconds ?? options.observationCharBuckets,
        reason: `metrics with prefix "${resolved.prefix}" already exist in this registry with other buckets`,
      });
    }
    if (resolved.toolNames !== undefined) existing.metrics.registerTools(resolved.toolNames);
    return existing.metrics;
  }
  const metrics = buildAgentMetrics(resolved);
  byPrefix ??= instancesOf<AgentMetrics>(resolved.registry, true);
  byPrefix?.set(resolved.prefix, { metrics, signature: signatureOf(resolved) });
  return metrics;
}

function buildAgentMetrics(options: ResolvedAgentMetricsOptions): AgentMetrics {
  // An open circuit lets a probe through once its wait has passed, with no event until a call
  // arrives: at scrape time, a tool whose wait is over reads half-open (1), not open (2).
  const halfOpenDueAtMs = new Map<string, number>();
  const instruments: AgentMetricInstruments = createInstruments(options, {
    circuitState: () => {
      if (halfOpenDueAtMs.size === 0) return;
      const nowMs = options.now();
      for (const [tool, dueAtMs] of halfOpenDueAtMs) {
        if (nowMs < dueAtMs) continue;
        instruments.circuitState.set({ tool }, CIRCUIT_STATE_VALUE.half_open);
        halfOpenDueAtMs.delete(tool);
      }
    },
  });

  // Strict: only registered names are label values; a name the model invents never becomes one.
  const toolLabels = new BoundedLabel({ allowed: [], strict: true, maxValues: 0, fallback: UNREGISTERED_TOOL_LABEL });
  const reasonLabels = new BoundedLabel({
    allowed: options.parseErrorReasons ?? [],
    strict: options.parseErrorReasons !== undefined,
    maxValues: options.maxReasonLabels,
    fallback: OTHER_LABEL,
    pattern: IDENTIFIER_PATTERN,
  });
  const repairLabels = new BoundedLabel({
    allowed: options.parserRepairKinds ?? [],
    strict: options.parserRepairKinds !== undefined,
    maxValues: options.maxReasonLabels,
    fallback: OTHER_LABEL,
    pattern: IDENTIFIER_PATTERN,
  });
  const toolLabel = (toolName: string | undefined): string => toolLabels.valueOf(toolName);
  // A registered tool's per-tool counters start at 0 too, so `sum by (tool) (rate(…))` of retries
  // and truncations shows 0 for a tool that never had one instead of no data.
  const registerTools = (toolNames: readonly string[]): void => {
    const fresh = toolNames.filter((name) => typeof name === "string" && TOOL_NAME_PATTERN.test(name) && toolLabels.valueOf(name) === UNREGISTERED_TOOL_LABEL && name !== UNREGISTERED_TOOL_LABEL);
    toolLabels.allow(fresh.slice(0, Math.max(0, options.maxToolLabels - toolLabels.allowedValues.length)));
    for (const toolName of toolNames) {
      const tool = toolLabel(toolName);
      if (tool === UNREGISTERED_TOOL_LABEL) continue;
      instruments.toolRetriesTotal.inc({ tool }, 0);
      instruments.observationTruncationsTotal.inc({ tool }, 0);
    }
  };
  if (options.toolNames !== undefined) registerTools(options.toolNames);

  const context: RecordContext = { instruments, toolLabel, reasonLabels, repairLabels, halfOpenDueAtMs, now: options.now };
  const record = (event: ReinsEvent): void => {
    if (typeof event !== "object" || event === null || typeof (event as { type?: unknown }).type !== "string") {
      throw new MetricsEventError({ event });
    }
    recordEvent(event, context);
  };

  return Object.freeze({
    registry: options.registry,
    prefix: options.prefix,
    ...instruments,
    registerTools,
    toolLabel,
    record,
  });
}
