import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { LoopStopDecision } from "@reins/core";

/**
 * One invocation of the graph for a run (`invoke`, `stream`, a `Command({ resume })` or an
 * `invoke(null)` continuing it), as this process sees it. LangGraph applies `recursionLimit` per
 * invocation, counted from the invocation's first step, while `langgraph_step` grows over the whole
 * thread: the recursion budget is measured from {@link Invocation.startStep}. The run's clock runs
 * only inside invocations, so time paused at an interrupt is not run time.
 */
export interface Invocation {
  /** LangGraph's step number when this process first saw the invocation; unset until a hook runs. */
  startStep: number | undefined;
  /** When the invocation began (the middleware's clock), in epoch ms. */
  readonly segmentStartedAtMs: number;
  /** The run's active time when the invocation began, in ms. */
  readonly activeAtStartMs: number;
  /** LangGraph's step number at the last `beforeModel`, to measure how many steps a turn takes. */
  lastModelStep: number | undefined;
  turnSteps: number | undefined;
  /** Set when an interrupt went through this middleware: the next hook starts a new invocation. */
  paused: boolean;
  /** The object LangGraph creates once per invocation and hands every task ({@link invocationMarker}). */
  readonly marker: object | undefined;
}

/** Graph steps one model turn takes before it is measured (before_model, model, after_model, tools). */
const DEFAULT_TURN_STEPS = 4;

/**
 * A new invocation whose run has been active for `activeMs` so far.
 * @param stepsBefore - graph steps the invocation may have run before this first Reins hook (a
 *   resume re-runs the interrupted node first): counted against the recursion limit, to be safe
 */
export function newInvocation(nowMs: number, activeMs: number, stepsBefore = 0): Invocation {
  const { step } = graphPosition();
  return {
    startStep: step === undefined ? undefined : Math.max(0, step - stepsBefore),
    segmentStartedAtMs: nowMs,
    activeAtStartMs: activeMs,
    lastModelStep: undefined,
    turnSteps: undefined,
    paused: false,
    marker: invocationMarker(),
  };
}

/**
 * An object that identifies the running graph invocation: LangGraph (1.7) gives every invocation
 * one `RunControl` (`config.control`) and one stream `writer`, shared by all its tasks and new for
 * the next `invoke` / `stream` / `Command({ resume })`. `undefined` outside a graph node.
 */
export function invocationMarker(): object | undefined {
  const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as { control?: unknown; writer?: unknown } | undefined;
  const marker = config?.control ?? config?.writer;
  return marker !== null && (typeof marker === "object" || typeof marker === "function") ? (marker as object) : undefined;
}

/** The run's active time in ms: earlier invocations plus this one so far. */
export function activeMsOf(invocation: Invocation, nowMs: number): number {
  return invocation.activeAtStartMs + Math.max(0, nowMs - invocation.segmentStartedAtMs);
}

/** The running node's `langgraph_step` and `recursionLimit`, from LangChain's async-local config. */
export function graphPosition(): { step?: number; limit?: number } {
  const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as
    | { recursionLimit?: unknown; metadata?: { langgraph_step?: unknown } }
    | undefined;
  const step = config?.metadata?.langgraph_step;
  const limit = config?.recursionLimit;
  return { ...(typeof step === "number" ? { step } : {}), ...(typeof limit === "number" ? { limit } : {}) };
}

/**
 * The decision to stop before LangGraph's recursion limit would end the invocation with a
 * `GraphRecursionError` (what LangChain v1 has instead of a graceful stop): the next turn would
 * not leave room for the graceful end. Counts the steps of this invocation only, so a long chat
 * thread (whose `langgraph_step` keeps growing) gets the full limit on every turn.
 */
export function recursionStop(invocation: Invocation): LoopStopDecision | undefined {
  const { step, limit } = graphPosition();
  if (step === undefined || limit === undefined) return undefined;
  // Conservative when the invocation's first hook was not its first step (a resume that starts in the tools node).
  if (invocation.startStep === undefined || step < invocation.startStep) invocation.startStep = Math.max(0, step - 1);
  if (invocation.lastModelStep !== undefined && step > invocation.lastModelStep) invocation.turnSteps = step - invocation.lastModelStep;
  invocation.lastModelStep = step;
  const turnSteps = invocation.turnSteps ?? DEFAULT_TURN_STEPS;
  const used = step - invocation.startStep;
  if (used + turnSteps + 1 < limit) return undefined;
  return {
    reason: "max_steps",
    message: `LangGraph's recursion limit of ${limit} steps per invocation would be reached in the next turn (step ${used} of this invocation, ${turnSteps} steps per turn); raise recursionLimit above ${turnSteps} × maxSteps for longer runs.`,
  };
}
