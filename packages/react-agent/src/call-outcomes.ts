import { AsyncLocalStorage } from "node:async_hooks";
import type { AgentStep } from "@langchain/core/agents";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { outcomeFailed, stableStringify, type ReinsEvent, type ToolCallOutcome } from "@reins/core";

/** Most call outcomes remembered until the agent's next planning call reads them. */
const MAX_REMEMBERED = 4096;

/**
 * The failed/succeeded outcome of each call through the agent's ToolExecutor, as a typed fact,
 * so the graceful answer never has to recognise a failure by its wording.
 *
 * The ToolExecutor reports each call's outcome in a `tool_call` event emitted inside the call;
 * the agent's wrapper around each tool's `call` runs the call in an `AsyncLocalStorage` scope that
 * catches that event (so concurrent calls never mix), then remembers the outcome under the call's
 * tool, input and observation, the three things the next planning call sees in the step. Two
 * concurrent calls with the same tool, input and observation share one entry; their outcome is
 * then the same in practice, and an entry never crosses into another key.
 */
/**
 * One scope for every agent, never one per instance: Node keeps each `AsyncLocalStorage` that was
 * ever entered in a process-wide list for good and copies a slot for each onto every async
 * resource created afterwards, so one per agent makes every promise of the process bigger and
 * slower with each agent ever built (an app building an agent per request runs out of memory).
 */
const scope = new AsyncLocalStorage<CallScope>();

/** The call in flight, and the outcomes it belongs to (a tool of one agent may run inside another's call). */
interface CallScope {
  readonly owner: CallOutcomes;
  outcome?: ToolCallOutcome;
}

export class CallOutcomes {
  private readonly outcomeByKey = new Map<string, ToolCallOutcome>();

  /** The ToolExecutor event listener: records the outcome of the call in scope. */
  record(event: ReinsEvent): void {
    if (event.type !== "tool_call") return;
    const store = scope.getStore();
    if (store !== undefined && store.owner === this) store.outcome = event.outcome;
  }

  /** Wraps a ToolExecutor-wrapped tool's `call` (which its `invoke` goes through) in place. */
  watch(tool: StructuredToolInterface): void {
    const inner = (tool as unknown as { call: (input: unknown, config?: unknown, tags?: unknown) => Promise<unknown> }).call;
    const call = async (input: unknown, config?: unknown, tags?: unknown): Promise<unknown> => {
      const store: CallScope = { owner: this };
      const observation = await scope.run(store, () => inner.call(tool, input, config, tags));
      if (store.outcome !== undefined) this.remember(keyOf(tool.name, input, observation), store.outcome);
      return observation;
    };
    Object.defineProperty(tool, "call", { value: call, writable: true, configurable: true, enumerable: false });
  }

  /** Whether a completed step's call failed, when its outcome was recorded. */
  failedOf(step: AgentStep): boolean | undefined {
    const outcome = this.outcomeOf(step);
    return outcome === undefined ? undefined : outcomeFailed(outcome);
  }

  /** The typed outcome of a completed step's call (`tool_calls_total`'s `outcome`), when it was recorded. */
  outcomeOf(step: AgentStep): ToolCallOutcome | undefined {
    return this.outcomeByKey.get(keyOf(step.action.tool, step.action.toolInput, step.observation));
  }

  private remember(key: string, outcome: ToolCallOutcome): void {
    this.outcomeByKey.delete(key);
    this.outcomeByKey.set(key, outcome);
    if (this.outcomeByKey.size > MAX_REMEMBERED) {
      const oldest = this.outcomeByKey.keys().next().value;
      if (oldest !== undefined) this.outcomeByKey.delete(oldest);
    }
  }
}

function keyOf(tool: string, input: unknown, observation: unknown): string {
  const inputText = typeof input === "string" ? input : stableStringify(input);
  const observationText = typeof observation === "string" ? observation : stableStringify(observation);
  return `${tool}\u0000${inputText}\u0000${observationText}`;
}
