import type { AgentStep } from "@langchain/core/agents";
import type { ReinsEvent, RunContextStore } from "@reins/core";
import { StoppedRunCallError } from "@reins/tool-executor";

/*
 * Typed facts about a run's calls on the callback path (a `LoopControlHandler` you built): the
 * calls the ToolExecutor refused because the run was stopping, counted from its typed events,
 * never recognised by their wording.
 */

/** The run-context slot where the agent counts the tool calls refused because the run was stopping. */
export const REFUSED_CALLS_SLOT = "reins.react_agent.refused_calls";

/**
 * Counts, per run, the calls the ToolExecutor refused because loop control had stopped the run: a
 * `tool_call` event with outcome `rejected` carrying a `StoppedRunCallError` (a typed marker, not the
 * observation's wording). Such calls ran no tool, so the graceful answer leaves them out.
 */
export function recordRefusedCall(runContext: RunContextStore, event: ReinsEvent): void {
  if (event.type !== "tool_call" || event.outcome !== "rejected" || event.runId === undefined) return;
  if (!StoppedRunCallError.isInstance(event.error)) return;
  const context = runContext.contextOf(event.runId);
  if (context === undefined) return;
  const refused = context.slots.get(REFUSED_CALLS_SLOT);
  context.slots.set(REFUSED_CALLS_SLOT, (typeof refused === "number" ? refused : 0) + 1);
}

/**
 * The steps without the last `refused` tool steps. Once a run is stopped every later tool call is
 * refused (the decision is never withdrawn), so refused calls are the last tool steps of the run;
 * the executor's `_Exception` steps (parse errors) call no tool and are skipped over.
 */
export function withoutRefusedSteps(steps: readonly AgentStep[], refused: number): AgentStep[] {
  const kept = [...steps];
  let remaining = refused;
  for (let index = kept.length - 1; index >= 0 && remaining > 0; index -= 1) {
    if (kept[index].action.tool === "_Exception") continue;
    kept.splice(index, 1);
    remaining -= 1;
  }
  return kept;
}

