import {
  createStateSigner,
  isRecord,
  resolveLoopFinishOptions,
  resolveStateKeys,
  RunContextStore,
  StateKeyError,
  type LoopFinishOptions,
  type ReinsEventListener,
  type ReinsEventRecorder,
  type StateSigner,
} from "@reins/core";
import { LoopControlHandler, resolveLoopControlOptions, type LoopAuditOptions, type LoopControlOptions } from "@reins/loop-control";
import { ObservationCleaner, type ObservationCleanerOptions } from "@reins/observation-cleaner";
import { ToolExecutor, type ToolExecutorOptions } from "@reins/tool-executor";
import { ReinsMiddlewareOptionsError } from "./errors";
import { checkScopedBudgetOptions, type ScopedBudgetOptions } from "./scoped-budgets";
import type { ToolCallRepairOptions } from "./tool-call-repair";

/** Loop-control options the middleware uses (`mode` and `runContext` are the middleware's own). */
export type ReinsMiddlewareLoopControlOptions = Omit<LoopControlOptions, "runContext" | "mode" | "audit">;

/** Where the middleware tells operators what needs their attention (the unsigned-state warning). */
export interface ReinsMiddlewareLogger {
  warn(message: string): void;
}

/** Options of `createReinsMiddleware`: one per Reins piece, as in `createReactAgent`. */
export interface ReinsMiddlewareOptions {
  /**
   * Tool policies (timeout with the tool's AbortSignal, retries, circuit breaker, fallback,
   * validation, cache, dry run and approval, call caps, result checks, bulkhead): options for a new
   * `ToolExecutor` (the middleware adds `runContext`, `metrics`, `onEvent` and the observation
   * cleaner as `formatObservation` unless given), or a `ToolExecutor` you built (give it the
   * middleware's `runContext` for per-run limits and loop notes). `false` runs tools unwrapped.
   * @default {} (`DEFAULT_TOOL_POLICY`: 30 s timeout, retries of retryable failures, circuit breaker)
   */
  toolExecutor?: ToolExecutorOptions | ToolExecutor | false;
  /**
   * Observation cleaning and neutralisation: options for a new `ObservationCleaner`, or one you
   * built. `false` leaves results as the ToolExecutor's default formatter writes them (error
   * texts are then not neutralised either).
   * @default {}
   */
  observation?: ObservationCleanerOptions | ObservationCleaner | false;
  /**
   * Loop control: `LoopControlOptions` (detectors, budgets, prices, notes), or a
   * `LoopControlHandler` whose options are used. `mode` is always a graceful finish here. `maxSteps`
   * counts model calls. `false` turns detection and budgets off (run and tool metrics are still
   * recorded).
   * @default {} (repeat, cycle and stall detection; 15 model calls; 10 minutes)
   */
  loopControl?: ReinsMiddlewareLoopControlOptions | LoopControlHandler | false;
  /**
   * How the final `AIMessage` of a stopped run is written (escape-hatch line, findings listed).
   * @default DEFAULT_LOOP_FINISH_OPTIONS of `@reins/core`
   */
  loopFinish?: LoopFinishOptions;
  /**
   * Tool-call repair (names and arguments) before a call runs. `false` turns it off.
   * @default {} (`DEFAULT_TOOL_CALL_REPAIR_OPTIONS`)
   */
  repair?: ToolCallRepairOptions | false;
  /**
   * Receives every event of every piece: pass `createAgentMetrics()` from `@reins/metrics`.
   * @default undefined
   */
  metrics?: ReinsEventRecorder;
  /** Listener for every event of every piece. @default undefined */
  onEvent?: ReinsEventListener;
  /**
   * The per-run state shared by the wrapped tools and the middleware.
   * @default a new `RunContextStore`
   */
  runContext?: RunContextStore;
  /**
   * The JSONL audit trail: the same `reins.loop_control.step` records as the classic path
   * (`LoopControlHandler`'s `audit`), one per tool call (the parallel calls of one model turn share
   * `turn`) with the question, the observation as the model received it, the call's outcome and
   * timings, then a finish record with the answer or the graceful stop text. Render it with
   * `reins-trace`. Records go through `redact` first. A `LoopControlHandler` given as `loopControl`
   * lends its `audit` when this is not set.
   * @default undefined (no audit trail)
   */
  audit?: LoopAuditOptions;
  /**
   * Most runs tracked at once; the oldest run's state is dropped beyond it (a run that threw
   * never reaches `afterAgent`).
   * @default 10000
   */
  maxActiveRuns?: number;
  /**
   * The key(s) that sign the guard state Reins keeps in graph state (the run record `reinsRun`,
   * each model reply's tool calls and corrections, each `ToolMessage` outcome), HMAC-SHA256. A
   * run resumed from a checkpoint whose signed state was changed or removed stops with
   * `stopReason` `state_tampered`. Each key is a string of at least 32 characters, used as given;
   * a list rotates keys: the first signs, every key verifies. Keep a retired key in the list
   * until the threads it signed have ended.
   * @default the `REINS_STATE_KEY` environment variable (one key, or a comma-separated list);
   *   unset: the state is not signed, and resumed protections are only as strong as the
   *   checkpoint store's access control (the middleware warns once through `logger`)
   */
  stateKey?: string | readonly string[];
  /**
   * Receives the one-time warning that resumed state is not signed (no `stateKey`).
   * @default a process warning (`process.emitWarning`, code `REINS_UNSIGNED_STATE`)
   */
  logger?: ReinsMiddlewareLogger;
  /**
   * Budgets beyond one run: `thread` (model calls, tokens, cost over all runs of a thread, kept in
   * the state's `reinsThread`: needs a checkpointer) and `user` (over all of a user's threads, in a
   * shared rate-limiter-flexible counter, per `day` | `month` | `none`). Checked before each model
   * call, graded as the run budgets (`budgetWarnRatio` note, then a graceful stop with `stopReason`
   * and `stopScope`). Needs loop control (prices for cost). See `ScopedBudgetOptions`.
   * @default undefined (off)
   */
  budgets?: ScopedBudgetOptions;
}

/**
 * The signer of the middleware's guard state: from `stateKey`, else `REINS_STATE_KEY`.
 *
 * @returns `undefined` when neither is set
 * @throws {ReinsMiddlewareOptionsError} when a key is shorter than 32 characters or not a string
 *   (the field is `stateKey` or `REINS_STATE_KEY`)
 */
export function resolveStateSigner(options: Pick<ReinsMiddlewareOptions, "stateKey">, env: string | undefined = process.env.REINS_STATE_KEY): StateSigner | undefined {
  try {
    const keys = resolveStateKeys(options.stateKey, env);
    return keys === undefined ? undefined : createStateSigner(keys);
  } catch (cause) {
    if (!StateKeyError.isInstance(cause)) throw cause;
    const error = cause as StateKeyError;
    throw new ReinsMiddlewareOptionsError({ field: error.source, reason: error.reason, cause });
  }
}

/** Defaults of {@link ReinsMiddlewareOptions}. */
export const DEFAULT_REINS_MIDDLEWARE_OPTIONS = Object.freeze({
  toolExecutor: Object.freeze({}) as ToolExecutorOptions,
  observation: Object.freeze({}) as ObservationCleanerOptions,
  loopControl: Object.freeze({}) as ReinsMiddlewareLoopControlOptions,
  repair: Object.freeze({}) as ToolCallRepairOptions,
  maxActiveRuns: 10_000,
});

function checkPieceOption(field: string, value: unknown, instanceOf?: abstract new (...args: never[]) => unknown): void {
  if (value === undefined || value === false) return;
  if (instanceOf !== undefined && value instanceof instanceOf) return;
  if (!isRecord(value)) {
    throw new ReinsMiddlewareOptionsError({ field, reason: `must be an options object${instanceOf ? ", an instance" : ""} or false` });
  }
}

/**
 * Checks the middleware's own options (each piece checks its own options when it is built).
 *
 * @returns `maxActiveRuns`, default applied
 * @throws {ReinsMiddlewareOptionsError} when an option is invalid (names the field)
 */
export function checkReinsMiddlewareOptions(options: ReinsMiddlewareOptions): number {
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new ReinsMiddlewareOptionsError({ field: "options", reason: "must be an object" });
  checkPieceOption("toolExecutor", options.toolExecutor, ToolExecutor);
  checkPieceOption("observation", options.observation, ObservationCleaner);
  checkPieceOption("loopControl", options.loopControl, LoopControlHandler);
  checkPieceOption("repair", options.repair);
  if (options.loopFinish !== undefined && !isRecord(options.loopFinish)) {
    throw new ReinsMiddlewareOptionsError({ field: "loopFinish", reason: "must be an options object" });
  }
  for (const [field, value] of Object.entries(options.loopFinish ?? {})) {
    try {
      resolveLoopFinishOptions({ [field]: value });
    } catch (cause) {
      throw new ReinsMiddlewareOptionsError({ field: `loopFinish.${field}`, reason: cause instanceof Error ? cause.message : String(cause), cause });
    }
  }
  if (options.metrics !== undefined && typeof options.metrics?.record !== "function") {
    throw new ReinsMiddlewareOptionsError({ field: "metrics", reason: "must have a record(event) method (e.g. createAgentMetrics())" });
  }
  if (options.onEvent !== undefined && typeof options.onEvent !== "function") {
    throw new ReinsMiddlewareOptionsError({ field: "onEvent", reason: "must be a function" });
  }
  if (options.runContext !== undefined && !(options.runContext instanceof RunContextStore)) {
    throw new ReinsMiddlewareOptionsError({ field: "runContext", reason: "must be a RunContextStore" });
  }
  if (options.audit !== undefined) {
    try {
      resolveLoopControlOptions({ audit: options.audit });
    } catch (cause) {
      throw new ReinsMiddlewareOptionsError({ field: "audit", reason: cause instanceof Error ? cause.message : String(cause), cause });
    }
  }
  if (options.logger !== undefined && (typeof options.logger !== "object" || options.logger === null || typeof options.logger.warn !== "function")) {
    throw new ReinsMiddlewareOptionsError({ field: "logger", reason: "must be an object with a warn(message) method" });
  }
  checkScopedBudgetOptions(options.budgets);
  if (options.budgets !== undefined && options.loopControl === false) {
    throw new ReinsMiddlewareOptionsError({ field: "budgets", reason: "needs loop control (its budgetWarnRatio and prices); loopControl is false" });
  }
  const maxActiveRuns = options.maxActiveRuns ?? DEFAULT_REINS_MIDDLEWARE_OPTIONS.maxActiveRuns;
  if (!Number.isInteger(maxActiveRuns) || maxActiveRuns < 1) {
    throw new ReinsMiddlewareOptionsError({ field: "maxActiveRuns", reason: "must be a positive integer" });
  }
  return maxActiveRuns;
}
