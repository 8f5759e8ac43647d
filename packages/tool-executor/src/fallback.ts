import { redactError } from "@reins/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import { ToolExecutorOptionsError } from "./errors";
import type { CallResult, ExecutorContext, ToolState } from "./executor-context";
import { failureObservation, outcomeOf } from "./failure-observation";
import { ensureReadableObservation } from "./format-observation";
import { MODEL_MESSAGES } from "./messages";
import { toError } from "./normalize-error";
import type { RunHandle } from "./run-slots";
import type { ResolvedToolPolicy } from "./tool-policy";

/**
 * The result of a failed call: the model-facing failure observation, with secrets in the quoted
 * error redacted (`secretRedaction`; a `secret_redaction` event says what), and the typed error.
 */
export function failureResult(executor: ExecutorContext, state: ToolState, error: Error, attempts: number, runId: string | undefined): CallResult {
  // The error is redacted before the preview folds its lines, so a secret wrapped over lines (a JWT, a PEM block) is still seen whole.
  const redactor = executor.options.secretRedactor;
  const redactedError = redactError(error, redactor);
  const preview = failureObservation(state.name, redactedError.value, attempts, state.policy.circuitBreaker?.halfOpenAfterMs ?? 0);
  const redactedPreview = redactor.redactText(preview);
  const observation = redactedPreview.value;
  // Counted once per secret of the quoted message (the error's stack and fields repeat it).
  const kinds = [...redactor.redactText(error.message).kinds, ...redactedPreview.kinds];
  if (kinds.length > 0) executor.emit({ type: "secret_redaction", surface: "preview", kinds, ...(runId !== undefined ? { runId } : {}) });
  return { observation, outcome: outcomeOf(error), error };
}

/**
 * Answers a failed call from its `fallback`: a text, a value, a function's result, or another
 * wrapped tool (its own resilience chain, without a further fallback; never a `sideEffects` tool,
 * which is refused and logged at `error`). A fallback that throws answers the original failure.
 */
export async function runFallback(
  executor: ExecutorContext,
  state: ToolState,
  fallback: NonNullable<ResolvedToolPolicy["fallback"]>,
  toolInput: unknown,
  cause: Error,
  attempts: number,
  config: RunnableConfig,
  run: RunHandle,
): Promise<CallResult> {
  const toolName = state.name;
  const context = { toolName, toolInput, ...(run.runId !== undefined ? { runId: run.runId } : {}) };
  try {
    if (typeof fallback === "string") return { observation: ensureReadableObservation(fallback, toolName), outcome: "fallback", error: cause };
    if (typeof fallback === "function") {
      const value = await fallback(cause, toolInput);
      return { observation: executor.format(value, context), outcome: "fallback", error: cause, artifact: value };
    }
    if ("message" in fallback) return { observation: ensureReadableObservation(fallback.message, toolName), outcome: "fallback", error: cause };
    if ("value" in fallback) return { observation: executor.format(fallback.value, context), outcome: "fallback", error: cause, artifact: fallback.value };
    const backup = executor.stateOf(fallback.tool);
    if (backup === undefined || backup === state || backup.policy.sideEffects) {
      const error = new ToolExecutorOptionsError({
        field: `policies.${toolName}.fallback.tool`,
        value: fallback.tool,
        reason:
          backup !== undefined && backup !== state
            ? `"${fallback.tool}" has sideEffects: a fallback call would skip its dry run, confirmation and idempotency key`
            : `no other tool named "${fallback.tool}" is wrapped by this executor (wrapped: ${executor.toolNames().join(", ")})`,
      });
      executor.log("error", error.message, { toolName, error });
      return failureResult(executor, state, cause, attempts, run.runId);
    }
    const withoutFallback: ToolState = { ...backup, policy: { ...backup.policy, fallback: undefined } };
    const backupResult = await executor.runResilient(withoutFallback, toolInput, config, run);
    if (backupResult.outcome !== "success") {
      return { observation: MODEL_MESSAGES.fallbackToolFailed(toolName, backup.name), outcome: outcomeOf(cause), error: cause };
    }
    return {
      observation: MODEL_MESSAGES.fallbackUsed(toolName, backup.name, backupResult.observation),
      outcome: "fallback",
      error: cause,
      artifact: backupResult.artifact,
    };
  } catch (fallbackError) {
    executor.log("warn", `Fallback of tool "${toolName}" threw.`, { toolName, error: toError(fallbackError), cause });
    return failureResult(executor, state, cause, attempts, run.runId);
  }
}
