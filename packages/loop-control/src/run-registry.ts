import type { RunContext, RunContextStore } from "@reins/core";

/** Run ids of evicted runs (and their chains) remembered so their late callbacks are ignored. */
export const MAX_REMEMBERED_EVICTED_IDS = 4096;

/** What the registry needs of a run's state. */
export interface RegisteredRun {
  readonly runId: string;
  /** When the run was last active (idle eviction), in the handler's clock. */
  lastSeenAtMs: number;
  /** Nested chain run ids linked to this run, remembered when the run is evicted. */
  readonly chainIds: Set<string>;
}

/**
 * The callback path's live runs, keyed by top-level run id and found from any nested run id
 * through the `RunContextStore`: least recently active first, with idle and capacity eviction
 * (no timer: checked when a run starts) and a bounded memory of evicted ids, so a late callback
 * of an evicted run never starts a new one.
 */
export class RunRegistry<S extends RegisteredRun> {
  private readonly states = new Map<string, S>();
  private readonly evicted = new Set<string>();

  constructor(
    private readonly store: RunContextStore,
    private readonly now: () => number,
  ) {}

  /** Live runs. */
  get size(): number {
    return this.states.size;
  }

  /** The state of a top-level run id (no lookup through nested ids, no touch). */
  get(runId: string): S | undefined {
    return this.states.get(runId);
  }

  add(state: S): void {
    this.states.set(state.runId, state);
  }

  delete(runId: string): void {
    this.states.delete(runId);
  }

  /** The first candidate that is a run id the store knows (a registered run or a linked child). */
  knownParent(...candidates: Array<string | undefined>): string | undefined {
    for (const candidate of candidates) {
      if (typeof candidate === "string" && this.store.contextOf(candidate) !== undefined) return candidate;
    }
    return undefined;
  }

  /** The live run `runId` (any nested id) belongs to; marks it as active just now. */
  find(runId: string): { state: S; context: RunContext } | undefined {
    const context = this.store.contextOf(runId);
    if (context === undefined) return undefined;
    const state = this.states.get(context.runId);
    if (state === undefined) return undefined;
    state.lastSeenAtMs = this.now();
    // Re-insert so `states` stays ordered from least to most recently active.
    this.states.delete(state.runId);
    this.states.set(state.runId, state);
    return { state, context };
  }

  /**
   * Runs idle for `idleTimeoutMs`, then the least recently active ones while a new run would
   * exceed `maxActiveRuns`, each handed to `evict` (which ends it) after its ids are remembered.
   */
  evictStale(now: number, idleTimeoutMs: number, maxActiveRuns: number, evict: (state: S, reason: "idle" | "capacity", idleMs: number) => void): void {
    for (const state of this.states.values()) {
      const idleMs = now - state.lastSeenAtMs;
      let reason: "idle" | "capacity" | undefined;
      if (idleMs >= idleTimeoutMs) reason = "idle";
      else if (this.states.size >= maxActiveRuns) reason = "capacity";
      else break;
      this.rememberEvicted(state.runId);
      for (const chainId of state.chainIds) this.rememberEvicted(chainId);
      evict(state, reason, idleMs);
    }
  }

  /** Whether `runId` belonged to an evicted run. */
  wasEvicted(runId: string): boolean {
    return this.evicted.has(runId);
  }

  /** Forgets an evicted id (its top-level chain has now ended). */
  forgetEvicted(runId: string): void {
    this.evicted.delete(runId);
  }

  rememberEvicted(runId: string): void {
    this.evicted.add(runId);
    if (this.evicted.size > MAX_REMEMBERED_EVICTED_IDS) {
      const oldest = this.evicted.values().next().value;
      if (oldest !== undefined) this.evicted.delete(oldest);
    }
  }
}
