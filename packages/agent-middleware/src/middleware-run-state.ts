import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { stripLoopNotes, type LoopFinishStep, type LoopStopDecision } from "@reins/core";
import type { RunLoopMonitor } from "./loop-monitor";

/** Per-run state of the middleware, in the run's `RunContext` slots. */
export interface RunSlot {
  readonly monitor: RunLoopMonitor | undefined;
  /** Corrective texts for calls that cannot run, by tool-call id. */
  readonly corrections: Map<string, string>;
  modelStartedAtMs: number | undefined;
  /** LangGraph's step number at the last `beforeModel`, to measure how many steps a turn takes. */
  lastModelStep: number | undefined;
  turnSteps: number | undefined;
}

/** Graph steps one model turn takes before it is measured (before_model, model, after_model, tools). */
const DEFAULT_TURN_STEPS = 4;

/**
 * The decision to stop before LangGraph's recursion limit would end the run with a
 * `GraphRecursionError` (what LangChain v1 has instead of a graceful stop): the next turn would
 * not leave room for the graceful end. Reads the node's config (`recursionLimit`,
 * `metadata.langgraph_step`) from LangChain's async-local config.
 */
export function recursionStop(slot: RunSlot): LoopStopDecision | undefined {
  const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as
    | { recursionLimit?: unknown; metadata?: { langgraph_step?: unknown } }
    | undefined;
  const step = config?.metadata?.langgraph_step;
  const limit = config?.recursionLimit;
  if (typeof step !== "number" || typeof limit !== "number") return undefined;
  if (slot.lastModelStep !== undefined && step > slot.lastModelStep) slot.turnSteps = step - slot.lastModelStep;
  slot.lastModelStep = step;
  const turnSteps = slot.turnSteps ?? DEFAULT_TURN_STEPS;
  if (step + turnSteps + 1 < limit) return undefined;
  return {
    reason: "max_steps",
    message: `LangGraph's recursion limit of ${limit} steps would be reached in the next turn (step ${step}, ${turnSteps} steps per turn); raise recursionLimit above ${turnSteps} × maxSteps for longer runs.`,
  };
}

/** The text of a message: its string content, or its text blocks joined. */
export function textOf(message: BaseMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => (typeof block === "string" ? block : block !== null && typeof block === "object" && "text" in block && typeof block.text === "string" ? block.text : ""))
    .join("");
}

/** The completed tool calls of a run's messages, as loop-finish steps (AI call + its ToolMessage). */
export function findingsOf(messages: readonly BaseMessage[]): LoopFinishStep[] {
  const calls = new Map<string, { tool: string; toolInput: unknown }>();
  const steps: LoopFinishStep[] = [];
  for (const message of messages) {
    if (AIMessage.isInstance(message)) {
      for (const call of message.tool_calls ?? []) if (call.id !== undefined) calls.set(call.id, { tool: call.name, toolInput: call.args });
    } else if (ToolMessage.isInstance(message)) {
      const action = calls.get(message.tool_call_id);
      if (action !== undefined) steps.push({ action, observation: stripLoopNotes(textOf(message)), failed: message.status === "error" });
    }
  }
  return steps;
}
