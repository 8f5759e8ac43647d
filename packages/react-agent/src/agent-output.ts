import type { AgentStep } from "@langchain/core/agents";
import { STOP_REASONS, type StopReason } from "@reins/core";
import { ReactAgentError } from "./errors";

/** One finding of a stopped run: a call the run made and what it returned. */
export interface ReinsAgentFinding {
  readonly tool: string;
  readonly toolInput: unknown;
  readonly observation: string;
}

/**
 * The typed result of a run of Reins' agent under LangChain's `AgentExecutor`: what
 * `executor.invoke(...)` returns (and the last chunk of `stream()`), read with
 * {@link readReinsAgentOutput}.
 */
export interface ReinsAgentOutput {
  /** The answer: the model's final answer, or the graceful answer of a stopped run. */
  readonly output: string;
  /**
   * Why the run ended: `final_answer` when the model answered; a loop or budget reason when loop
   * control stopped it; `max_steps` also when the executor's own `maxIterations` ended it first.
   */
  readonly stopReason: StopReason;
  /** The calls a stopped run made, oldest first (the answer lists them); `[]` for an answer. */
  readonly findings: readonly ReinsAgentFinding[];
  /** True when the executor's `maxIterations` ended the run, not the agent. */
  readonly executorLimit: boolean;
  /** The executor's steps, when it was built with `returnIntermediateSteps: true`. */
  readonly intermediateSteps?: readonly AgentStep[];
}

const STOP_REASON_SET: ReadonlySet<string> = new Set<string>(STOP_REASONS);

/** AgentExecutor's own answer when it runs out of iterations (LangChain 0.3 and 1.x wordings). */
const EXECUTOR_STOPPED_OUTPUT = /^Agent stopped due to (iteration limit|max iterations)/;

/**
 * Reads the result of `executor.invoke(...)` (or the last `stream()` chunk) as a
 * {@link ReinsAgentOutput}.
 *
 * @param result - the executor's returned values
 * @param outputKey - the answer's key (the agent's `returnValues[0]`)
 * @throws {ReactAgentError} when `result` has no string answer under `outputKey`, or a
 *   `stopReason` that is not one of `STOP_REASONS`
 * @example
 * ```ts
 * const { output, stopReason } = readReinsAgentOutput(await executor.invoke({ input }));
 * ```
 */
export function readReinsAgentOutput(result: unknown, outputKey = "output"): ReinsAgentOutput {
  if (result === null || typeof result !== "object") {
    throw new ReactAgentError({ message: `Expected the executor's result object, got ${result === null ? "null" : typeof result}.` });
  }
  const values = result as Record<string, unknown>;
  const output = values[outputKey];
  if (typeof output !== "string") {
    throw new ReactAgentError({
      message: `The executor's result has no string "${outputKey}" (keys: ${Object.keys(values).join(", ") || "none"}).`,
    });
  }
  const executorLimit = values.stopReason === undefined && EXECUTOR_STOPPED_OUTPUT.test(output);
  const reason = values.stopReason ?? (executorLimit ? "max_steps" : undefined);
  if (typeof reason !== "string" || !STOP_REASON_SET.has(reason)) {
    throw new ReactAgentError({
      message: `The executor's result has stopReason ${JSON.stringify(reason)}, not one of ${STOP_REASONS.join(", ")}: was the agent built by Reins' createReactAgent?`,
    });
  }
  const findings = Array.isArray(values.findings) ? (values.findings as ReinsAgentFinding[]) : [];
  const steps = Array.isArray(values.intermediateSteps) ? (values.intermediateSteps as AgentStep[]) : undefined;
  return { output, stopReason: reason as StopReason, findings, executorLimit, ...(steps !== undefined ? { intermediateSteps: steps } : {}) };
}
