/**
 * The catalog of every Prometheus metric Reins exports: names (without prefix), types, help
 * texts, label names and, for closed label sets, every allowed value. `createAgentMetrics`
 * builds its instruments from it and `docs/metrics.md` documents it one entry for one.
 */

import { BUDGET_SCOPES, LOOP_KINDS, SECRET_KINDS as CORE_SECRET_KINDS, SHARED_STORE_KINDS, RUN_STATUSES, STEP_KINDS, STEP_PHASES, STOP_REASONS, TOOL_CALL_OUTCOMES } from "@reins/core";

/** A Prometheus metric type used by the catalog. */
export type AgentMetricType = "counter" | "gauge" | "histogram";

/** One catalog entry. */
export interface AgentMetricDefinition {
  /** Name without the prefix, e.g. `runs_total`. */
  readonly name: string;
  readonly type: AgentMetricType;
  /** The `# HELP` text. */
  readonly help: string;
  readonly labelNames: readonly string[];
  /**
   * Every value a closed label may take. Labels not listed here are open but bounded (tool names,
   * parse reasons, repairs): see `createAgentMetrics`. A metric whose every label is closed has
   * each combination exported at 0 from the start.
   */
  readonly labelValues: Readonly<Record<string, readonly string[]>>;
  /**
   * Which option holds a histogram's buckets: `observationCharBuckets` or
   * `durationBucketsSeconds`.
   * @default "durationBucketsSeconds" (for histograms; unused by other types)
   */
  readonly buckets?: "durationBucketsSeconds" | "observationCharBuckets";
  /**
   * How prom-client's `AggregatorRegistry` (Node cluster mode) merges the workers' values of this
   * metric: `circuit_state` takes the `max` (the worst state any worker acts on), so four open
   * workers read 2, not 8.
   * @default "sum" (prom-client's default)
   */
  readonly aggregator?: "sum" | "max" | "min" | "average" | "first" | "omit";
}

/** `stage` of `observation_chars`. */
export const OBSERVATION_STAGE_VALUES = Object.freeze(["raw", "clean"] as const);
/** `surface` of `secrets_redacted_total`: where text left the process. */
export const SECRET_REDACTION_SURFACES = Object.freeze(["event", "log", "audit", "otel", "preview"] as const);
/** `kind` of `secrets_redacted_total`: the default patterns' kinds (a custom pattern's kind counts as `other`). */
export const SECRET_KINDS: readonly string[] = CORE_SECRET_KINDS;
/** `level` of `loop_detections_total`. */
export const LOOP_LEVEL_VALUES = Object.freeze(["warn", "stop"] as const);
/** `reason` of `budget_stops_total`: the budget stop reasons. */
export const BUDGET_STOP_REASON_VALUES = Object.freeze(["max_steps", "time_budget", "token_budget", "cost_budget"] as const);
/** `type` of `tokens_total`. */
export const TOKEN_TYPE_VALUES = Object.freeze(["input", "output"] as const);

/** The `tool` label value of a tool name no agent registered (an invented name, a typo): one fixed value, never learned. */
export const UNREGISTERED_TOOL_LABEL = "unregistered";
/** @deprecated The same value as {@link UNREGISTERED_TOOL_LABEL} (`"unregistered"`; it was `"unknown"`). */
export const UNKNOWN_TOOL_LABEL = UNREGISTERED_TOOL_LABEL;
/** The label value used for a parse reason or repair kind outside the allowed set. */
export const OTHER_LABEL = "other";

/** One catalog entry with its label names as a type, so instruments are typed from the catalog. */
export interface TypedAgentMetricDefinition<Type extends AgentMetricType, Label extends string> extends AgentMetricDefinition {
  readonly type: Type;
  readonly labelNames: readonly Label[];
}

function define<Type extends AgentMetricType, Label extends string = never>(
  name: string,
  type: Type,
  help: string,
  labelNames: readonly Label[],
  labelValues: Partial<Record<Label, readonly string[]>> = {},
  buckets?: AgentMetricDefinition["buckets"],
): TypedAgentMetricDefinition<Type, Label> {
  return Object.freeze({
    name,
    type,
    help,
    labelNames: Object.freeze([...labelNames]),
    labelValues: Object.freeze({ ...labelValues }) as Readonly<Record<string, readonly string[]>>,
    ...(buckets === undefined ? {} : { buckets }),
  });
}

/**
 * Every metric, keyed by the property name it has on the object `createAgentMetrics` returns.
 * Follows the Prometheus naming conventions (base units, `_total` for counters, `_seconds`).
 */
export const AGENT_METRIC_CATALOG = Object.freeze({
  runsTotal: define("runs_total", "counter", "Agent runs finished, by status.", ["status"], {
    status: RUN_STATUSES,
  }),
  runsInProgress: define("runs_in_progress", "gauge", "Agent runs started and not yet finished.", []),
  runDurationSeconds: define(
    "run_duration_seconds",
    "histogram",
    "Wall time of whole agent runs in seconds, by status.",
    ["status"],
    { status: RUN_STATUSES },
  ),
  stepsTotal: define(
    "steps_total",
    "counter",
    "ReAct steps seen: thought (one per model turn), action (a parsed tool call), observation (a tool result), finish (the model's final answer; a graceful stop is counted by stops_total).",
    ["step"],
    { step: STEP_KINDS },
  ),
  stepDurationSeconds: define(
    "step_duration_seconds",
    "histogram",
    "Duration of step phases in seconds: llm (one model call), tool (one tool call), cycle (one whole Thought-Action-Observation turn).",
    ["phase"],
    { phase: STEP_PHASES },
  ),
  toolCallsTotal: define("tool_calls_total", "counter", "Tool calls settled, by tool and outcome.", ["tool", "outcome"], {
    outcome: TOOL_CALL_OUTCOMES,
  }),
  toolDurationSeconds: define(
    "tool_duration_seconds",
    "histogram",
    "Wall time of tool calls in seconds including retries, by tool.",
    ["tool"],
  ),
  toolRetriesTotal: define("tool_retries_total", "counter", "Tool call retries started, by tool.", ["tool"]),
  toolCacheErrorsTotal: define(
    "tool_cache_errors_total",
    "counter",
    "Result-cache store operations that failed or timed out (the call ran uncached), by tool and operation.",
    ["tool", "operation"],
    { operation: ["get", "set"] },
  ),
  circuitStoreErrorsTotal: define(
    "circuit_store_errors_total",
    "counter",
    "Shared circuit store operations that failed or timed out (the replica's local breaker decided), by tool and operation.",
    ["tool", "operation"],
    { operation: ["acquire", "record"] },
  ),
  storeOutagesTotal: define(
    "store_outages_total",
    "counter",
    "Outages of a shared store (result cache, circuit breaker, rate limiter: e.g. Redis): counted at the first failed operation after it last worked.",
    ["store"],
    { store: SHARED_STORE_KINDS },
  ),
  storeDown: Object.freeze({
    ...define("store_down", "gauge", "1 while a shared store is down (from its first failed operation to its first working one), else 0.", ["store"], { store: SHARED_STORE_KINDS }),
    aggregator: "max" as const,
  }),
  circuitState: Object.freeze({
    ...define("circuit_state", "gauge", "Circuit breaker state per tool: 0 closed, 1 half-open, 2 open.", ["tool"]),
    aggregator: "max" as const,
  }),
  parsingErrorsTotal: define(
    "parsing_errors_total",
    "counter",
    "Model outputs the parser rejected (a corrective observation was sent back), by reason.",
    ["reason"],
  ),
  secretsRedactedTotal: define(
    "secrets_redacted_total",
    "counter",
    "Secrets redacted before text left the process (audit trail, OpenTelemetry content, failure previews), by kind and surface.",
    ["kind", "surface"],
    { kind: SECRET_KINDS, surface: SECRET_REDACTION_SURFACES },
  ),
  parserRepairsTotal: define(
    "parser_repairs_total",
    "counter",
    "Repairs the parser applied to read a model output, by repair kind.",
    ["repair"],
  ),
  observationChars: define(
    "observation_chars",
    "histogram",
    "Size of tool observations in characters, before (raw) and after (clean) cleaning.",
    ["stage"],
    { stage: OBSERVATION_STAGE_VALUES },
    "observationCharBuckets",
  ),
  observationTruncationsTotal: define(
    "observation_truncations_total",
    "counter",
    "Observations the cleaner truncated to fit its budget, by tool.",
    ["tool"],
  ),
  loopDetectionsTotal: define(
    "loop_detections_total",
    "counter",
    "Loop detector firings, by kind (repeat, cycle, stall) and level (warn, stop).",
    ["kind", "level"],
    { kind: LOOP_KINDS, level: LOOP_LEVEL_VALUES },
  ),
  budgetStopsTotal: define(
    "budget_stops_total",
    "counter",
    "Agent runs stopped by a budget, by the budget's scope (run, thread, user) and stop reason.",
    ["scope", "reason"],
    { scope: BUDGET_SCOPES, reason: BUDGET_STOP_REASON_VALUES },
  ),
  stopsTotal: define("stops_total", "counter", "Agent runs ended, by stop reason.", ["reason"], {
    reason: STOP_REASONS,
  }),
  tokensTotal: define(
    "tokens_total",
    "counter",
    "LLM tokens used (measured, or estimated when the provider reports none), by type.",
    ["type"],
    { type: TOKEN_TYPE_VALUES },
  ),
});

/** The keys of {@link AGENT_METRIC_CATALOG}. */
export type AgentMetricKey = keyof typeof AGENT_METRIC_CATALOG;
