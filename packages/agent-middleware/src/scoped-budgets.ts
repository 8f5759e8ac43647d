import { isRecord, type BudgetScope, type LoopStopDecision } from "@reins/core";
import { checkStepBudget, checkUsageBudgets, type BudgetStop, type BudgetStopReason, type LoopNote } from "@reins/loop-control";
import { interrupt, isGraphBubbleUp } from "@langchain/langgraph";
import { z } from "zod/v4";
import { ReinsMiddlewareOptionsError } from "./errors";

/**
 * Budgets beyond one run for `createAgent`: the model calls, tokens and cost of a thread (all its
 * runs, kept in the agent's state as `reinsThread`, so the checkpointer carries them across runs,
 * processes and restarts) and of a user (all the user's threads, kept in a shared counter — a
 * rate-limiter-flexible `RateLimiterRedis` or `RateLimiterMemory` — per day, per month or for all
 * time). They are checked before each model call with the run budgets' grading
 * (`@reins/loop-control`'s `checkStepBudget` / `checkUsageBudgets`): an "answer soon" note at
 * `budgetWarnRatio`, then a graceful stop with the run budgets' `stopReason` (`max_steps`,
 * `token_budget`, `cost_budget`) and the scope (`thread` | `user`).
 */

/** Limits of one scope. Every limit is off when not set. */
export interface ScopeLimits {
  /** Most model calls. @default Infinity (off) */
  readonly maxModelCalls?: number;
  /** Most tokens, input + output (`usage_metadata`, or estimated as for run budgets). @default Infinity (off) */
  readonly maxTokens?: number;
  /** Most cost in US dollars (from loop control's `prices`). @default Infinity (off) */
  readonly maxCostUsd?: number;
}

/**
 * A shared counter: the part of rate-limiter-flexible's `RateLimiterAbstract` the user scope uses
 * (`get` reads a key's `consumedPoints`, `penalty` adds points without ever refusing). Give it a
 * `duration` (seconds) of at least the window (the key names the window, so a longer one only
 * keeps old windows longer) or `0`; add an `insuranceLimiter` (`RateLimiterMemory`) to count
 * locally while Redis is down.
 */
export interface ScopeUsageCounter {
  get(key: string): Promise<{ readonly consumedPoints: number } | null>;
  penalty(key: string, points?: number): Promise<unknown>;
  /** The limiter's window in seconds (`0`: keys never expire); checked against `window` when present. */
  readonly duration?: number;
}

/** Windows of the user scope: the UTC calendar day, the UTC calendar month, or no window. */
export const USER_BUDGET_WINDOWS = Object.freeze(["day", "month", "none"] as const);
/** A window of the user scope. */
export type UserBudgetWindow = (typeof USER_BUDGET_WINDOWS)[number];

/** What the app's `key` function receives: the hook's runtime (`configurable` is the invoke config's). */
export interface UserKeyContext {
  readonly configurable?: Readonly<Record<string, unknown>>;
  readonly context?: unknown;
}

/** The user scope: limits over all of a user's threads, in a shared counter. */
export interface UserBudgetOptions extends ScopeLimits {
  /**
   * The user's key, given by the app, e.g. `(config) => config.configurable?.user_id`. A run with
   * no key (`undefined`) is not counted for any user. The key is never a metric label.
   */
  readonly key: (config: UserKeyContext) => unknown;
  /** The shared counter (see {@link ScopeUsageCounter}). */
  readonly counter: ScopeUsageCounter;
  /** @default "day" */
  readonly window?: UserBudgetWindow;
}

/** Options of the thread and user scopes (`createReinsMiddleware({ budgets })`). Off by default. */
export interface ScopedBudgetOptions {
  /** Limits over all runs of a thread (state key `reinsThread`). @default undefined (off) */
  readonly thread?: ScopeLimits;
  /** Limits over all of a user's threads. @default undefined (off) */
  readonly user?: UserBudgetOptions;
  /**
   * At a thread or user budget stop: `"stop"` ends the run gracefully; `"ask"` pauses it with a
   * LangGraph `interrupt` ({@link BudgetExhaustedInterrupt}; needs a checkpointer), resumed with
   * `Command({ resume: { extend: { costUsd: 0.5 } } })` (raises the thread's limits, and the user's
   * for this thread, up to `maxExtension` in all) or `{ stop: true }`. Time paused there is not run time.
   * @default "stop"
   */
  readonly onExhausted?: "stop" | "ask";
  /** Most that resumes may add, over the thread's life. @default {} (nothing: an extension is refused) */
  readonly maxExtension?: ScopeLimits;
}

/** The value of the `interrupt` at an exhausted budget (`onExhausted: "ask"`). */
export interface BudgetExhaustedInterrupt {
  readonly type: "reins_budget_exhausted";
  readonly scope: "thread" | "user";
  readonly stopReason: BudgetStopReason;
  readonly limit: number;
  readonly used: number;
  readonly message: string;
  readonly question: string;
  /** What may still be added (`maxExtension` minus what was added). */
  readonly extensionLeft: { readonly modelCalls: number; readonly tokens: number; readonly costUsd: number };
}

/** The resume value for a {@link BudgetExhaustedInterrupt}. */
export type BudgetExhaustedResume = { readonly extend: { readonly modelCalls?: number; readonly tokens?: number; readonly costUsd?: number } } | { readonly stop: true };

/** What the thread scope keeps in the agent's state (`reinsThread`). Cost in US dollars. */
export const reinsThreadSchema = z.object({
  modelCalls: z.number().int().nonnegative(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
  /** Limits added by resumes at an exhausted budget (`onExhausted: "ask"`). */
  extension: z.object({ modelCalls: z.number().nonnegative(), tokens: z.number().nonnegative(), costUsd: z.number().nonnegative() }).optional(),
});
/** The thread part of the state: totals over the thread's runs. */
export type ReinsThreadRecord = z.infer<typeof reinsThreadSchema>;

/** A new thread record. */
export const emptyThreadRecord = (): ReinsThreadRecord => ({ modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });

/** A stop made by a scope beyond the run. */
export interface ScopedStopDecision extends LoopStopDecision {
  readonly scope: Exclude<BudgetScope, "run">;
  readonly limit: number;
  readonly used: number;
}

/** Usage of one scope, as the checks read it. */
interface ScopeUsage {
  readonly modelCalls: number;
  readonly tokens: number;
  readonly costUsd: number;
}

const MEASURES = ["model_calls", "tokens", "cost_micro_usd"] as const;
type Measure = (typeof MEASURES)[number];
/** Cost is counted in micro-dollars: Redis' INCRBY takes integers. */
const MICRO = 1_000_000;
const WINDOW_SECONDS: Record<UserBudgetWindow, number> = { day: 86_400, month: 31 * 86_400, none: 0 };

const NOUN: Record<Exclude<BudgetScope, "run">, string> = { thread: "thread", user: "user" };

function stopMessage(scope: Exclude<BudgetScope, "run">, stop: BudgetStop, window: UserBudgetWindow | undefined): string {
  const of = scope === "user" && window !== undefined && window !== "none" ? `the ${NOUN[scope]}'s ${window === "day" ? "daily" : "monthly"}` : `the ${NOUN[scope]}'s`;
  switch (stop.reason) {
    case "max_steps":
      return `This run reached ${of} budget of ${stop.limit} model calls.`;
    case "token_budget":
      return `This run reached ${of} budget of ${stop.limit} tokens (${stop.used} used).`;
    case "cost_budget":
      return `This run reached ${of} budget of ${stop.limit} USD (${stop.used.toFixed(4)} USD used).`;
    default:
      return `This run reached ${of} ${stop.reason}.`;
  }
}

function checkLimit(field: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== "number" || Number.isNaN(value) || value <= 0) throw new ReinsMiddlewareOptionsError({ field, reason: "must be a positive number (Infinity is off)" });
}

function checkLimits(field: string, limits: unknown): void {
  if (!isRecord(limits)) throw new ReinsMiddlewareOptionsError({ field, reason: "must be an options object" });
  checkLimit(`${field}.maxModelCalls`, limits.maxModelCalls);
  checkLimit(`${field}.maxTokens`, limits.maxTokens);
  checkLimit(`${field}.maxCostUsd`, limits.maxCostUsd);
}

/**
 * Checks the `budgets` option.
 * @throws {ReinsMiddlewareOptionsError} naming the bad field
 */
export function checkScopedBudgetOptions(options: unknown): void {
  if (options === undefined) return;
  if (!isRecord(options)) throw new ReinsMiddlewareOptionsError({ field: "budgets", reason: "must be an options object" });
  if (options.thread !== undefined) checkLimits("budgets.thread", options.thread);
  if (options.onExhausted !== undefined && options.onExhausted !== "stop" && options.onExhausted !== "ask") throw new ReinsMiddlewareOptionsError({ field: "budgets.onExhausted", reason: 'must be "stop" or "ask"' });
  if (options.maxExtension !== undefined) checkLimits("budgets.maxExtension", options.maxExtension);
  if (options.user === undefined) return;
  checkLimits("budgets.user", options.user);
  const user = options.user as Record<string, unknown>;
  if (typeof user.key !== "function") throw new ReinsMiddlewareOptionsError({ field: "budgets.user.key", reason: "must be a function returning the user's key, e.g. (config) => config.configurable?.user_id" });
  const counter = user.counter as Partial<ScopeUsageCounter> | undefined;
  if (!isRecord(counter) || typeof counter.get !== "function" || typeof counter.penalty !== "function") {
    throw new ReinsMiddlewareOptionsError({ field: "budgets.user.counter", reason: "must have get(key) and penalty(key, points) (a rate-limiter-flexible RateLimiterRedis or RateLimiterMemory)" });
  }
  const window = user.window ?? "day";
  if (!USER_BUDGET_WINDOWS.includes(window as UserBudgetWindow)) throw new ReinsMiddlewareOptionsError({ field: "budgets.user.window", reason: `must be one of ${USER_BUDGET_WINDOWS.join(", ")}` });
  const duration = counter.duration;
  const needed = WINDOW_SECONDS[window as UserBudgetWindow];
  if (typeof duration === "number" && duration !== 0 && (needed === 0 || duration < needed)) {
    throw new ReinsMiddlewareOptionsError({
      field: "budgets.user.counter",
      reason: `its duration (${duration} s) is shorter than the "${String(window)}" window (${needed === 0 ? "no expiry" : `${needed} s`}): counts would reset early; use duration ${needed === 0 ? 0 : `>= ${needed}`}`,
    });
  }
}

/** The window's id in a key: `2026-12-04`, `2026-12`, or `all`. UTC. */
export function windowIdOf(window: UserBudgetWindow, nowMs: number): string {
  if (window === "none") return "all";
  const iso = new Date(nowMs).toISOString();
  return window === "day" ? iso.slice(0, 10) : iso.slice(0, 7);
}

/** The first stop (or the notes) for one scope's usage, graded as the run budgets are. */
function gradeScope(given: ScopeLimits, extension: ReinsThreadRecord["extension"], usage: ScopeUsage, warnRatio: number, noted: ReadonlySet<BudgetStopReason>): { stop?: BudgetStop; notes: Array<Extract<LoopNote, { kind: "budget" }>> } {
  const limits = { maxModelCalls: (given.maxModelCalls ?? Infinity) + (extension?.modelCalls ?? 0), maxTokens: (given.maxTokens ?? Infinity) + (extension?.tokens ?? 0), maxCostUsd: (given.maxCostUsd ?? Infinity) + (extension?.costUsd ?? 0) };
  const options = { maxSteps: limits.maxModelCalls ?? Infinity, maxDurationMs: Infinity, maxTokens: limits.maxTokens ?? Infinity, maxCostUsd: limits.maxCostUsd ?? Infinity, budgetWarnRatio: warnRatio };
  const steps = Number.isFinite(options.maxSteps) ? checkStepBudget(usage.modelCalls + 1, options, noted) : { notes: [] };
  if (steps.stop?.refuseStep === true) return { stop: steps.stop, notes: [] };
  const spent = checkUsageBudgets({ elapsedMs: 0, tokens: usage.tokens, costUsd: usage.costUsd }, options, noted, true);
  if (spent.stop !== undefined) return { stop: spent.stop, notes: [] };
  return { notes: [...steps.notes, ...spent.notes] };
}

/** What {@link ScopedBudgets.beforeModel} decided. */
export interface ScopedVerdict {
  /** The thread record with this model call counted (unchanged at a stop). */
  readonly thread: ReinsThreadRecord;
  readonly stop?: ScopedStopDecision;
  /** "Answer soon" notes, with the key to remember in the run's `notedBudgets` (`thread:cost_budget`). */
  readonly notes: ReadonlyArray<{ readonly noted: string; readonly note: LoopNote }>;
  /** The user's key of this run, when the user scope counts it. */
  readonly userKey?: string;
}

/** The thread and user scopes of one middleware. */
export class ScopedBudgets {
  private readonly window: UserBudgetWindow;

  constructor(
    private readonly options: ScopedBudgetOptions,
    private readonly warnRatio: number,
    private readonly now: () => number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.window = options.user?.window ?? "day";
  }

  /** The user's key for a hook's runtime; `undefined` when the user scope is off or the app gave none. */
  userKeyOf(runtime: UserKeyContext | undefined): string | undefined {
    const user = this.options.user;
    if (user === undefined) return undefined;
    let key: unknown;
    try {
      key = user.key(runtime ?? {});
    } catch (error) {
      this.onError(new Error(`budgets.user.key threw; the run is not counted for a user: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
      return undefined;
    }
    if (key === undefined || key === null || key === "") return undefined;
    return typeof key === "string" ? key : String(key);
  }

  private counterKey(userKey: string, measure: Measure): string {
    return `reins:budget:user:${measure}:${windowIdOf(this.window, this.now())}:${userKey}`;
  }

  /** The user's usage in the current window; `undefined` (fail-open, reported) when the counter fails. */
  async userUsage(userKey: string): Promise<ScopeUsage | undefined> {
    const counter = this.options.user?.counter;
    if (counter === undefined) return undefined;
    try {
      const [modelCalls, tokens, micro] = await Promise.all(MEASURES.map(async (measure) => (await counter.get(this.counterKey(userKey, measure)))?.consumedPoints ?? 0));
      return { modelCalls: modelCalls ?? 0, tokens: tokens ?? 0, costUsd: (micro ?? 0) / MICRO };
    } catch (error) {
      this.onError(new Error(`The user budget's counter failed; the call goes on without the user budget: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
      return undefined;
    }
  }

  /** Adds usage to the user's counters (fail-open, reported). */
  async addUserUsage(userKey: string, usage: { modelCalls?: number; tokens?: number; costUsd?: number }): Promise<void> {
    const counter = this.options.user?.counter;
    if (counter === undefined) return;
    const points: Array<[Measure, number]> = [
      ["model_calls", usage.modelCalls ?? 0],
      ["tokens", Math.round(usage.tokens ?? 0)],
      ["cost_micro_usd", Math.round((usage.costUsd ?? 0) * MICRO)],
    ];
    try {
      await Promise.all(points.filter(([, value]) => value > 0).map(([measure, value]) => counter.penalty(this.counterKey(userKey, measure), value)));
    } catch (error) {
      this.onError(new Error(`The user budget's counter failed to count usage: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
    }
  }

  /**
   * Before a model call: the thread's and the user's budgets. On no stop the call is counted (the
   * thread record's `modelCalls`, the user's `model_calls` counter).
   * @param noted - budgets the run was already warned about (`notedBudgets`, `thread:`/`user:` prefixed)
   */
  async beforeModel(thread: ReinsThreadRecord | undefined, runtime: UserKeyContext | undefined, noted: readonly string[]): Promise<ScopedVerdict> {
    const current = thread ?? emptyThreadRecord();
    const notes: Array<{ noted: string; note: LoopNote }> = [];
    const scopes: Array<[Exclude<BudgetScope, "run">, ScopeLimits, ScopeUsage]> = [];
    if (this.options.thread !== undefined) {
      scopes.push(["thread", this.options.thread, { modelCalls: current.modelCalls, tokens: current.inputTokens + current.outputTokens, costUsd: current.costUsd }]);
    }
    const userKey = this.userKeyOf(runtime);
    if (userKey !== undefined && this.options.user !== undefined) {
      const usage = await this.userUsage(userKey);
      if (usage !== undefined) scopes.push(["user", this.options.user, usage]);
    }
    for (const [scope, limits, usage] of scopes) {
      const prefix = `${scope}:`;
      const notedHere = new Set(noted.filter((entry) => entry.startsWith(prefix)).map((entry) => entry.slice(prefix.length) as BudgetStopReason));
      const graded = gradeScope(limits, current.extension, usage, this.warnRatio, notedHere);
      if (graded.stop !== undefined) {
        return { thread: current, stop: { reason: graded.stop.reason, message: stopMessage(scope, graded.stop, scope === "user" ? this.window : undefined), scope, limit: graded.stop.limit, used: graded.stop.used }, notes: [], ...(userKey !== undefined ? { userKey } : {}) };
      }
      for (const note of graded.notes) notes.push({ noted: `${prefix}${note.budget}`, note });
    }
    if (userKey !== undefined) await this.addUserUsage(userKey, { modelCalls: 1 });
    return { thread: { ...current, modelCalls: current.modelCalls + 1 }, notes, ...(userKey !== undefined ? { userKey } : {}) };
  }

  /**
   * At a scope's stop with `onExhausted: "ask"`: pauses the run with an `interrupt`; on resume,
   * the thread record with the extension (capped by `maxExtension`), or `undefined` to stop.
   * @param paused - called when the interrupt pauses the run (its time stops counting)
   */
  ask(stop: ScopedStopDecision, thread: ReinsThreadRecord, paused: () => void): ReinsThreadRecord | undefined {
    if (this.options.onExhausted !== "ask") return undefined;
    const max = this.options.maxExtension ?? {};
    const added = thread.extension ?? { modelCalls: 0, tokens: 0, costUsd: 0 };
    const extensionLeft = {
      modelCalls: Math.max(0, (max.maxModelCalls ?? 0) - added.modelCalls),
      tokens: Math.max(0, (max.maxTokens ?? 0) - added.tokens),
      costUsd: Math.max(0, (max.maxCostUsd ?? 0) - added.costUsd),
    };
    const request: BudgetExhaustedInterrupt = {
      type: "reins_budget_exhausted",
      scope: stop.scope,
      stopReason: stop.reason as BudgetStopReason,
      limit: stop.limit,
      used: stop.used,
      message: stop.message,
      question: `${stop.message} Continue with more budget? Resume with { extend: { modelCalls?, tokens?, costUsd? } } or { stop: true }.`,
      extensionLeft,
    };
    let answer: unknown;
    try {
      answer = interrupt(request);
    } catch (thrown) {
      if (isGraphBubbleUp(thrown)) paused();
      throw thrown;
    }
    if (!isRecord(answer) || !isRecord(answer.extend)) return undefined;
    const asked = answer.extend;
    const take = (value: unknown, left: number): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.min(value, left) : 0);
    const more = { modelCalls: Math.floor(take(asked.modelCalls, extensionLeft.modelCalls)), tokens: take(asked.tokens, extensionLeft.tokens), costUsd: take(asked.costUsd, extensionLeft.costUsd) };
    if (more.modelCalls + more.tokens + more.costUsd === 0) return undefined;
    return { ...thread, extension: { modelCalls: added.modelCalls + more.modelCalls, tokens: added.tokens + more.tokens, costUsd: added.costUsd + more.costUsd } };
  }

  /** After a model reply: its tokens and cost added to the thread record and the user's counters. */
  async modelReplied(thread: ReinsThreadRecord | undefined, userKey: string | undefined, usage: { inputTokens: number; outputTokens: number; costUsd: number }): Promise<ReinsThreadRecord> {
    const current = thread ?? emptyThreadRecord();
    if (userKey !== undefined) await this.addUserUsage(userKey, { tokens: usage.inputTokens + usage.outputTokens, costUsd: usage.costUsd });
    return { ...current, inputTokens: current.inputTokens + usage.inputTokens, outputTokens: current.outputTokens + usage.outputTokens, costUsd: current.costUsd + usage.costUsd };
  }
}
