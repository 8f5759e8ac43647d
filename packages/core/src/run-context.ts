import type { StopReason, ToolCallOutcome } from "./events";
import { stableStringify } from "./fingerprint";

/**
 * A note the loop controller wants the model to read in its next observation, and the stop
 * decision it made for the run. Written by `@reins/loop-control`, read by the wrapped tools of
 * `@reins/tool-executor` and by Reins' `createReactAgent`; neither imports the other.
 */
export interface LoopState {
  /** Notes waiting to be appended to the next observation, oldest first. */
  pendingNotes: string[];
  /** Set once the run must stop; the agent turns it into an `AgentFinish` in `mode: "finish"`. */
  stop?: LoopStopDecision;
}

/** The loop controller's decision to end a run. */
export interface LoopStopDecision {
  readonly reason: StopReason;
  /** Operator-facing explanation, a full sentence. */
  readonly message: string;
}

/**
 * Per-run state shared between Reins pieces. "Run" means one top-level `AgentExecutor` invocation.
 */
export interface RunContext {
  /** The top-level run id (the `AgentExecutor` chain run). */
  readonly runId: string;
  /** When the run started, in epoch milliseconds of the store's clock. */
  readonly startedAtMs: number;
  /**
   * When the run's time budget ends, in epoch milliseconds (set by `LoopControlHandler` from
   * `maxDurationMs`; absent when the run has no time budget). Tool calls end by then.
   */
  deadlineAtMs?: number;
  readonly loop: LoopState;
  /**
   * Calls per tool name this run made before this process knew it (a run resumed from a LangGraph
   * checkpoint, in another process or by a rebuilt agent): `maxCallsPerRun` counts from these.
   * Set by the host adapter (the `createAgent` middleware, from the outcomes in the saved
   * messages) before the first call; absent for a run that started here.
   */
  resumedCallCounts?: ReadonlyMap<string, number>;
  /** Slots for pieces' own per-run data (call counts, idempotency keys, …), keyed by piece name. */
  readonly slots: Map<string, unknown>;
  /**
   * The run's tool calls with their typed outcomes, oldest first, written by `@reins/tool-executor`
   * as each call ends (at most {@link MAX_RUN_CALL_RECORDS}, the oldest dropped first). Whoever
   * sums up the run (the graceful answer) reads outcomes from here, never the calls' wording.
   */
  calls?: RunCallRecord[];
}

/** One tool call of a run as the ToolExecutor ended it. */
export interface RunCallRecord {
  readonly toolName: string;
  /** The input as the caller handed it to the tool (before validation). */
  readonly toolInput: unknown;
  readonly outcome: ToolCallOutcome;
  /** The observation exactly as the tool returned it to the caller (the model's view). */
  readonly observation: string;
  /** Wall time of the call in milliseconds. */
  readonly durationMs: number;
  /**
   * `true` when the tool was not called because the run's loop controller had already decided to
   * stop it (`RunContext.loop.stop`; the ToolExecutor's `StoppedRunCallError`, outcome `rejected`).
   * Such a call is the agent's last action reaching the tool after the stop, not a finding:
   * `buildLoopStopFinish` leaves it out. A stock `AgentExecutor` with a `LoopControlHandler` in
   * `mode: "finish"` runs that action; Reins' agents stop before it.
   */
  readonly stoppedRun?: boolean;
}

/** Most call records one run keeps (see {@link RunContext.calls}). */
export const MAX_RUN_CALL_RECORDS = 1024;

/** Appends a call to the run's record (bounded: the oldest record is dropped first). */
export function recordRunCall(context: RunContext, record: RunCallRecord): void {
  const calls = (context.calls ??= []);
  calls.push(record);
  if (calls.length > MAX_RUN_CALL_RECORDS) calls.splice(0, calls.length - MAX_RUN_CALL_RECORDS);
}

/** Outcomes that returned a result the run can use; every other outcome failed or was refused. */
const USABLE_OUTCOMES: ReadonlySet<ToolCallOutcome> = new Set<ToolCallOutcome>(["success", "cached", "fallback"]);

/**
 * Whether a call with this outcome failed or was refused (a dry run, a rejection, a timeout …):
 * every outcome but `success`, `cached` and `fallback`.
 */
export function outcomeFailed(outcome: ToolCallOutcome): boolean {
  return !USABLE_OUTCOMES.has(outcome);
}

/**
 * Whether a completed step's call failed or was refused (a dry run, a rejection, a timeout …),
 * from the run's call records: the latest record of the same tool and input whose observation is
 * the step's. `undefined` when the run has no record of that call (a tool the ToolExecutor did not
 * wrap).
 *
 * @param step - a completed step (`AgentStep`-like: action tool and input, observation)
 */
export function callFailedIn(context: Pick<RunContext, "calls"> | undefined, step: RecordedStep): boolean | undefined {
  const call = runCallOf(context, step);
  return call === undefined ? undefined : !USABLE_OUTCOMES.has(call.outcome);
}

/** A completed step as {@link runCallOf} and {@link callFailedIn} read it (`AgentStep`-like). */
export interface RecordedStep {
  readonly action: { readonly tool: string; readonly toolInput: unknown };
  readonly observation: unknown;
}

/**
 * The run's call record of a completed step: the latest record of the same tool and input whose
 * observation is the step's; `undefined` when there is none (a tool the ToolExecutor did not wrap).
 */
export function runCallOf(context: Pick<RunContext, "calls"> | undefined, step: RecordedStep): RunCallRecord | undefined {
  const calls = context?.calls;
  if (calls === undefined) return undefined;
  const input = stableStringify(step.action.toolInput);
  const observation = typeof step.observation === "string" ? step.observation : stableStringify(step.observation);
  for (let index = calls.length - 1; index >= 0; index -= 1) {
    const call = calls[index];
    if (call.toolName === step.action.tool && call.observation === observation && stableStringify(call.toolInput) === input) return call;
  }
  return undefined;
}

/** Options for {@link RunContextStore}. */
export interface RunContextStoreOptions {
  /**
   * Clock in epoch milliseconds.
   * @default Date.now
   */
  now?: () => number;
}

/**
 * Holds the {@link RunContext} of every live run, keyed by the top-level run id, and the
 * parent links that map any nested run id (agent, LLM, tool) to its top-level run.
 *
 * One store is shared by the pieces of one agent (Reins' `createReactAgent` creates it); pieces
 * used alone create their own. State is freed with {@link RunContextStore.release} when the run
 * ends, so a store never grows with the number of runs served.
 *
 * @example
 * ```ts
 * const store = new RunContextStore();
 * store.start("run-1");
 * store.link("tool-run-7", "run-1");
 * store.contextOf("tool-run-7")?.loop.pendingNotes.push("You already called search with this input.");
 * store.release("run-1");
 * ```
 */
export class RunContextStore {
  private readonly runs = new Map<string, RunContext>();
  private readonly parents = new Map<string, string>();
  private readonly childrenByRoot = new Map<string, Set<string>>();
  private readonly now: () => number;

  constructor(options: RunContextStoreOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /** Number of live runs (for leak checks). */
  get size(): number {
    return this.runs.size;
  }

  /** Number of parent links held (for leak checks). */
  get linkCount(): number {
    return this.parents.size;
  }

  /**
   * Starts (or returns the existing) context of a top-level run.
   * @param runId - the top-level run id
   */
  start(runId: string): RunContext {
    let context = this.runs.get(runId);
    if (context === undefined) {
      context = { runId, startedAtMs: this.now(), loop: { pendingNotes: [] }, slots: new Map() };
      this.runs.set(runId, context);
    }
    return context;
  }

  /**
   * Records that `childRunId` runs inside `parentRunId` (any depth), so
   * {@link RunContextStore.rootOf} can find the top-level run from it.
   */
  link(childRunId: string, parentRunId: string): void {
    if (childRunId === parentRunId) return;
    this.parents.set(childRunId, parentRunId);
    const root = this.rootOf(parentRunId);
    let children = this.childrenByRoot.get(root);
    if (children === undefined) {
      children = new Set();
      this.childrenByRoot.set(root, children);
    }
    children.add(childRunId);
  }

  /** The top-level run id that `runId` belongs to (itself when it has no known parent). */
  rootOf(runId: string): string {
    let current = runId;
    // Bounded walk: parent links form a tree, but never trust that blindly.
    for (let depth = 0; depth < 1000; depth += 1) {
      const parent = this.parents.get(current);
      if (parent === undefined) return current;
      current = parent;
    }
    return current;
  }

  /** The context of the top-level run that `runId` (any nested run id) belongs to, if live. */
  contextOf(runId: string | undefined): RunContext | undefined {
    if (runId === undefined) return undefined;
    return this.runs.get(this.rootOf(runId));
  }

  /**
   * The run of the tool call in progress, when this store can tell it without run ids; always
   * `undefined` here. Reins' `createReactAgent` overrides it on its callback-free path, where
   * LangChain hands a tool no run id: each call the agent planned is bound to the run whose
   * trajectory chose it. The `ToolExecutor` asks it only when no run id of the call is known.
   */
  contextOfCall(): RunContext | undefined {
    return undefined;
  }

  /** Frees a top-level run's context and every parent link under it. */
  release(runId: string): void {
    const root = this.rootOf(runId);
    this.runs.delete(root);
    const children = this.childrenByRoot.get(root);
    if (children !== undefined) {
      for (const child of children) this.parents.delete(child);
      this.childrenByRoot.delete(root);
    }
  }
}

/**
 * Finds the run ids LangChain hands a tool or runnable: the tool's own run id and its parent's,
 * from the `runManager` (second argument of a tool's `_call`) or the `RunnableConfig`.
 * Returns the most specific id first; callers look each up with {@link RunContextStore.contextOf}.
 *
 * @param source - a `CallbackManagerForToolRun`-like object or a `RunnableConfig`-like object
 */
export function runIdsFrom(source: unknown): string[] {
  const ids: string[] = [];
  if (source === null || typeof source !== "object") return ids;
  const record = source as Record<string, unknown>;
  for (const key of ["runId", "parentRunId", "_parentRunId"]) {
    const value = record[key];
    if (typeof value === "string" && value.length > 0) ids.push(value);
  }
  const callbacks = record.callbacks;
  if (callbacks !== null && typeof callbacks === "object" && !Array.isArray(callbacks)) {
    const manager = callbacks as Record<string, unknown>;
    for (const key of ["runId", "_parentRunId", "parentRunId"]) {
      const value = manager[key];
      if (typeof value === "string" && value.length > 0) ids.push(value);
    }
  }
  return ids;
}
