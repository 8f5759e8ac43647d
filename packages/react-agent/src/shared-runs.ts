import { AsyncLocalStorage } from "node:async_hooks";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { RunContextStore, type RunContext } from "@reins/core";

/** Most string-input calls waiting for their tool run at once; the oldest binding is dropped first. */
const MAX_PENDING_TEXT_CALLS = 1024;

/** Most run ids remembered as shared by two runs (see `SharedRunContexts.share`); the oldest is forgotten first. */
const MAX_CONFLICTED_IDS = 1024;

/** The call in flight and the store that bound it (a tool of one agent may run inside another's call). */
interface BoundCall {
  readonly owner: SharedRunContexts;
  readonly context: RunContext | undefined;
}

/** One scope for every agent (see `call-outcomes.ts` for why never one per instance). */
const scope = new AsyncLocalStorage<BoundCall>();

/**
 * The run contexts the agent's own ToolExecutor looks runs up in: the agent's `runContext` (the
 * callback path's runs), then the callback-free path's runs the agent shared from its planning
 * step under the LangChain run ids that step was handed (see `ReinsReactAgent`), then the run the
 * agent bound the call in progress to ({@link SharedRunContexts.contextOfCall}).
 *
 * Binding: each action the planning step returns is bound to the run whose trajectory (the steps
 * `plan()` received) chose it, by the action's input object (the classic `AgentExecutor` hands
 * the tool that same object on `invoke()` and `stream()`) or, for a string input, by tool name
 * and text. The agent's wrapped tools run each call inside that binding, so the ToolExecutor
 * finds the run without a run id: per-run dry-run tokens, call caps, idempotency keys and the time
 * budget hold on the callback-free path. A call the agent did not plan (or two concurrent runs
 * planning the same string call) finds no run, and the ToolExecutor fails safe.
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
  private readonly byInput = new WeakMap<object, WeakRef<RunContext>>();
  private readonly byText = new Map<string, WeakRef<RunContext>[]>();
  /** Run ids two live runs were handed (a caller's reused `runId`): no run is found by them. */
  private readonly conflicted = new Set<string>();

  /** @param base - the agent's `runContext`, looked up first */
  constructor(private readonly base: RunContextStore) {
    super();
  }

  /**
   * Makes `context` the run of every id in `runIds` (ids already known are left alone). The run
   * itself is Reins' (one per invocation, from its trajectory); the ids are LangChain's, and a
   * caller may hand two invocations the same `runId`. An id already shared by another live run
   * is therefore nobody's from then on: neither run is found by it (each still finds its own
   * calls through their binding), so one invocation never reaches the other's dry-run tokens,
   * call counts or cache.
   */
  share(context: RunContext, runIds: readonly string[]): void {
    for (const id of runIds) {
      if (this.conflicted.has(id)) continue;
      const known = this.byId.get(id)?.deref();
      if (known !== undefined && known !== context) {
        this.byId.delete(id);
        this.conflicted.add(id);
        while (this.conflicted.size > MAX_CONFLICTED_IDS) {
          const oldest = this.conflicted.values().next().value;
          if (oldest === undefined) break;
          this.conflicted.delete(oldest);
        }
        continue;
      }
      if (this.contextOf(id) !== undefined) continue;
      this.byId.set(id, new WeakRef(context));
      this.forget.register(context, id);
    }
  }

  /** Binds a call the planning step chose (tool and input, as the executor will hand them) to its run. */
  bind(toolName: string, toolInput: unknown, context: RunContext): void {
    if (toolInput !== null && typeof toolInput === "object") {
      this.byInput.set(toolInput, new WeakRef(context));
      return;
    }
    const key = textKey(toolName, toolInput);
    const pending = this.byText.get(key) ?? [];
    pending.push(new WeakRef(context));
    this.byText.delete(key);
    this.byText.set(key, pending);
    while (this.byText.size > MAX_PENDING_TEXT_CALLS) {
      const oldest = this.byText.keys().next().value;
      if (oldest === undefined) break;
      this.byText.delete(oldest);
    }
  }

  /**
   * Wraps a ToolExecutor-wrapped tool's `call` (which its `invoke` goes through) in place: the
   * call runs bound to the run that planned it, or bound to no run.
   */
  watch(tool: StructuredToolInterface): void {
    const inner = (tool as unknown as { call: (input: unknown, config?: unknown, tags?: unknown) => Promise<unknown> }).call;
    const call = (input: unknown, config?: unknown, tags?: unknown): Promise<unknown> =>
      scope.run({ owner: this, context: this.take(tool.name, input) }, () => inner.call(tool, input, config, tags));
    Object.defineProperty(tool, "call", { value: call, writable: true, configurable: true, enumerable: false });
  }

  /** The run the call in progress was bound to by this agent's planning step, if any. */
  override contextOfCall(): RunContext | undefined {
    const bound = scope.getStore();
    return bound !== undefined && bound.owner === this ? bound.context : undefined;
  }

  /** Number of ids held (for leak checks). */
  get sharedIdCount(): number {
    return this.byId.size;
  }

  override contextOf(runId: string | undefined): RunContext | undefined {
    if (runId === undefined) return undefined;
    return this.base.contextOf(runId) ?? this.byId.get(runId)?.deref();
  }

  /** The run a call was bound to; a string call planned by two live runs at once is bound to neither. */
  private take(toolName: string, input: unknown): RunContext | undefined {
    if (input !== null && typeof input === "object") return this.byInput.get(input)?.deref();
    const key = textKey(toolName, input);
    const pending = this.byText.get(key);
    if (pending === undefined) return undefined;
    const [first, ...others] = pending.map((ref) => ref.deref());
    if (others.some((context) => context !== first)) {
      // Two runs planned this very call: which is which cannot be told, so neither is bound.
      this.byText.delete(key);
      return undefined;
    }
    pending.shift();
    if (pending.length === 0) this.byText.delete(key);
    return first;
  }
}

function textKey(toolName: string, input: unknown): string {
  return `${toolName}\u0000${String(input)}`;
}
