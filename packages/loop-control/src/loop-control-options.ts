import type { ReinsEventListener, ReinsEventRecorder, RunContextStore, SecretRedactionOptions } from "@reins/core";
import type { CycleDetectorOptions, RepeatDetectorOptions, StallDetectorOptions } from "./detectors";
import type { LoopAuditRecord, LoopAuditSink } from "./audit";
import { LoopControlOptionsError } from "./errors";

/** Price of one model, in US dollars per million tokens. */
export interface ModelPrice {
  readonly inputUsdPerMillionTokens: number;
  readonly outputUsdPerMillionTokens: number;
}

/** The audit trail: one JSON record per step. */
export interface LoopAuditOptions {
  /** A function receiving each record, or a stream-like object receiving one JSON line per record. */
  sink: LoopAuditSink;
  /**
   * Rewrites each record before it is written (drop or mask the thought, tool input, …).
   * @default identity
   */
  redact?: (record: LoopAuditRecord) => LoopAuditRecord;
  /**
   * Secrets redacted from every string of each record after `redact` (provider API keys, bearer
   * tokens, credentials in URLs, cloud keys, JWTs, private keys; see `createSecretRedactor` of
   * `@reins/core`), each counted as a `secret_redaction` event (`surface: "audit"`). Add patterns
   * with `{ patterns }`; `false` writes secrets verbatim.
   * @default {} (the default patterns, on)
   */
  secretRedaction?: SecretRedactionOptions | false;
}

/** Options of `LoopControlHandler`. Every field is optional. */
export interface LoopControlOptions {
  /**
   * `"throw"`: stop a run by throwing `LoopStoppedError` / `BudgetExceededError` from an awaited
   * callback (works with a stock `AgentExecutor`). `"finish"`: only record the decision in
   * `RunContext.loop.stop`; Reins' agent then returns a graceful `AgentFinish`.
   * @default "throw"
   */
  mode?: "throw" | "finish";
  /**
   * The run-context store shared with the other pieces (Reins' `createReactAgent` passes one).
   * @default a store of the handler's own
   */
  runContext?: RunContextStore;
  /**
   * Receives the handler's events (`run_start`, `run_end`, `step`, `step_duration`,
   * `token_usage`, `loop_detection`), e.g. `createAgentMetrics()` from `@reins/metrics`.
   * @default undefined (no recorder)
   */
  metrics?: ReinsEventRecorder;
  /**
   * Also receives every event.
   * @default undefined
   */
  onEvent?: ReinsEventListener;
  /**
   * The repeat detector (fields merged over the defaults), or `false` to turn it off.
   * @default { warnAt: 2, stopAt: 3, requireSameObservation: true, pollingTools: [], window: 20 }
   */
  repeat?: Partial<RepeatDetectorOptions> | false;
  /**
   * The cycle detector (fields merged over the defaults), or `false` to turn it off.
   * @default { minPeriod: 2, maxPeriod: 5, warnRepetitions: 2, stopRepetitions: 3, window: 20 }
   */
  cycle?: Partial<CycleDetectorOptions> | false;
  /**
   * The stall detector (fields merged over the defaults), or `false` to turn it off.
   * @default { warnAt: 3, stopAt: 5, window: 6, maxDistance: 6, minWords: 4, requireStaleObservation: true }
   */
  stall?: Partial<StallDetectorOptions> | false;
  /**
   * Most agent actions per run (parse-error steps included, as AgentExecutor counts them). The
   * run stops after this many; `Infinity` turns the budget off.
   * @default 15 (AgentExecutor's default maxIterations)
   */
  maxSteps?: number;
  /**
   * Longest wall time per run in milliseconds, checked before each model call and each action.
   * @default 600000 (10 minutes)
   */
  maxDurationMs?: number;
  /**
   * Most LLM tokens (input + output) per run; usage from the provider, estimated when absent.
   * @default Infinity
   */
  maxTokens?: number;
  /**
   * Most spend per run in US dollars, computed with `prices`.
   * @default Infinity
   */
  maxCostUsd?: number;
  /**
   * Prices per model name, e.g. `gpt-4o-mini`. Looked up by the name the provider reports
   * (`llmOutput`, the message's `response_metadata.model_name`), then the requested model
   * (`invocation_params.model`); when neither has an entry, by the longest key a name starts with
   * at a `-`, `:`, `@`, `/` or `.` boundary (so `gpt-4o-mini` prices `gpt-4o-mini-2024-07-18`);
   * then key `"*"`. A model without a price costs 0.
   * @default {}
   */
  prices?: Readonly<Record<string, ModelPrice>>;
  /**
   * When a budget is this far used (0..1), the model gets one note to answer soon; 1 turns it off.
   * @default 0.8
   */
  budgetWarnRatio?: number;
  /**
   * Counts tokens of a text when the provider reports no usage.
   * @default characters ÷ 4, rounded up
   */
  estimateTokens?: (text: string) => number;
  /**
   * Tools the repeat, cycle and stall detectors ignore (their steps still count toward `maxSteps`).
   * AgentExecutor's parse-error pseudo-tool is ignored because the parser already answers a
   * repeated format mistake with a corrective observation.
   * @default ["_Exception"]
   */
  ignoreTools?: readonly string[];
  /**
   * Longest preview of an earlier observation quoted in a repeat note, in characters.
   * @default 200
   */
  notePreviewChars?: number;
  /**
   * One structured record per step.
   * @default undefined (no audit trail)
   */
  audit?: LoopAuditOptions;
  /**
   * A run with no callback for this long is treated as abandoned (its end never arrived: a
   * stream the caller stopped reading, a crashed worker): when the next run starts, its state is
   * dropped, a `run_end` event with `status: "error"` is emitted and a `RunEvictedError` goes to
   * `onError`. `Infinity` keeps runs until they end. No timer is used.
   * @default 3600000 (1 hour)
   */
  runIdleTimeoutMs?: number;
  /**
   * Most runs tracked at once; when a new run would exceed it, the least recently active run is
   * evicted as with `runIdleTimeoutMs` (reason `capacity`). `Infinity` turns the cap off.
   * @default 10000
   */
  maxActiveRuns?: number;
  /**
   * Clock in epoch milliseconds.
   * @default Date.now
   */
  now?: () => number;
  /**
   * Receives errors from inside the handler (a bug, a throwing recorder or audit sink). They never
   * stop a run: only the handler's own stop decisions do. If `onError` itself throws, both errors
   * go to a Node.js process warning.
   * @default emits a Node.js process warning
   */
  onError?: (error: unknown) => void;
}

/** Every option resolved. */
export interface ResolvedLoopControlOptions {
  readonly mode: "throw" | "finish";
  readonly runContext: RunContextStore | undefined;
  readonly metrics: ReinsEventRecorder | undefined;
  readonly onEvent: ReinsEventListener | undefined;
  readonly repeat: RepeatDetectorOptions | false;
  readonly cycle: CycleDetectorOptions | false;
  readonly stall: StallDetectorOptions | false;
  readonly maxSteps: number;
  readonly maxDurationMs: number;
  readonly maxTokens: number;
  readonly maxCostUsd: number;
  readonly prices: Readonly<Record<string, ModelPrice>>;
  readonly budgetWarnRatio: number;
  readonly estimateTokens: (text: string) => number;
  readonly ignoreTools: readonly string[];
  readonly notePreviewChars: number;
  readonly audit: LoopAuditOptions | undefined;
  readonly runIdleTimeoutMs: number;
  readonly maxActiveRuns: number;
  readonly now: () => number;
  readonly onError: (error: unknown) => void;
}

/** The default character-based token estimate: characters ÷ 4, rounded up. */
export function estimateTokensFromChars(text: string): number {
  return Math.ceil(text.length / 4);
}

function warnProcess(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.emitWarning(`LoopControlHandler: ${message}`, { code: "REINS_LOOP_CONTROL" });
}

/** Defaults of {@link LoopControlOptions}. */
export const DEFAULT_LOOP_CONTROL_OPTIONS = Object.freeze({
  mode: "throw" as const,
  repeat: Object.freeze<RepeatDetectorOptions>({
    warnAt: 2,
    stopAt: 3,
    requireSameObservation: true,
    pollingTools: Object.freeze([]) as readonly string[],
    window: 20,
  }),
  cycle: Object.freeze<CycleDetectorOptions>({ minPeriod: 2, maxPeriod: 5, warnRepetitions: 2, stopRepetitions: 3, window: 20 }),
  stall: Object.freeze<StallDetectorOptions>({
    warnAt: 3,
    stopAt: 5,
    window: 6,
    maxDistance: 6,
    minWords: 4,
    requireStaleObservation: true,
  }),
  maxSteps: 15,
  maxDurationMs: 600_000,
  maxTokens: Number.POSITIVE_INFINITY,
  maxCostUsd: Number.POSITIVE_INFINITY,
  prices: Object.freeze({}) as Readonly<Record<string, ModelPrice>>,
  budgetWarnRatio: 0.8,
  estimateTokens: estimateTokensFromChars,
  ignoreTools: Object.freeze(["_Exception"]) as readonly string[],
  notePreviewChars: 200,
  runIdleTimeoutMs: 3_600_000,
  maxActiveRuns: 10_000,
  now: Date.now,
  onError: warnProcess,
});

function fail(field: string, value: unknown, reason: string): never {
  throw new LoopControlOptionsError({ field, value, reason });
}

function positiveInteger(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) fail(field, value, "expected an integer ≥ 1");
  return value;
}

function positiveLimit(field: string, value: unknown): number {
  if (typeof value !== "number" || Number.isNaN(value) || value <= 0) fail(field, value, "expected a number > 0 (Infinity turns it off)");
  return value;
}

function optionalFunction<T>(field: string, value: unknown, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== "function") fail(field, value, "expected a function");
  return value as T;
}

/**
 * Merges a detector's fields over its defaults: fields set to `undefined` keep the default, and
 * an unknown field (a typo such as `stopAfter`) fails instead of being ignored.
 */
function mergeDetector<T extends object>(name: string, defaults: T, value: unknown): T {
  if (value !== undefined && (typeof value !== "object" || value === null || Array.isArray(value))) {
    fail(name, value, "expected an object of detector settings, or false to turn the detector off");
  }
  const merged: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [key, field] of Object.entries((value ?? {}) as Record<string, unknown>)) {
    if (!(key in defaults)) fail(`${name}.${key}`, field, `unknown setting; expected one of ${Object.keys(defaults).join(", ")}`);
    if (field !== undefined) merged[key] = field;
  }
  return merged as T;
}

/** A clock must give finite epoch milliseconds, or every time budget would silently never fire. */
function checkClock(now: () => number): () => number {
  const sample: unknown = now();
  if (typeof sample !== "number" || !Number.isFinite(sample)) fail("now", sample, "the clock must return finite epoch milliseconds");
  return now;
}

function resolveRepeat(value: LoopControlOptions["repeat"]): RepeatDetectorOptions | false {
  if (value === false) return false;
  const merged = mergeDetector("repeat", DEFAULT_LOOP_CONTROL_OPTIONS.repeat, value);
  positiveInteger("repeat.warnAt", merged.warnAt);
  positiveInteger("repeat.stopAt", merged.stopAt);
  positiveInteger("repeat.window", merged.window);
  if (merged.stopAt < 2) fail("repeat.stopAt", merged.stopAt, "a repeat needs at least 2 calls");
  if (merged.warnAt > merged.stopAt) fail("repeat.warnAt", merged.warnAt, "must be ≤ repeat.stopAt (equal: stop without a warning)");
  if (typeof merged.requireSameObservation !== "boolean") fail("repeat.requireSameObservation", merged.requireSameObservation, "expected a boolean");
  if (!Array.isArray(merged.pollingTools) || merged.pollingTools.some((name) => typeof name !== "string")) {
    fail("repeat.pollingTools", merged.pollingTools, "expected an array of tool names");
  }
  // Observation-aware counting needs stopAt earlier calls in the window; plain counting stopAt - 1.
  const observationAware = merged.requireSameObservation || merged.pollingTools.length > 0;
  const neededWindow = observationAware ? merged.stopAt : merged.stopAt - 1;
  if (merged.window < neededWindow) {
    fail("repeat.window", merged.window, `must be ≥ ${neededWindow} or a repeat can never reach repeat.stopAt`);
  }
  return Object.freeze({ ...merged, pollingTools: Object.freeze([...merged.pollingTools]) });
}

function resolveCycle(value: LoopControlOptions["cycle"]): CycleDetectorOptions | false {
  if (value === false) return false;
  const merged = mergeDetector("cycle", DEFAULT_LOOP_CONTROL_OPTIONS.cycle, value);
  positiveInteger("cycle.minPeriod", merged.minPeriod);
  positiveInteger("cycle.maxPeriod", merged.maxPeriod);
  positiveInteger("cycle.window", merged.window);
  if (merged.maxPeriod < merged.minPeriod) fail("cycle.maxPeriod", merged.maxPeriod, "must be ≥ cycle.minPeriod");
  for (const field of ["warnRepetitions", "stopRepetitions"] as const) {
    if (typeof merged[field] !== "number" || !(merged[field] >= 2)) fail(`cycle.${field}`, merged[field], "expected a number ≥ 2");
  }
  if (merged.warnRepetitions > merged.stopRepetitions) {
    fail("cycle.warnRepetitions", merged.warnRepetitions, "must be ≤ cycle.stopRepetitions (equal: stop without a warning)");
  }
  const neededWindow = Math.ceil(merged.maxPeriod * merged.stopRepetitions);
  if (Number.isFinite(neededWindow) && merged.window < neededWindow) {
    fail("cycle.window", merged.window, `must be ≥ cycle.maxPeriod × cycle.stopRepetitions (${neededWindow}) or a cycle of the longest period can never stop`);
  }
  return Object.freeze(merged);
}

function resolveStall(value: LoopControlOptions["stall"]): StallDetectorOptions | false {
  if (value === false) return false;
  const merged = mergeDetector("stall", DEFAULT_LOOP_CONTROL_OPTIONS.stall, value);
  positiveInteger("stall.warnAt", merged.warnAt);
  positiveInteger("stall.stopAt", merged.stopAt);
  positiveInteger("stall.window", merged.window);
  positiveInteger("stall.minWords", merged.minWords);
  if (merged.warnAt > merged.stopAt) fail("stall.warnAt", merged.warnAt, "must be ≤ stall.stopAt (equal: stop without a warning)");
  if (merged.window < merged.stopAt) fail("stall.window", merged.window, "must be ≥ stall.stopAt or a stall can never be stopped");
  if (typeof merged.requireStaleObservation !== "boolean") {
    fail("stall.requireStaleObservation", merged.requireStaleObservation, "expected a boolean");
  }
  if (typeof merged.maxDistance !== "number" || !Number.isInteger(merged.maxDistance) || merged.maxDistance < 0 || merged.maxDistance > 64) {
    fail("stall.maxDistance", merged.maxDistance, "expected an integer from 0 to 64");
  }
  return Object.freeze(merged);
}

/**
 * Merges `options` over {@link DEFAULT_LOOP_CONTROL_OPTIONS} and validates every field.
 *
 * @throws {LoopControlOptionsError} naming the first invalid field
 */
export function resolveLoopControlOptions(options: LoopControlOptions = {}): ResolvedLoopControlOptions {
  if (typeof options !== "object" || options === null) fail("options", options, "expected an object");
  const mode = options.mode ?? DEFAULT_LOOP_CONTROL_OPTIONS.mode;
  if (mode !== "throw" && mode !== "finish") fail("mode", mode, 'expected "throw" or "finish"');
  const runContext = options.runContext;
  if (runContext !== undefined && (typeof runContext !== "object" || typeof runContext.start !== "function")) {
    fail("runContext", runContext, "expected a RunContextStore from @reins/core");
  }
  if (options.metrics !== undefined && typeof options.metrics?.record !== "function") {
    fail("metrics", options.metrics, "expected an object with record(event)");
  }
  const prices = options.prices ?? DEFAULT_LOOP_CONTROL_OPTIONS.prices;
  if (typeof prices !== "object" || prices === null) fail("prices", prices, "expected an object of model name → price");
  for (const [model, price] of Object.entries(prices)) {
    if (typeof price !== "object" || price === null) {
      fail(`prices.${model}`, price, "expected { inputUsdPerMillionTokens, outputUsdPerMillionTokens }");
    }
    for (const field of ["inputUsdPerMillionTokens", "outputUsdPerMillionTokens"] as const) {
      const amount = (price as Partial<ModelPrice> | undefined)?.[field];
      if (typeof amount !== "number" || !Number.isFinite(amount) || amount < 0) {
        fail(`prices.${model}.${field}`, amount, "expected a finite number ≥ 0");
      }
    }
  }
  const budgetWarnRatio = options.budgetWarnRatio ?? DEFAULT_LOOP_CONTROL_OPTIONS.budgetWarnRatio;
  if (typeof budgetWarnRatio !== "number" || !(budgetWarnRatio > 0 && budgetWarnRatio <= 1)) {
    fail("budgetWarnRatio", budgetWarnRatio, "expected a number in (0, 1]");
  }
  const ignoreTools = options.ignoreTools ?? DEFAULT_LOOP_CONTROL_OPTIONS.ignoreTools;
  if (!Array.isArray(ignoreTools) || ignoreTools.some((name) => typeof name !== "string")) {
    fail("ignoreTools", ignoreTools, "expected an array of tool names");
  }
  const audit = options.audit;
  if (audit !== undefined) {
    if (typeof audit !== "object" || audit === null) fail("audit", audit, "expected { sink, redact? }");
    const sink = (audit as Partial<LoopAuditOptions>).sink;
    if (typeof sink !== "function" && (typeof sink !== "object" || sink === null || typeof sink.write !== "function")) {
      fail("audit.sink", sink, "expected a function or an object with write(line)");
    }
    optionalFunction("audit.redact", audit.redact, undefined);
    const secretRedaction: unknown = (audit as Partial<LoopAuditOptions>).secretRedaction;
    if (secretRedaction !== undefined && secretRedaction !== false && (typeof secretRedaction !== "object" || secretRedaction === null)) {
      fail("audit.secretRedaction", secretRedaction, "expected { enabled?, patterns? } or false");
    }
  }
  return Object.freeze({
    mode,
    runContext,
    metrics: options.metrics,
    onEvent: optionalFunction("onEvent", options.onEvent, undefined),
    repeat: resolveRepeat(options.repeat),
    cycle: resolveCycle(options.cycle),
    stall: resolveStall(options.stall),
    maxSteps: options.maxSteps === Number.POSITIVE_INFINITY ? options.maxSteps : positiveInteger("maxSteps", options.maxSteps ?? DEFAULT_LOOP_CONTROL_OPTIONS.maxSteps),
    maxDurationMs: positiveLimit("maxDurationMs", options.maxDurationMs ?? DEFAULT_LOOP_CONTROL_OPTIONS.maxDurationMs),
    maxTokens: positiveLimit("maxTokens", options.maxTokens ?? DEFAULT_LOOP_CONTROL_OPTIONS.maxTokens),
    maxCostUsd: positiveLimit("maxCostUsd", options.maxCostUsd ?? DEFAULT_LOOP_CONTROL_OPTIONS.maxCostUsd),
    prices: Object.freeze({ ...prices }),
    budgetWarnRatio,
    estimateTokens: optionalFunction("estimateTokens", options.estimateTokens, DEFAULT_LOOP_CONTROL_OPTIONS.estimateTokens),
    ignoreTools: Object.freeze([...ignoreTools]),
    notePreviewChars: positiveInteger("notePreviewChars", options.notePreviewChars ?? DEFAULT_LOOP_CONTROL_OPTIONS.notePreviewChars),
    audit,
    runIdleTimeoutMs: positiveLimit("runIdleTimeoutMs", options.runIdleTimeoutMs ?? DEFAULT_LOOP_CONTROL_OPTIONS.runIdleTimeoutMs),
    maxActiveRuns:
      options.maxActiveRuns === Number.POSITIVE_INFINITY
        ? options.maxActiveRuns
        : positiveInteger("maxActiveRuns", options.maxActiveRuns ?? DEFAULT_LOOP_CONTROL_OPTIONS.maxActiveRuns),
    now: checkClock(optionalFunction("now", options.now, DEFAULT_LOOP_CONTROL_OPTIONS.now)),
    onError: optionalFunction("onError", options.onError, DEFAULT_LOOP_CONTROL_OPTIONS.onError),
  });
}
