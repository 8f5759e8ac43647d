import { Counter, Gauge, Histogram, Registry, exponentialBuckets } from "prom-client";
import type { CircuitState, ReinsEvent, ReinsEventRecorder } from "@reins/core";
import { BoundedLabel } from "./bounded-label";
import { MetricConflictError, MetricsEventError, MetricsOptionsError } from "./errors";
import {
  AGENT_METRIC_CATALOG,
  LOOP_KIND_VALUES,
  LOOP_LEVEL_VALUES,
  OBSERVATION_STAGE_VALUES,
  OTHER_LABEL,
  PHASE_VALUES,
  RUN_STATUS_VALUES,
  STEP_VALUES,
  STOP_REASON_VALUES,
  TOKEN_TYPE_VALUES,
  TOOL_OUTCOME_VALUES,
  UNKNOWN_TOOL_LABEL,
  type AgentMetricDefinition,
} from "./metric-catalog";

/** Options of {@link createAgentMetrics}. */
export interface AgentMetricsOptions {
  /**
   * The prom-client `Registry` to register into. Pass prom-client's global `register` yourself if
   * you want it there; Reins never touches it otherwise.
   * @default a new `Registry`
   */
  registry?: Registry;
  /**
   * Prefix of every metric name. Must match `[a-zA-Z_:][a-zA-Z0-9_:]*` (or be empty).
   * @default "react_agent_"
   */
  prefix?: string;
  /**
   * The agent's tool names. When given, the `tool` label is one of these or `unknown` (add more
   * later with `registerTools`). When omitted, the first `maxToolLabels` distinct tool names seen
   * that look like identifiers become labels and any later one is `unknown`.
   * @default undefined (learn up to `maxToolLabels`)
   */
  toolNames?: readonly string[];
  /**
   * How many tool names are learned when `toolNames` is omitted.
   * @default 50
   */
  maxToolLabels?: number;
  /**
   * Allowed `reason` values of `parsing_errors_total`. When given, other reasons are recorded as
   * `other`. When omitted, up to `maxReasonLabels` identifier-like reasons (`[a-z][a-z0-9_]*`, at
   * most 48 characters) are learned and the rest are `other`.
   * @default undefined (learn)
   */
  parseErrorReasons?: readonly string[];
  /**
   * Allowed `repair` values of `parser_repairs_total`; same rules as `parseErrorReasons`.
   * @default undefined (learn)
   */
  parserRepairKinds?: readonly string[];
  /**
   * How many parse reasons (and, separately, repair kinds) are learned when no list is given.
   * @default 50
   */
  maxReasonLabels?: number;
  /**
   * Histogram buckets for every `_seconds` metric, in seconds, strictly increasing.
   * @default 14 exponential buckets from 0.01 to 81.92 (0.01 × 2ⁿ)
   */
  durationBucketsSeconds?: readonly number[];
  /**
   * Histogram buckets for `observation_chars`, in characters, strictly increasing.
   * @default 16, 64, 256, 1 024, 4 096, 16 384, 65 536, 262 144, 1 048 576
   */
  observationCharBuckets?: readonly number[];
  /**
   * Clock in epoch milliseconds. The `circuit_state` gauge uses it to turn an open circuit into
   * half-open (1) once the breaker's `halfOpenAfterMs` has passed, read at scrape time.
   * @default Date.now
   */
  now?: () => number;
}

/** The resolved options (every field set). */
export interface ResolvedAgentMetricsOptions {
  readonly registry: Registry;
  readonly prefix: string;
  readonly toolNames: readonly string[] | undefined;
  readonly maxToolLabels: number;
  readonly parseErrorReasons: readonly string[] | undefined;
  readonly parserRepairKinds: readonly string[] | undefined;
  readonly maxReasonLabels: number;
  readonly durationBucketsSeconds: readonly number[];
  readonly observationCharBuckets: readonly number[];
  readonly now: () => number;
}

/** Defaults of {@link AgentMetricsOptions} (the registry default is a new `Registry` per call). */
export const DEFAULT_AGENT_METRICS_OPTIONS = Object.freeze({
  prefix: "react_agent_",
  maxToolLabels: 50,
  maxReasonLabels: 50,
  durationBucketsSeconds: Object.freeze(exponentialBuckets(0.01, 2, 14)),
  observationCharBuckets: Object.freeze(exponentialBuckets(16, 4, 9)),
});

const PREFIX_PATTERN = /^([a-zA-Z_:][a-zA-Z0-9_:]*)?$/;
const IDENTIFIER_PATTERN = /^[a-z][a-z0-9_]{0,47}$/;
const TOOL_NAME_PATTERN = /^[\p{L}\p{N}_.:\- ]{1,64}$/u;

function checkBuckets(field: string, value: unknown): readonly number[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new MetricsOptionsError({ field, value, reason: "expected a non-empty array of numbers" });
  }
  for (let index = 0; index < value.length; index += 1) {
    const bucket: unknown = value[index];
    if (typeof bucket !== "number" || !Number.isFinite(bucket) || bucket < 0) {
      throw new MetricsOptionsError({ field, value, reason: `bucket ${index} is not a finite number ≥ 0` });
    }
    if (index > 0 && bucket <= (value[index - 1] as number)) {
      throw new MetricsOptionsError({ field, value, reason: "buckets must be strictly increasing" });
    }
  }
  return Object.freeze([...(value as number[])]);
}

function checkPositiveInteger(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new MetricsOptionsError({ field, value, reason: "expected an integer ≥ 0" });
  }
  return value;
}

function checkStringList(field: string, value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== "string" || entry.length === 0)) {
    throw new MetricsOptionsError({ field, value, reason: "expected an array of non-empty strings" });
  }
  return Object.freeze([...(value as string[])]);
}

/**
 * Merges `options` over {@link DEFAULT_AGENT_METRICS_OPTIONS} and validates them.
 *
 * @param options - the caller's options
 * @returns every option set
 * @throws {MetricsOptionsError} when a field is invalid; `field` names it
 */
export function resolveAgentMetricsOptions(options: AgentMetricsOptions = {}): ResolvedAgentMetricsOptions {
  const registry = options.registry ?? new Registry();
  if (typeof registry !== "object" || registry === null || typeof (registry as Registry).registerMetric !== "function") {
    throw new MetricsOptionsError({ field: "registry", value: registry, reason: "expected a prom-client Registry" });
  }
  const now = options.now ?? Date.now;
  if (typeof now !== "function") throw new MetricsOptionsError({ field: "now", value: now, reason: "expected a function returning epoch milliseconds" });
  const prefix = options.prefix ?? DEFAULT_AGENT_METRICS_OPTIONS.prefix;
  if (typeof prefix !== "string" || !PREFIX_PATTERN.test(prefix)) {
    throw new MetricsOptionsError({
      field: "prefix",
      value: prefix,
      reason: "a Prometheus metric name prefix must match [a-zA-Z_:][a-zA-Z0-9_:]*",
    });
  }
  return Object.freeze({
    registry,
    prefix,
    toolNames: checkStringList("toolNames", options.toolNames),
    maxToolLabels: checkPositiveInteger("maxToolLabels", options.maxToolLabels ?? DEFAULT_AGENT_METRICS_OPTIONS.maxToolLabels),
    parseErrorReasons: checkStringList("parseErrorReasons", options.parseErrorReasons),
    parserRepairKinds: checkStringList("parserRepairKinds", options.parserRepairKinds),
    maxReasonLabels: checkPositiveInteger(
      "maxReasonLabels",
      options.maxReasonLabels ?? DEFAULT_AGENT_METRICS_OPTIONS.maxReasonLabels,
    ),
    durationBucketsSeconds: checkBuckets(
      "durationBucketsSeconds",
      options.durationBucketsSeconds ?? DEFAULT_AGENT_METRICS_OPTIONS.durationBucketsSeconds,
    ),
    observationCharBuckets: checkBuckets(
      "observationCharBuckets",
      options.observationCharBuckets ?? DEFAULT_AGENT_METRICS_OPTIONS.observationCharBuckets,
    ),
    now,
  });
}

/**
 * The Reins metric catalog, registered in one prom-client `Registry`, and a recorder that turns
 * every Reins event into samples. Pass it as the `metrics` option of any Reins piece.
 */
export interface AgentMetrics extends ReinsEventRecorder {
  /** The registry holding every metric below; serve `await registry.metrics()` on `/metrics`. */
  readonly registry: Registry;
  /** The metric name prefix in use. */
  readonly prefix: string;
  readonly runsTotal: Counter<"status">;
  readonly runsInProgress: Gauge<string>;
  readonly runDurationSeconds: Histogram<"status">;
  readonly stepsTotal: Counter<"step">;
  readonly stepDurationSeconds: Histogram<"phase">;
  readonly toolCallsTotal: Counter<"tool" | "outcome">;
  readonly toolDurationSeconds: Histogram<"tool">;
  readonly toolRetriesTotal: Counter<"tool">;
  readonly toolCacheErrorsTotal: Counter<"tool" | "operation">;
  readonly circuitState: Gauge<"tool">;
  readonly parsingErrorsTotal: Counter<"reason">;
  readonly parserRepairsTotal: Counter<"repair">;
  readonly observationChars: Histogram<"stage">;
  readonly observationTruncationsTotal: Counter<"tool">;
  readonly loopDetectionsTotal: Counter<"kind" | "level">;
  readonly stopsTotal: Counter<"reason">;
  readonly tokensTotal: Counter<"type">;
  /**
   * Adds tool names the `tool` label may take (a name not registered is recorded as `unknown`
   * when `toolNames` was given).
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

const CIRCUIT_STATE_VALUE: Readonly<Record<CircuitState, number>> = Object.freeze({ closed: 0, half_open: 1, open: 2 });

function closed<T extends string>(values: readonly T[], value: string | undefined): T {
  return (values as readonly string[]).includes(value ?? "") ? (value as T) : (OTHER_LABEL as T);
}

function nonNegative(value: number): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * The catalogs built per registry and prefix, kept on the registry itself under a `Symbol.for`
 * key: a second copy of this package in the process (its CJS and ESM builds side by side) finds
 * them too and returns the same object instead of failing on "already registered".
 */
const INSTANCES_KEY = Symbol.for("reins.metrics.instances");

type InstancesByPrefix = Map<string, { metrics: AgentMetrics; signature: string }>;

function instancesOf(registry: Registry, create: boolean): InstancesByPrefix | undefined {
  const holder = registry as unknown as Record<symbol, InstancesByPrefix | undefined>;
  let byPrefix = holder[INSTANCES_KEY];
  if (byPrefix === undefined && create) {
    byPrefix = new Map();
    Object.defineProperty(registry, INSTANCES_KEY, { value: byPrefix, enumerable: false, configurable: true });
  }
  return byPrefix;
}

function signatureOf(options: ResolvedAgentMetricsOptions): string {
  return JSON.stringify([options.durationBucketsSeconds, options.observationCharBuckets]);
}

function createInstrument(
  definition: AgentMetricDefinition,
  options: ResolvedAgentMetricsOptions,
  collect?: () => void,
): Counter<string> | Gauge<string> | Histogram<string> {
  const name = `${options.prefix}${definition.name}`;
  if (options.registry.getSingleMetric(name) !== undefined) throw new MetricConflictError({ metricName: name });
  const configuration = {
    name,
    help: definition.help,
    labelNames: [...definition.labelNames],
    registers: [options.registry],
  };
  switch (definition.type) {
    case "counter":
      return new Counter(configuration);
    case "gauge":
      return new Gauge(collect === undefined ? configuration : { ...configuration, collect });
    case "histogram": {
      const buckets = definition.name === "observation_chars" ? options.observationCharBuckets : options.durationBucketsSeconds;
      return new Histogram({ ...configuration, buckets: [...buckets] });
    }
  }
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
  let byPrefix = instancesOf(resolved.registry, false);
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
  byPrefix ??= instancesOf(resolved.registry, true);
  byPrefix?.set(resolved.prefix, { metrics, signature: signatureOf(resolved) });
  return metrics;
}

function buildAgentMetrics(options: ResolvedAgentMetricsOptions): AgentMetrics {
  const created: Array<{ name: string }> = [];
  const instrument = <T>(definition: AgentMetricDefinition, collect?: () => void): T => {
    try {
      const metric = createInstrument(definition, options, collect);
      created.push({ name: `${options.prefix}${definition.name}` });
      return metric as unknown as T;
    } catch (error) {
      // Leave the registry as it was: no half-registered catalog.
      for (const { name } of created) options.registry.removeSingleMetric(name);
      if (error instanceof MetricConflictError) throw error;
      throw new MetricConflictError({
        metricName: `${options.prefix}${definition.name}`,
        reason: error instanceof Error ? error.message : String(error),
        cause: error,
      });
    }
  };
  const catalog = AGENT_METRIC_CATALOG;
  const runsTotal = instrument<Counter<"status">>(catalog.runsTotal);
  const runsInProgress = instrument<Gauge<string>>(catalog.runsInProgress);
  const runDurationSeconds = instrument<Histogram<"status">>(catalog.runDurationSeconds);
  const stepsTotal = instrument<Counter<"step">>(catalog.stepsTotal);
  const stepDurationSeconds = instrument<Histogram<"phase">>(catalog.stepDurationSeconds);
  const toolCallsTotal = instrument<Counter<"tool" | "outcome">>(catalog.toolCallsTotal);
  const toolDurationSeconds = instrument<Histogram<"tool">>(catalog.toolDurationSeconds);
  const toolRetriesTotal = instrument<Counter<"tool">>(catalog.toolRetriesTotal);
  const toolCacheErrorsTotal = instrument<Counter<"tool" | "operation">>(catalog.toolCacheErrorsTotal);
  // An open circuit lets a probe through once its wait has passed, with no event until a call
  // arrives: at scrape time, a tool whose wait is over reads half-open (1), not open (2).
  const halfOpenDueAtMs = new Map<string, number>();
  const circuitState = instrument<Gauge<"tool">>(catalog.circuitState, () => {
    if (halfOpenDueAtMs.size === 0) return;
    const nowMs = options.now();
    for (const [tool, dueAtMs] of halfOpenDueAtMs) {
      if (nowMs < dueAtMs) continue;
      circuitState.set({ tool }, CIRCUIT_STATE_VALUE.half_open);
      halfOpenDueAtMs.delete(tool);
    }
  });
  const parsingErrorsTotal = instrument<Counter<"reason">>(catalog.parsingErrorsTotal);
  const parserRepairsTotal = instrument<Counter<"repair">>(catalog.parserRepairsTotal);
  const observationChars = instrument<Histogram<"stage">>(catalog.observationChars);
  const observationTruncationsTotal = instrument<Counter<"tool">>(catalog.observationTruncationsTotal);
  const loopDetectionsTotal = instrument<Counter<"kind" | "level">>(catalog.loopDetectionsTotal);
  const stopsTotal = instrument<Counter<"reason">>(catalog.stopsTotal);
  const tokensTotal = instrument<Counter<"type">>(catalog.tokensTotal);

  // Closed label sets start at 0 (Prometheus: "avoid missing metrics"), so rate() and increase()
  // see the first event and alerts on rare series (a loop stop) can fire.
  for (const status of RUN_STATUS_VALUES) {
    runsTotal.inc({ status }, 0);
    runDurationSeconds.zero({ status });
  }
  for (const step of STEP_VALUES) stepsTotal.inc({ step }, 0);
  for (const phase of PHASE_VALUES) stepDurationSeconds.zero({ phase });
  for (const stage of OBSERVATION_STAGE_VALUES) observationChars.zero({ stage });
  for (const kind of LOOP_KIND_VALUES) for (const level of LOOP_LEVEL_VALUES) loopDetectionsTotal.inc({ kind, level }, 0);
  for (const reason of STOP_REASON_VALUES) stopsTotal.inc({ reason }, 0);
  for (const type of TOKEN_TYPE_VALUES) tokensTotal.inc({ type }, 0);

  const toolLabels = new BoundedLabel({
    allowed: options.toolNames ?? [],
    strict: options.toolNames !== undefined,
    maxValues: options.maxToolLabels,
    fallback: UNKNOWN_TOOL_LABEL,
    pattern: TOOL_NAME_PATTERN,
  });
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
  const toolLabel = (toolName: string | undefined): string =>
    toolName === UNKNOWN_TOOL_LABEL ? UNKNOWN_TOOL_LABEL : toolLabels.valueOf(toolName);
  // A registered tool's per-tool counters start at 0 too, so `sum by (tool) (rate(…))` of retries
  // and truncations shows 0 for a tool that never had one instead of no data.
  const registerTools = (toolNames: readonly string[]): void => {
    toolLabels.allow(toolNames);
    for (const toolName of toolNames) {
      const tool = toolLabel(toolName);
      if (tool === UNKNOWN_TOOL_LABEL) continue;
      toolRetriesTotal.inc({ tool }, 0);
      observationTruncationsTotal.inc({ tool }, 0);
    }
  };
  if (options.toolNames !== undefined) registerTools(options.toolNames);

  const record = (event: ReinsEvent): void => {
    if (typeof event !== "object" || event === null || typeof (event as { type?: unknown }).type !== "string") {
      throw new MetricsEventError({ event });
    }
    switch (event.type) {
      case "parser_repair":
        parserRepairsTotal.inc({ repair: repairLabels.valueOf(event.repair) });
        return;
      case "parser_error":
        parsingErrorsTotal.inc({ reason: reasonLabels.valueOf(event.reason) });
        return;
      case "tool_call": {
        const tool = toolLabel(event.toolName);
        toolCallsTotal.inc({ tool, outcome: closed(TOOL_OUTCOME_VALUES, event.outcome) });
        const durationMs = nonNegative(event.durationMs);
        if (durationMs !== undefined) toolDurationSeconds.observe({ tool }, durationMs / 1000);
        return;
      }
      case "tool_retry":
        toolRetriesTotal.inc({ tool: toolLabel(event.toolName) });
        return;
      case "tool_cache_error":
        toolCacheErrorsTotal.inc({ tool: toolLabel(event.toolName), operation: event.operation === "set" ? "set" : "get" });
        return;
      case "circuit_state": {
        const value = CIRCUIT_STATE_VALUE[event.state];
        if (value === undefined) return;
        const tool = toolLabel(event.toolName);
        circuitState.set({ tool }, value);
        const waitMs = event.state === "open" ? nonNegative(event.halfOpenAfterMs ?? Number.NaN) : undefined;
        if (waitMs !== undefined) halfOpenDueAtMs.set(tool, options.now() + waitMs);
        else halfOpenDueAtMs.delete(tool);
        return;
      }
      case "observation_cleaned": {
        const rawChars = nonNegative(event.rawChars);
        const cleanChars = nonNegative(event.cleanChars);
        if (rawChars !== undefined) observationChars.observe({ stage: OBSERVATION_STAGE_VALUES[0] }, rawChars);
        if (cleanChars !== undefined) observationChars.observe({ stage: OBSERVATION_STAGE_VALUES[1] }, cleanChars);
        if (event.truncated) observationTruncationsTotal.inc({ tool: toolLabel(event.toolName) });
        return;
      }
      case "run_start":
        runsInProgress.inc();
        return;
      case "run_end": {
        const status = closed(RUN_STATUS_VALUES, event.status);
        runsInProgress.dec();
        runsTotal.inc({ status });
        const durationMs = nonNegative(event.durationMs);
        if (durationMs !== undefined) runDurationSeconds.observe({ status }, durationMs / 1000);
        stopsTotal.inc({ reason: closed(STOP_REASON_VALUES, event.stopReason) });
        return;
      }
      case "step":
        stepsTotal.inc({ step: closed(STEP_VALUES, event.step) });
        return;
      case "step_duration": {
        const durationMs = nonNegative(event.durationMs);
        if (durationMs !== undefined) stepDurationSeconds.observe({ phase: closed(PHASE_VALUES, event.phase) }, durationMs / 1000);
        return;
      }
      case "token_usage": {
        const inputTokens = nonNegative(event.inputTokens);
        const outputTokens = nonNegative(event.outputTokens);
        if (inputTokens) tokensTotal.inc({ type: "input" }, inputTokens);
        if (outputTokens) tokensTotal.inc({ type: "output" }, outputTokens);
        return;
      }
      case "loop_detection":
        loopDetectionsTotal.inc({ kind: closed(LOOP_KIND_VALUES, event.kind), level: closed(LOOP_LEVEL_VALUES, event.level) });
        return;
      default:
        return;
    }
  };

  return Object.freeze({
    registry: options.registry,
    prefix: options.prefix,
    runsTotal,
    runsInProgress,
    runDurationSeconds,
    stepsTotal,
    stepDurationSeconds,
    toolCallsTotal,
    toolDurationSeconds,
    toolRetriesTotal,
    toolCacheErrorsTotal,
    circuitState,
    parsingErrorsTotal,
    parserRepairsTotal,
    observationChars,
    observationTruncationsTotal,
    loopDetectionsTotal,
    stopsTotal,
    tokensTotal,
    registerTools,
    toolLabel,
    record,
  });
}
