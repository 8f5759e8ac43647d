import type { AgentAction, AgentStep } from "@langchain/core/agents";
import { ReinsError, brandReinsError, type StopReason } from "@reins/core";


/** Options common to every `@reins/loop-control` error. */
export interface ReinsLoopControlErrorOptions {
  message?: string;
  cause?: unknown;
}

/**
 * Base class of every error `@reins/loop-control` throws. Recognise one across package copies with
 * {@link ReinsLoopControlError.isInstance} rather than `instanceof`.
 */
export class ReinsLoopControlError extends ReinsError {
  static {
    brandReinsError(this, "loop-control", "ReinsLoopControlError");
  }


  constructor(options: ReinsLoopControlErrorOptions & { message: string }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ReinsLoopControlError";
  }
}


/** Facts every stop error carries. */
export interface RunStoppedErrorOptions extends ReinsLoopControlErrorOptions {
  /** Why the run was stopped. */
  stopReason: StopReason;
  /** The top-level run id. */
  runId: string;
  /** The steps the run completed before it was stopped (action + observation each). */
  steps: readonly AgentStep[];
}

/**
 * A run was stopped by `LoopControlHandler` in `mode: "throw"`. Catch this to handle both
 * {@link LoopStoppedError} and {@link BudgetExceededError}; `steps` holds what was found so far.
 */
export class RunStoppedError extends ReinsLoopControlError {
  static {
    brandReinsError(this, "loop-control", "RunStoppedError");
  }

  readonly stopReason: StopReason;
  readonly runId: string;
  /**
   * The completed steps, oldest first. An observation the handler did not see (an invalid tool
   * name, or the handler attached to the executor only) is `""`.
   */
  readonly steps: readonly AgentStep[];

  constructor(options: RunStoppedErrorOptions) {
    super({
      message: options.message ?? `Run ${options.runId} was stopped (${options.stopReason}) after ${options.steps.length} steps.`,
      cause: options.cause,
    });
    this.name = "RunStoppedError";
    this.stopReason = options.stopReason;
    this.runId = options.runId;
    this.steps = Object.freeze([...options.steps]);
  }
}


/** The loop kinds that end a run with {@link LoopStoppedError}. */
export type LoopStopReason = Extract<StopReason, "repeat" | "cycle" | "stall">;

/** Options of {@link LoopStoppedError}. */
export interface LoopStoppedErrorOptions extends RunStoppedErrorOptions {
  stopReason: LoopStopReason;
  /** The action that was refused (not executed). */
  action: AgentAction;
  /** Repeats, full cycle periods or near-duplicate thoughts counted when the run was stopped. */
  repetitions: number;
  /** The cycle's period in actions (cycles only). */
  period?: number;
  /** A repeat counted as the same call with the same result (`repeat.requireSameObservation`, the default). */
  sameResult?: boolean;
}

/**
 * The run repeated an action, went around a cycle of actions or stalled on the same thought, and
 * was stopped before the refused `action` ran.
 *
 * @example
 * ```ts
 * try {
 *   await executor.invoke({ input }, { callbacks: [new LoopControlHandler()] });
 * } catch (error) {
 *   if (LoopStoppedError.isInstance(error)) console.warn(error.stopReason, error.steps.length);
 *   else throw error;
 * }
 * ```
 */
export class LoopStoppedError extends RunStoppedError {
  static {
    brandReinsError(this, "loop-control", "LoopStoppedError");
  }

  declare readonly stopReason: LoopStopReason;
  readonly action: AgentAction;
  readonly repetitions: number;
  readonly period?: number;

  constructor(options: LoopStoppedErrorOptions) {
    super({
      ...options,
      message:
        options.message ??
        `Run ${options.runId} stopped: ${describeLoop(options)} (after ${options.steps.length} steps).`,
    });
    this.name = "LoopStoppedError";
    this.action = options.action;
    this.repetitions = options.repetitions;
    if (options.period !== undefined) this.period = options.period;
  }
}

function describeLoop(options: LoopStoppedErrorOptions): string {
  switch (options.stopReason) {
    case "repeat":
      return options.sameResult === true
        ? `tool "${options.action.tool}" returned the same result ${options.repetitions} times for the same input`
        : `tool "${options.action.tool}" was called ${options.repetitions} times with the same input`;
    case "cycle":
      return `the last actions repeat with a period of ${options.period ?? "?"} (${options.repetitions} times), ending with tool "${options.action.tool}"`;
    case "stall":
      return `${options.repetitions} recent thoughts are near-duplicates`;
  }
}


/** The budgets that end a run with {@link BudgetExceededError}. */
export type BudgetStopReason = Extract<StopReason, "max_steps" | "time_budget" | "token_budget" | "cost_budget">;

/** Options of {@link BudgetExceededError}. */
export interface BudgetExceededErrorOptions extends RunStoppedErrorOptions {
  stopReason: BudgetStopReason;
  /** The limit: steps, milliseconds, tokens or US dollars. */
  limit: number;
  /** What the run used, in the same unit. */
  used: number;
}

const BUDGET_UNITS: Readonly<Record<BudgetStopReason, string>> = Object.freeze({
  max_steps: "steps",
  time_budget: "ms",
  token_budget: "tokens",
  cost_budget: "USD",
});

/** The run used up its step, time, token or cost budget. */
export class BudgetExceededError extends RunStoppedError {
  static {
    brandReinsError(this, "loop-control", "BudgetExceededError");
  }

  declare readonly stopReason: BudgetStopReason;
  readonly limit: number;
  readonly used: number;

  constructor(options: BudgetExceededErrorOptions) {
    super({
      ...options,
      message:
        options.message ??
        `Run ${options.runId} stopped: ${options.stopReason} reached (${formatAmount(options.used)} of ${formatAmount(options.limit)} ${BUDGET_UNITS[options.stopReason]}) after ${options.steps.length} steps.`,
    });
    this.name = "BudgetExceededError";
    this.limit = options.limit;
    this.used = options.used;
  }
}

function formatAmount(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(4);
}


/** An option passed to `LoopControlHandler` is invalid. */
export class LoopControlOptionsError extends ReinsLoopControlError {
  static {
    brandReinsError(this, "loop-control", "LoopControlOptionsError");
  }

  /** The option at fault, e.g. `repeat.stopAt`. */
  readonly field: string;
  readonly value: unknown;

  constructor(options: ReinsLoopControlErrorOptions & { field: string; value: unknown; reason?: string }) {
    super({
      message: options.message ?? `Invalid loop control option "${options.field}": ${options.reason ?? "the value is not allowed"}.`,
      cause: options.cause,
    });
    this.name = "LoopControlOptionsError";
    this.field = options.field;
    this.value = options.value;
  }
}


/** Why a run's state was evicted: no callback for `runIdleTimeoutMs`, or `maxActiveRuns` reached. */
export type RunEvictionReason = "idle" | "capacity";

/** Options of {@link RunEvictedError}. */
export interface RunEvictedErrorOptions extends ReinsLoopControlErrorOptions {
  /** The top-level run id. */
  runId: string;
  reason: RunEvictionReason;
  /** Milliseconds since the run's last callback. */
  idleMs: number;
  /** Steps the run had taken. */
  steps: number;
}

/**
 * Reported to `onError` (never thrown into a run) when `LoopControlHandler` drops the state of a
 * run whose end never arrived — a stream the caller stopped reading, a crashed worker — so a
 * long-lived handler never grows with abandoned runs. The run is ended with a `run_end` event
 * (`status: "error"`); later callbacks of that run are ignored.
 */
export class RunEvictedError extends ReinsLoopControlError {
  static {
    brandReinsError(this, "loop-control", "RunEvictedError");
  }

  /** The top-level run id. */
  readonly runId: string;
  /** `idle`: no callback for `runIdleTimeoutMs`; `capacity`: `maxActiveRuns` was reached. */
  readonly reason: RunEvictionReason;
  /** Milliseconds since the run's last callback. */
  readonly idleMs: number;
  /** Steps the run had taken. */
  readonly steps: number;

  constructor(options: RunEvictedErrorOptions) {
    super({
      message:
        options.message ??
        (options.reason === "idle"
          ? `Run ${options.runId} was dropped after ${options.idleMs} ms without a callback (runIdleTimeoutMs); its end never arrived.`
          : `Run ${options.runId} was dropped to stay within maxActiveRuns (idle for ${options.idleMs} ms); its end never arrived.`),
      cause: options.cause,
    });
    this.name = "RunEvictedError";
    this.runId = options.runId;
    this.reason = options.reason;
    this.idleMs = options.idleMs;
    this.steps = options.steps;
  }
}
