/**
 * Typed events every Reins piece emits. `@reins/metrics` turns them into Prometheus samples; any
 * other sink (a logger, an audit trail) can consume them too. No piece imports another: they share
 * these shapes only.
 */

import { redactRecord } from "./redact-event";
import { DEFAULT_SECRET_REDACTOR, type SecretRedactor } from "./secret-redaction";

// Each closed set of values is defined once, here, as a frozen list; its type is derived from the
// list. `@reins/metrics` uses the same lists as its closed label values.

/** Every {@link StopReason}, in catalog order. */
export const STOP_REASONS = Object.freeze([
  "final_answer",
  "max_steps",
  "time_budget",
  "token_budget",
  "cost_budget",
  "repeat",
  "cycle",
  "stall",
  "error",
  "state_tampered",
] as const);
/** Why a run ended. Mirrors the `stopReason` the executor's returned values carry. */
export type StopReason = (typeof STOP_REASONS)[number];

/** Every {@link BudgetScope}. */
export const BUDGET_SCOPES = Object.freeze(["run", "thread", "user"] as const);
/** What a budget counts over: one run, all runs of a thread, or all of a user's threads. */
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

/** Every {@link LoopKind}. */
export const LOOP_KINDS = Object.freeze(["repeat", "cycle", "stall"] as const);
/** The kinds of loop a detector reports. */
export type LoopKind = (typeof LOOP_KINDS)[number];

/** Every {@link ToolCallOutcome}. */
export const TOOL_CALL_OUTCOMES = Object.freeze([
  "success",
  "error",
  "timeout",
  "circuit_open",
  "rejected",
  "fallback",
  "cached",
  "dry_run",
  "invalid_input",
  "in_doubt",
] as const);
/** What a tool call ended as (the `outcome` label of `tool_calls_total`). */
export type ToolCallOutcome = (typeof TOOL_CALL_OUTCOMES)[number];

/** Every {@link CircuitState}, in gauge order (0 closed, 1 half-open, 2 open). */
export const CIRCUIT_STATES = Object.freeze(["closed", "half_open", "open"] as const);
/** State of a tool's circuit breaker (the `circuit_state` gauge: 0 closed, 1 half-open, 2 open). */
export type CircuitState = (typeof CIRCUIT_STATES)[number];

/** Every {@link StepKind}. */
export const STEP_KINDS = Object.freeze(["thought", "action", "observation", "finish"] as const);
/** The step kinds counted by `steps_total`. */
export type StepKind = (typeof STEP_KINDS)[number];

/** Every {@link StepPhase}. */
export const STEP_PHASES = Object.freeze(["llm", "tool", "cycle"] as const);
/** The phases timed by `step_duration_seconds`. */
export type StepPhase = (typeof STEP_PHASES)[number];

/** Every {@link RunStatus}. */
export const RUN_STATUSES = Object.freeze(["success", "error", "stopped"] as const);
/** How a run ended (the `status` label of `runs_total`). */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The parser applied a repair to read the model's text. */
export interface ParserRepairEvent {
  readonly type: "parser_repair";
  /** A short, bounded identifier such as `markdown_labels`, `json_repair`, `tool_name_case`. */
  readonly repair: string;
  readonly detail?: string;
  /** The top-level run the parsed reply belongs to, when the parser was told (see `ParseContext.runId`). */
  readonly runId?: string;
  /**
   * The id of the one tool call of the reply the repair was applied to (`createAgent`: a call's
   * name or arguments repaired, a call rescued from text); absent for a repair of the reply as a
   * whole. The audit shows the repair on that call alone.
   */
  readonly toolCallId?: string;
}

/**
 * Secrets were redacted before text left the process (see `createSecretRedactor`): counted by
 * `secrets_redacted_total`, like a repair, so a redaction is never silent.
 */
export interface SecretRedactionEvent {
  readonly type: "secret_redaction";
  /**
   * Where: an event as it was emitted (`event`: every recorder and `onEvent` listener), a log line
   * (`log`), the audit trail, OpenTelemetry content attributes, or text the model reads (`preview`:
   * a failure observation, or a tool result with `redactToolResults`).
   */
  readonly surface: "event" | "log" | "audit" | "otel" | "preview";
  /** The kind of each secret removed, one entry per match (`openai_api_key`, `authorization`, …). */
  readonly kinds: readonly string[];
  readonly runId?: string;
}

/** The parser rejected the model's text and sent a corrective observation back. */
export interface ParserErrorEvent {
  readonly type: "parser_error";
  /** A short, bounded identifier such as `missing_action_input`, `unknown_tool`. */
  readonly reason: string;
  readonly message: string;
  /** The top-level run the rejected reply belongs to, when the parser was told. */
  readonly runId?: string;
  /**
   * The model's rejected reply. Content: set only when a target asks for it (see
   * {@link ReinsEventRecorder.captureContent}).
   */
  readonly llmOutput?: string;
}

/**
 * A tool call started (emitted by the ToolExecutor before validation, once per call, not per
 * attempt). Its `tool_call` event follows when it settles, with the same `callId`. A sink that
 * shows calls as they run (a progress line, `reins-trace --follow`) uses it; the metrics ignore it.
 */
export interface ToolStartEvent {
  readonly type: "tool_start";
  readonly toolName: string;
  /** Pairs this start with the call's `tool_call` event; unique within one ToolExecutor. */
  readonly callId: string;
  readonly runId?: string;
  /** The input as the model gave it. Content: set only when a target asks for it. */
  readonly toolInput?: unknown;
}

/** One tool call settled. */
export interface ToolCallEvent {
  readonly type: "tool_call";
  readonly toolName: string;
  readonly outcome: ToolCallOutcome;
  /** Wall time of the whole call including retries, in milliseconds. */
  readonly durationMs: number;
  /** The typed error behind a failure, timeout, rejection or fallback. */
  readonly error?: Error;
  readonly runId?: string;
  /**
   * The input the tool was called with. Content: set only when a target asks for it (see
   * {@link ReinsEventRecorder.captureContent}).
   */
  readonly toolInput?: unknown;
  /** The observation the model got back. Content: set only when a target asks for it. */
  readonly observation?: string;
  /** The `callId` of the call's {@link ToolStartEvent}, when its emitter sent one. */
  readonly callId?: string;
}

/** A tool call is being retried. */
export interface ToolRetryEvent {
  readonly type: "tool_retry";
  readonly toolName: string;
  /** The attempt about to start (2 for the first retry). */
  readonly attempt: number;
  readonly delayMs: number;
  readonly error?: Error;
  /** The top-level run of the call being retried. */
  readonly runId?: string;
}

/**
 * A result-cache store operation failed or timed out (Redis down or slow…); the call went on as
 * if uncached.
 */
export interface ToolCacheErrorEvent {
  readonly type: "tool_cache_error";
  readonly toolName: string;
  readonly operation: "get" | "set";
  readonly error: Error;
  readonly runId?: string;
}

/** A tool's circuit breaker changed state. */
export interface CircuitStateEvent {
  readonly type: "circuit_state";
  readonly toolName: string;
  readonly state: CircuitState;
  /**
   * With `state: "open"`: how long the breaker waits, in milliseconds, before it lets one probe
   * call through. Once that has passed, the breaker is half-open in effect (the next call is the
   * probe), even though no event says so until a call arrives.
   */
  readonly halfOpenAfterMs?: number;
  /**
   * The top-level run whose call changed the state (with concurrent calls of one tool, the run of
   * the latest call started).
   */
  readonly runId?: string;
}

/**
 * The shared store of a tool's circuit breaker (`circuitBreaker.store`, e.g. `RedisCircuitStore`)
 * failed or ran out of time: this replica decided the call with its own local breaker instead.
 * Emitted once per failed store operation.
 */
export interface CircuitStoreErrorEvent {
  readonly type: "circuit_store_error";
  readonly toolName: string;
  /** `acquire`: asking whether the call may pass; `record`: reporting how it ended. */
  readonly operation: "acquire" | "record";
  readonly error: Error;
  readonly runId?: string;
}

/** The shared stores a ToolExecutor uses, as `store_outage` names them (a bounded label). */
export const SHARED_STORE_KINDS = Object.freeze(["result_store", "circuit_store", "rate_limiter"] as const);
/** A shared store: the result cache's store, a shared breaker's store, or a rate limiter's store. */
export type SharedStoreKind = (typeof SHARED_STORE_KINDS)[number];

/**
 * A shared store (e.g. Redis behind `RedisResultStore`, `RedisCircuitStore` or a
 * `RateLimiterRedis`) went down or works again, as seen from failed and working operations: `down`
 * at the first failed operation after it last worked, `recovered` at the first working one after
 * that. One of each per outage (per store object, per process), however many calls failed between.
 */
export interface StoreOutageEvent {
  readonly type: "store_outage";
  readonly store: SharedStoreKind;
  readonly status: "down" | "recovered";
  /** The tool whose call found the store down, or working again. */
  readonly toolName: string;
  /** `down`: the operation that failed first (`get`, `set`, `acquire`, `record`, `consume`, `block`). */
  readonly operation?: string;
  /** `down`: the first failure. */
  readonly error?: Error;
  /** `recovered`: how long the store was down, in milliseconds. */
  readonly downMs?: number;
  /** `recovered`: operations that failed during the outage. */
  readonly failedOperations?: number;
  readonly runId?: string;
}

/** A raw tool result was cleaned into an observation. */
export interface ObservationCleanedEvent {
  readonly type: "observation_cleaned";
  readonly toolName?: string;
  readonly rawChars: number;
  readonly cleanChars: number;
  readonly tokens?: number;
  readonly truncated: boolean;
  readonly notes: readonly string[];
  /** The top-level run whose tool result was cleaned, when known. */
  readonly runId?: string;
}

/** A top-level run started. */
export interface RunStartEvent {
  readonly type: "run_start";
  readonly runId: string;
  /** The run's input (the question). Content: set only when a target asks for it. */
  readonly input?: unknown;
}

/** A top-level run ended. */
export interface RunEndEvent {
  readonly type: "run_end";
  readonly runId: string;
  readonly status: RunStatus;
  readonly stopReason: StopReason;
  /** For a budget stop (`max_steps`, `token_budget`, `cost_budget`) beyond the run: the budget's scope. Unset: the run's own. */
  readonly scope?: BudgetScope;
  readonly durationMs: number;
  /** The run's final answer. Content: set only when a target asks for it. */
  readonly output?: string;
}

/** One step of a run was observed. */
export interface StepEvent {
  readonly type: "step";
  readonly runId: string;
  readonly step: StepKind;
}

/** A phase of a step took this long. */
export interface StepDurationEvent {
  readonly type: "step_duration";
  readonly runId: string;
  readonly phase: StepPhase;
  readonly durationMs: number;
}

/** Token usage of one LLM call (measured, or estimated when the provider gives none). */
export interface TokenUsageEvent {
  readonly type: "token_usage";
  readonly runId: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly estimated: boolean;
}

/** A loop detector fired. */
export interface LoopDetectionEvent {
  readonly type: "loop_detection";
  readonly runId: string;
  readonly kind: LoopKind;
  readonly level: "warn" | "stop";
}

/**
 * The guard state a run resumed from (a checkpoint's run record and the outcomes beside it) was
 * refused or rebuilt: `tampered` (a signature that does not verify, or signed state removed while
 * its messages stayed; the run stops with `stopReason` `state_tampered`), or `legacy_adopted` (a
 * checkpoint saved before Reins kept a record: its counts were rebuilt from its messages).
 */
export interface RunStateEvent {
  readonly type: "run_state";
  readonly runId: string;
  readonly verdict: "tampered" | "legacy_adopted";
  /** What was found, one sentence for operators (no message content). */
  readonly reason: string;
}

/** Every event Reins emits. */
export type ReinsEvent =
  | ParserRepairEvent
  | SecretRedactionEvent
  | ParserErrorEvent
  | ToolStartEvent
  | ToolCallEvent
  | ToolRetryEvent
  | ToolCacheErrorEvent
  | CircuitStateEvent
  | CircuitStoreErrorEvent
  | StoreOutageEvent
  | ObservationCleanedEvent
  | RunStartEvent
  | RunEndEvent
  | StepEvent
  | StepDurationEvent
  | TokenUsageEvent
  | LoopDetectionEvent
  | RunStateEvent;

/**
 * Anything that records Reins events: `createAgentMetrics()` returns one; a plain
 * `{ record: (event) => console.log(event) }` is another. Every piece's `metrics` option takes it.
 */
export interface ReinsEventRecorder {
  record(event: ReinsEvent): void;
  /**
   * True when this recorder wants content in events: prompts, model replies, tool inputs and
   * observations (the optional content fields of {@link ReinsEvent}). Pieces include content only
   * when some target sets this (OpenTelemetry GenAI: content capture is opt-in).
   * @default undefined (no content)
   */
  readonly captureContent?: boolean;
  /**
   * Registers an agent's tool names as the values its `tool` label may take (Prometheus: bounded
   * labels). Agents call it as they are built, with their own tools (`createReactAgent`, the
   * ToolExecutor as it wraps a tool, the `createAgent` middleware from the model request's tools);
   * a recorder shared by several agents learns each one's. Any other name is recorded as one fixed
   * value (`unregistered`), never learned.
   * @param toolNames - the agent's tool names
   */
  registerTools?(toolNames: readonly string[]): void;
}

/**
 * True when any of `targets` asks for content ({@link ReinsEventRecorder.captureContent}). A piece
 * calls it before putting prompts, replies, tool inputs or observations in an event.
 *
 * @param targets - the recorders and listeners the piece emits to; functions never ask for content
 */
export function wantsContent(targets: ReadonlyArray<ReinsEventRecorder | ReinsEventListener | undefined>): boolean {
  return targets.some((target) => typeof target === "object" && target !== null && target.captureContent === true);
}

/** A function that receives Reins events (the `onEvent` option of every piece). */
export type ReinsEventListener = (event: ReinsEvent) => void;

/**
 * Sends one event to every given recorder and listener, redacted first: every piece emits through
 * here, so secrets are redacted once, before any event leaves Reins, whatever its target (a
 * recorder that captures content, an `onEvent` listener, the audit trail, OpenTelemetry). Text
 * fields, tool inputs, observations and errors (message, stack, fields, `cause`) pass `redactor`;
 * when it removed something, a `secret_redaction` event (`surface: "event"`) follows, so a
 * redaction is never silent. A recorder or listener that throws must never break the agent, so its
 * error is reported to `onError` (default: ignored) and the others still run.
 *
 * @param event - the event to deliver
 * @param targets - recorders and listeners; `undefined` entries are skipped
 * @param onError - called with any error a target throws
 * @param redactor - the piece's redactor (its `secretRedaction` option)
 * @default redactor DEFAULT_SECRET_REDACTOR (every default pattern, on)
 */
export function emitEvent(
  event: ReinsEvent,
  targets: ReadonlyArray<ReinsEventRecorder | ReinsEventListener | undefined>,
  onError?: (error: unknown) => void,
  redactor: SecretRedactor = DEFAULT_SECRET_REDACTOR,
): void {
  if (event.type === "secret_redaction") {
    deliver(event, targets, onError);
    return;
  }
  const { value, kinds } = redactRecord(event, redactor);
  deliver(value, targets, onError);
  if (kinds.length > 0) {
    const runId = "runId" in event && typeof event.runId === "string" ? event.runId : undefined;
    deliver({ type: "secret_redaction", surface: "event", kinds, ...(runId !== undefined ? { runId } : {}) }, targets, onError);
  }
}

function deliver(event: ReinsEvent, targets: ReadonlyArray<ReinsEventRecorder | ReinsEventListener | undefined>, onError?: (error: unknown) => void): void {
  for (const target of targets) {
    if (target === undefined) continue;
    try {
      if (typeof target === "function") target(event);
      else target.record(event);
    } catch (error) {
      onError?.(error);
    }
  }
}
