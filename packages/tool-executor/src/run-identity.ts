import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import type { RunnableConfig } from "@langchain/core/runnables";
import { runIdsFrom, type RunContext, type RunContextStore } from "@reins/core";

/** Which run a tool call belongs to, as far as LangChain lets the tool tell. */
export interface RunIdentity {
  /**
   * The run's id: the registered top-level run (`runContext`), else the tool run's parent run.
   * `undefined` when the call carries no run id at all.
   */
  readonly runId: string | undefined;
  /** The registered run context, when `runContext` knows the run. */
  readonly context: RunContext | undefined;
}

/**
 * Tells which run a tool call belongs to, from what each LangChain path hands a tool today
 * (`@langchain/classic` 1.0 and `langchain` 0.3 `AgentExecutor`):
 * - `invoke()` with callbacks, `stream()` with callbacks, `streamEvents()` (which always adds its
 *   own handler): a child `CallbackManager` of the executor's chain run, so the tool run has a
 *   parent run id (and the registered run is found through it);
 * - `invoke()` without callbacks: `configurable` and `metadata` but no run id;
 * - `stream()` without callbacks: no config at all.
 * The store may know the call's run without ids (`RunContextStore.contextOfCall`: Reins'
 * `createReactAgent` binds each call it planned to its run, one per invocation): that run is
 * asked first, since LangChain's ids can be a caller's `runId` shared by two invocations. Otherwise the run cannot be
 * told apart from any other: callers then fail safe (no run-scoped cache entry, no per-run limits,
 * no confirmation token accepted). This is the one place to re-wire when run identity
 * moves elsewhere.
 *
 * @param runManager - the wrapper's tool run (from `handleToolStart`), when callbacks are on
 * @param config - the config the caller handed the tool
 * @param store - the shared run contexts, when the executor has one
 */
export function identifyRun(runManager: CallbackManagerForToolRun | undefined, config: RunnableConfig, store: RunContextStore | undefined): RunIdentity {
  // The run Reins bound this call to (one per invocation, issued by Reins) wins over LangChain's
  // ids, which a caller chooses (`runId`) and may hand two invocations.
  const boundFirst = store?.contextOfCall();
  if (boundFirst !== undefined) return { runId: boundFirst.runId, context: boundFirst };
  const ids = [...runIdsFrom(runManager), ...runIdsFrom(config)];
  if (store !== undefined) {
    for (const id of ids) {
      const context = store.contextOf(id);
      if (context !== undefined) return { runId: context.runId, context };
    }
  }
  return { runId: runManager?.parentRunId ?? ids[1], context: undefined };
}
