import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { LoopFinishStep } from "@reins/core";
import type { Invocation } from "./invocation";
import { resultFactsOf, textOf } from "./run-record";
import type { ProvenanceCache } from "./untrusted-provenance";

/** Per-process state of one run of the middleware, in the run's `RunContext` slots. */
export interface RunSlot {
  /** Corrective texts for calls that cannot run, by tool-call id. */
  readonly corrections: Map<string, string>;
  modelStartedAtMs: number | undefined;
  /** When the last model turn was decided (or the invocation began), for `step_duration{phase="cycle"}`. */
  lastDecisionAtMs: number;
  /** The graph invocation this process is running the run in. */
  invocation: Invocation;
  /** What this process has read of the run's untrusted text (the record keeps the keys). */
  provenance?: ProvenanceCache;
}

// One reading of a message's text, kept in the lower file (run-record.ts) and shared from here.
export { textOf };

/** The completed tool calls of a run's messages, as loop-finish steps (AI call + its ToolMessage). */
export function findingsOf(messages: readonly BaseMessage[]): LoopFinishStep[] {
  const calls = new Map<string, { tool: string; toolInput: unknown }>();
  const steps: LoopFinishStep[] = [];
  for (const message of messages) {
    if (AIMessage.isInstance(message)) {
      for (const call of message.tool_calls ?? []) if (call.id !== undefined) calls.set(call.id, { tool: call.name, toolInput: call.args });
    } else if (ToolMessage.isInstance(message)) {
      const action = calls.get(message.tool_call_id);
      if (action !== undefined) {
        const facts = resultFactsOf(message);
        steps.push({ action, observation: facts.observation, failed: facts.failed });
      }
    }
  }
  return steps;
}
