import type { RunContext, RunContextStore } from "@reins/core";
import { activeMsOf, invocationMarker, newInvocation } from "./invocation";
import type { RunSlot } from "./middleware-run-state";
import type { ReinsRunRecord } from "./run-record";

/** The key of the middleware's slot in `RunContext.slots`. */
const RUN_SLOT = "@reins/agent-middleware";

/** Graph steps a resumed invocation may run before Reins' first hook (the interrupted node again). */
const RESUME_STEPS = 2;

/** A run this process holds: the shared `RunContext` (the ToolExecutor's call counts) and the middleware's slot. */
export interface LiveRun {
  readonly context: RunContext;
  readonly slot: RunSlot;
}

/**
 * What stays per process of the middleware's runs: the `RunContext` the ToolExecutor counts calls
 * in, the tool-call corrections of the last model reply, the current graph invocation. Everything
 * a resume needs is in the run record in graph state; a run this process has not seen (another
 * process's, a rebuilt agent's, one evicted here) is adopted from the record and its saved
 * messages: `resumedCallCounts` from the calls' typed outcomes, a new invocation.
 *
 * At most `maxActiveRuns` runs are held (oldest released first); a released run that comes back
 * is adopted again, so eviction loses no protection.
 */
export class MiddlewareRunContexts {
  private readonly live: string[] = [];

  constructor(
    private readonly store: RunContextStore,
    private readonly maxActiveRuns: number,
    private readonly now: () => number,
  ) {}

  /** Starts a new run (a new input on the thread). */
  start(record: ReinsRunRecord): LiveRun {
    return this.hold(record, undefined);
  }

  /**
   * The live run of `record`: this process's, or adopted from the record (`adopted: true`) with
   * the call counts it holds. A run paused at an interrupt here starts a new invocation.
   * @param callCounts - calls per tool that count against `maxCallsPerRun`, for a run adopted here
   */
  adopt(record: ReinsRunRecord, callCounts: () => ReadonlyMap<string, number>): LiveRun & { readonly adopted: boolean } {
    const context = this.store.contextOf(record.runId);
    const slot = context?.slots.get(RUN_SLOT) as RunSlot | undefined;
    if (context !== undefined && slot !== undefined) {
      // A resume of a run this process ran (the same agent after an interrupt): a new invocation.
      const marker = invocationMarker();
      if (slot.invocation.paused || (marker !== undefined && marker !== slot.invocation.marker)) {
        slot.invocation = newInvocation(this.now(), record.activeMs, RESUME_STEPS);
        slot.lastDecisionAtMs = this.now();
      }
      return { context, slot, adopted: false };
    }
    return { ...this.hold(record, callCounts()), adopted: true };
  }

  /** The run's active time so far, in ms (paused time excluded). */
  activeMs(run: LiveRun): number {
    return activeMsOf(run.slot.invocation, this.now());
  }

  /** Frees a run (its end, or eviction). */
  release(runId: string): void {
    this.store.release(runId);
    const index = this.live.indexOf(runId);
    if (index >= 0) this.live.splice(index, 1);
  }

  private hold(record: ReinsRunRecord, resumedCallCounts: ReadonlyMap<string, number> | undefined): LiveRun {
    const context = this.store.start(record.runId);
    if (resumedCallCounts !== undefined && resumedCallCounts.size > 0) context.resumedCallCounts = resumedCallCounts;
    if (record.stop !== undefined) context.loop.stop = record.stop;
    const slot: RunSlot = { corrections: new Map(), modelStartedAtMs: undefined, lastDecisionAtMs: this.now(), invocation: newInvocation(this.now(), record.activeMs, resumedCallCounts === undefined ? 0 : RESUME_STEPS) };
    context.slots.set(RUN_SLOT, slot);
    this.live.push(record.runId);
    while (this.live.length > this.maxActiveRuns) {
      const oldest = this.live.shift();
      if (oldest !== undefined) this.store.release(oldest);
    }
    return { context, slot };
  }
}
