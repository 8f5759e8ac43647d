import type { AgentFinish } from "@langchain/core/agents";
import { STOP_REASONS, type RunContext, type RunStatus, type StopReason } from "@reins/core";
import type { RunState } from "./run-state";

const STOP_REASON_SET: ReadonlySet<string> = new Set<StopReason>(STOP_REASONS);

/** AgentExecutor's own answer when it runs out of iterations (LangChain 0.3 and 1.x wordings). */
const EXECUTOR_STOPPED_OUTPUT = /^Agent stopped due to (iteration limit|max iterations)/;

/**
 * What an `AgentFinish` was: the model's own answer (a model turn, `final_answer`), a graceful
 * stop's answer (`returnValues.stopReason`), AgentExecutor's iteration-limit answer (`max_steps`)
 * or a returnDirect tool's result (an empty log after at least one step: no model turn).
 */
export function finishKindOf(finish: AgentFinish, steps: number): { modelTurn: boolean; stopReason: StopReason } {
  const reason = finish.returnValues?.stopReason;
  const graceful = typeof reason === "string" && STOP_REASON_SET.has(reason) && reason !== "final_answer";
  const output = finish.returnValues?.output;
  const executorStopped = typeof output === "string" && EXECUTOR_STOPPED_OUTPUT.test(output);
  // AgentExecutor ends a run on a returnDirect tool with an empty log: no model turn.
  const returnDirect = !graceful && !executorStopped && (finish.log ?? "").trim().length === 0 && steps > 0;
  return {
    modelTurn: !graceful && !executorStopped && !returnDirect,
    stopReason: graceful ? (reason as StopReason) : executorStopped ? "max_steps" : "final_answer",
  };
}

/** The `run_end` status and stop reason of a run whose top-level chain ended with `output`. */
export function runEndOf(state: RunState, context: RunContext | undefined, output: unknown): { status: RunStatus; stopReason: StopReason } {
  // When the model answered, a budget its last call crossed (a stop still pending) refused
  // nothing: the run is a success.
  const answered = state.finishStopReason === "final_answer";
  if (state.finishStopReason !== undefined && !answered) return { status: "stopped", stopReason: state.finishStopReason };
  if (!answered && context?.loop.stop !== undefined) return { status: "stopped", stopReason: context.loop.stop.reason };
  if (typeof output === "string" && EXECUTOR_STOPPED_OUTPUT.test(output)) return { status: "stopped", stopReason: "max_steps" };
  return { status: "success", stopReason: "final_answer" };
}
