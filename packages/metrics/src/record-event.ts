import type { CircuitState, ReinsEvent } from "@reins/core";
import type { BoundedLabel } from "./bounded-label";
import type { AgentMetricInstruments } from "./instruments";
import { AGENT_METRIC_CATALOG, BUDGET_STOP_REASON_VALUES, OTHER_LABEL } from "./metric-catalog";

/** What a per-event recorder writes to, besides the instruments. */
export interface RecordContext {
  readonly instruments: AgentMetricInstruments;
  /** The bounded `tool` label of a tool name. */
  readonly toolLabel: (toolName: string | undefined) => string;
  readonly reasonLabels: BoundedLabel;
  readonly repairLabels: BoundedLabel;
  /** Per tool label: when (epoch ms) an open circuit turns half-open, read at scrape time. */
  readonly halfOpenDueAtMs: Map<string, number>;
  readonly now: () => number;
}

/** The value `circuit_state` exports for each breaker state. */
export const CIRCUIT_STATE_VALUE: Readonly<Record<CircuitState, number>> = Object.freeze({ closed: 0, half_open: 1, open: 2 });

type EventOf<Type extends ReinsEvent["type"]> = Extract<ReinsEvent, { type: Type }>;

/** One recorder per event type: the event → sample mapping. */
export type EventRecorders = {
  readonly [Type in ReinsEvent["type"]]: (event: EventOf<Type>, context: RecordContext) => void;
};

const catalog = AGENT_METRIC_CATALOG;

/** `value` when it is one of the catalog's closed `label` values of `definition`, else `other`. */
function closed(definition: { readonly labelValues: Readonly<Record<string, readonly string[]>> }, label: string, value: string | undefined): string {
  return (definition.labelValues[label] ?? []).includes(value ?? "") ? (value as string) : OTHER_LABEL;
}

function nonNegative(value: number): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * How each Reins event becomes samples. A NaN or negative duration, size or token count is not
 * observed (the event is still counted); closed labels outside their set are `other`.
 */
export const EVENT_RECORDERS: EventRecorders = Object.freeze({
  parser_repair: (event, { instruments, repairLabels }) => {
    instruments.parserRepairsTotal.inc({ repair: repairLabels.valueOf(event.repair) });
  },
  secret_redaction: (event, { instruments }) => {
    const surface = closed(catalog.secretsRedactedTotal, "surface", event.surface);
    for (const kind of event.kinds) instruments.secretsRedactedTotal.inc({ kind: closed(catalog.secretsRedactedTotal, "kind", kind), surface });
  },
  parser_error: (event, { instruments, reasonLabels }) => {
    instruments.parsingErrorsTotal.inc({ reason: reasonLabels.valueOf(event.reason) });
  },
  tool_call: (event, { instruments, toolLabel }) => {
    const tool = toolLabel(event.toolName);
    instruments.toolCallsTotal.inc({ tool, outcome: closed(catalog.toolCallsTotal, "outcome", event.outcome) });
    const durationMs = nonNegative(event.durationMs);
    if (durationMs !== undefined) instruments.toolDurationSeconds.observe({ tool }, durationMs / 1000);
  },
  // A call in progress: its duration and outcome are counted at its `tool_call` event.
  tool_start: () => undefined,
  tool_retry: (event, { instruments, toolLabel }) => {
    instruments.toolRetriesTotal.inc({ tool: toolLabel(event.toolName) });
  },
  tool_cache_error: (event, { instruments, toolLabel }) => {
    instruments.toolCacheErrorsTotal.inc({ tool: toolLabel(event.toolName), operation: event.operation === "set" ? "set" : "get" });
  },
  circuit_state: (event, { instruments, toolLabel, halfOpenDueAtMs, now }) => {
    const value = CIRCUIT_STATE_VALUE[event.state];
    if (value === undefined) return;
    const tool = toolLabel(event.toolName);
    instruments.circuitState.set({ tool }, value);
    const waitMs = event.state === "open" ? nonNegative(event.halfOpenAfterMs ?? Number.NaN) : undefined;
    if (waitMs !== undefined) halfOpenDueAtMs.set(tool, now() + waitMs);
    else halfOpenDueAtMs.delete(tool);
  },
  // A shared breaker's store failed: the replica's local breaker decided the call.
  circuit_store_error: (event, { instruments, toolLabel }) => {
    instruments.circuitStoreErrorsTotal.inc({ tool: toolLabel(event.toolName), operation: event.operation === "record" ? "record" : "acquire" });
  },
  // A shared store went down or works again (one event each per outage).
  store_outage: (event, { instruments }) => {
    const store = closed(catalog.storeOutagesTotal, "store", event.store);
    if (event.status === "down") {
      instruments.storeOutagesTotal.inc({ store });
      instruments.storeDown.set({ store }, 1);
    } else if (event.status === "recovered") instruments.storeDown.set({ store }, 0);
  },
  observation_cleaned: (event, { instruments, toolLabel }) => {
    const [raw, clean] = catalog.observationChars.labelValues.stage ?? [];
    const rawChars = nonNegative(event.rawChars);
    const cleanChars = nonNegative(event.cleanChars);
    if (rawChars !== undefined) instruments.observationChars.observe({ stage: raw }, rawChars);
    if (cleanChars !== undefined) instruments.observationChars.observe({ stage: clean }, cleanChars);
    if (event.truncated) instruments.observationTruncationsTotal.inc({ tool: toolLabel(event.toolName) });
  },
  run_start: (_event, { instruments }) => {
    instruments.runsInProgress.inc();
  },
  run_end: (event, { instruments }) => {
    const status = closed(catalog.runsTotal, "status", event.status);
    instruments.runsInProgress.dec();
    instruments.runsTotal.inc({ status });
    const durationMs = nonNegative(event.durationMs);
    if (durationMs !== undefined) instruments.runDurationSeconds.observe({ status }, durationMs / 1000);
    instruments.stopsTotal.inc({ reason: closed(catalog.stopsTotal, "reason", event.stopReason) });
    if ((BUDGET_STOP_REASON_VALUES as readonly string[]).includes(event.stopReason)) {
      instruments.budgetStopsTotal.inc({ scope: closed(catalog.budgetStopsTotal, "scope", event.scope ?? "run"), reason: closed(catalog.budgetStopsTotal, "reason", event.stopReason) });
    }
  },
  step: (event, { instruments }) => {
    instruments.stepsTotal.inc({ step: closed(catalog.stepsTotal, "step", event.step) });
  },
  step_duration: (event, { instruments }) => {
    const durationMs = nonNegative(event.durationMs);
    if (durationMs === undefined) return;
    instruments.stepDurationSeconds.observe({ phase: closed(catalog.stepDurationSeconds, "phase", event.phase) }, durationMs / 1000);
  },
  token_usage: (event, { instruments }) => {
    const inputTokens = nonNegative(event.inputTokens);
    const outputTokens = nonNegative(event.outputTokens);
    if (inputTokens) instruments.tokensTotal.inc({ type: "input" }, inputTokens);
    if (outputTokens) instruments.tokensTotal.inc({ type: "output" }, outputTokens);
  },
  // A refused or rebuilt run state: a refusal ends the run, counted by stops_total{reason="state_tampered"}.
  run_state: () => undefined,
  loop_detection: (event, { instruments }) => {
    instruments.loopDetectionsTotal.inc({
      kind: closed(catalog.loopDetectionsTotal, "kind", event.kind),
      level: closed(catalog.loopDetectionsTotal, "level", event.level),
    });
  },
});

/**
 * Records `event` with its recorder; an event type this copy does not know (from a newer
 * `@reins/core`) is ignored.
 */
export function recordEvent(event: ReinsEvent, context: RecordContext): void {
  const recorder = (EVENT_RECORDERS as Partial<Record<string, (event: ReinsEvent, context: RecordContext) => void>>)[event.type];
  if (Object.prototype.hasOwnProperty.call(EVENT_RECORDERS, event.type)) recorder?.(event, context);
}
