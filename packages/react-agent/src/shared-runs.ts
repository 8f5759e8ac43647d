import { RunContextStore, type RunContext } from "@reins/core";

/**
 * The run contexts the agent's own ToolExecutor looks runs up in: the agent's `runContext` (the
 * callback path's runs), then the callback-free path's runs the agent shared from its planning
 * step under the LangChain run ids that step was handed (see `ReinsReactAgent`).
 *
 * Held weakly: a shared context lives as long as its run's loop state, which lives as long as the
 * executor's trajectory, so a run the executor abandons (its `maxIterations`, an abort, an error
 * thrown past the agent) is freed with it and nothing is ever released by hand.
 */
export class SharedRunContexts extends RunContextStore {
  private readonly byId = new Map<string, WeakRef<RunContext>>();
  private readonly forget = new FinalizationRegistry<string>((id) => {
    if (this.byId.get(id)?.deref() === undefined) this.byId.delete(id);
  });

  /** @param base - the agent's `runContext`, looked up first */
  constructor(private readonly base: RunContextStore) {
    super();
  }

  /** Makes `context` the run of every id in `runIds` (ids already known are left alone). */
  share(context: RunContext, runIds: readonly string[]): void {
    for (const id of runIds) {
      if (this.contextOf(id) !== undefined) continue;
      this.byId.set(id, new WeakRef(context));
      this.forget.register(context, id);
    }
  }

  /** Number of ids held (for leak checks). */
  get sharedIdCount(): number {
    return this.byId.size;
  }

  override contextOf(runId: string | undefined): RunContext | undefined {
    if (runId === undefined) return undefined;
    return this.base.contextOf(runId) ?? this.byId.get(runId)?.deref();
  }
}
