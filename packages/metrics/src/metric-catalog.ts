/**
 * The catalog of every Prometheus metric Reins exports: names (without prefix), types, help
 * texts, label names and, for closed label sets, every allowed value. `createAgentMetrics`
 * builds its instruments from it and `docs/metrics.md` documents it one entry for one.
 */

import { LOOP_KINDS, RUN_STATUSES, STEP_KINDS, STEP_PHASES, STOP_REASONS, TOOL_CALL_OUTCOMES } from "@reins/core";

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
   * parse reasons, repairs): see `createAgentMetrics`.
   */
  readonly labelValues: Readonly<Record<string, readonly string[]>>;
}

/** `status` of `runs_total` and `run_duration_seconds` (`@reins/core`'s `RUN_STATUSES`). */
export const RUN_STATUS_VALUES = RUN_STATUSES;
/** `step` of `steps_total` (`@reins/core`'s `STEP_KINDS`). */
export const STEP_VALUES = STEP_KINDS;
/** `phase` of `step_duration_seconds` (`@reins/core`'s `STEP_PHASES`). */
export const PHASE_VALUES = STEP_PHASES;
/** `outcome` of `tool_calls_total` (`@reins/core`'s `TOOL_CALL_OUTCOMES`). */
export const TOOL_OUTCOME_VALUES = TOOL_CALL_OUTCOMES;
/** `stage` of `observation_chars`. */
export const OBSERVATION_STAGE_VALUES = Object.freeze(["raw", "clean"] as const);
/** `kind` of `loop_detections_total` (`@reins/core`'s `LOOP_KINDS`). */
export const LOOP_KIND_VALUES = LOOP_KINDS;
/** `level` of `loop_detections_total`. */
export const LOOP_LEVEL_VALUES = Object.freeze(["warn", "stop"] as const);
/** `reason` of `stops_total` (`@reins/core`'s `STOP_REASONS`). */
export const STOP_REASON_VALUES = STOP_REASONS;
/** `type` of `tokens_total`. */
export const TOKEN_TYPE_VALUES = Object.freeze(["input", "output"] as const);

/** The label value used for a tool name that is not registered. */
export const UNKNOWN_TOOL_LABEL = "unknown";
/** The label value used for a parse reason or repair kind outside the allowed set. */
export const OTHER_LABEL = "other";

function define(
  name: string,
  type: AgentMetricType,
  help: string,
  labelNames: readonly string[],
  labelValues: Record<string, readonly string[]> = {},
): AgentMetricDefinition {
  return Object.freeze({
    name,
    type,
    help,
    labelNames: Object.freeze([...labelNames]),
    labelValues: Object.freeze({ ...labelValues }),
  });
}

/**
 * Every metric, keyed by the property name it has on the object `createAgentMetrics` returns.
 * Follows the Prometheus naming conventions (base units, `_total` for counters, `_seconds`).
 */
export const AGENT_METRIC_CATALOG = Object.freeze({
  runsTotal: define("runs_total", "counter", "Agent runs finished, by status.", ["status"], {
    status: RUN_STATUS_VALUES,
  }),
  runsInProgress: define("runs_in_progress", "gauge", "Agent runs started and not yet finished.", []),
  runDurationSeconds: define(
    "run_duration_seconds",
    "histogram",
    "Wall time of whole agent runs in seconds, by status.",
    ["status"],
    { status: RUN_STATUS_VALUES },
  ),
  stepsTotal: define(
    "steps_total",
    "counter",
    "ReAct steps seen: thought (one per model turn), action (a parsed tool call), observation (a tool result), finish (the model's final answer; a graceful stop is counted by stops_total).",
    ["step"],
    { step: STEP_VALUES },
  ),
  stepDurationSeconds: define(
    "step_duration_seconds",
    "histogram",
    "Duration of step phases in seconds: llm (one model call), tool (one tool call), cycle (one whole Thought-Action-Observation turn).",
    ["phase"],
    { phase: PHASE_VALUES },
  ),
  toolCallsTotal: define("tool_calls_total", "counter", "Tool calls settled, by tool and outcome.", ["tool", "outcome"], {
    outcome: TOOL_OUTCOME_VALUES,
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
  circuitState: define(
    "circuit_state",
    "gauge",
    "Circuit breaker state per tool: 0 closed, 1 half-open, 2 open.",
    ["tool"],
  ),
  parsingErrorsTotal: define(
    "parsing_errors_total",
    "counter",
    "Model outputs the parser rejected (a corrective observation was sent back), by reason.",
    ["reason"],
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
    { kind: LOOP_KIND_VALUES, level: LOOP_LEVEL_VALUES },
  ),
  stopsTotal: define("stops_total", "counter", "Agent runs ended, by stop reason.", ["reason"], {
    reason: STOP_REASON_VALUES,
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
