import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { RunContext, RunContextStore } from "@reins/core";
import { identifyRun } from "./run-identity";

/** One run's bookkeeping for one executor: call counts and confirmed side-effect keys. */
export interface RunSlot {
  readonly callCounts: Map<string, number>;
  readonly idempotency: Map<string, { observation?: string }>;
}

/** The run a call belongs to, as far as it can be told. */
export interface RunHandle {
  /** Id reported on events: the registered top-level run, or the tool run's parent run. */
  readonly runId: string | undefined;
  readonly context: RunContext | undefined;
  readonly slot: RunSlot | undefined;
}

function newSlot(): RunSlot {
  return { callCounts: new Map(), idempotency: new Map() };
}

/**
 * The run slots of one executor: in the registered run's context when `runContext` knows the
 * run, else in a bounded LRU keyed by the tool run's parent run id (oldest dropped first).
 */
export class RunSlots {
  private readonly trackedRuns = new Map<string, RunSlot>();

  /**
   * @param slotKey - this executor's key in `RunContext.slots`
   * @param maxTrackedRuns - runs kept in the LRU
   * @param store - the shared run contexts, if any
   */
  constructor(
    private readonly slotKey: string,
    private readonly maxTrackedRuns: number,
    private readonly store: RunContextStore | undefined,
  ) {}

  /** Finds the run of a call: a registered run in the store, else the tool run's parent run. */
  find(runManager: CallbackManagerForToolRun | undefined, config: RunnableConfig): RunHandle {
    const { runId: parentRunId, context } = identifyRun(runManager, config, this.store);
    if (context !== undefined) {
      let slot = context.slots.get(this.slotKey) as RunSlot | undefined;
      if (slot === undefined) {
        slot = newSlot();
        context.slots.set(this.slotKey, slot);
      }
      return { runId: context.runId, context, slot };
    }
    if (parentRunId === undefined) return { runId: undefined, context: undefined, slot: undefined };
    let slot = this.trackedRuns.get(parentRunId);
    if (slot === undefined) {
      slot = newSlot();
      this.trackedRuns.set(parentRunId, slot);
      while (this.trackedRuns.size > this.maxTrackedRuns) {
        const oldest = this.trackedRuns.keys().next().value;
        if (oldest === undefined) break;
        this.trackedRuns.delete(oldest);
      }
    }
    return { runId: parentRunId, context: undefined, slot };
  }
}

/** Takes the run's pending loop notes (they are appended to this observation), or `undefined`. */
export function drainNotes(run: RunHandle): string | undefined {
  const notes = run.context?.loop.pendingNotes;
  if (notes === undefined || notes.length === 0) return undefined;
  const drained = notes.splice(0, notes.length).filter((note) => typeof note === "string" && note.trim() !== "");
  return drained.length === 0 ? undefined : drained.join("\n");
}
