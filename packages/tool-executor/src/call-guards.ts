import { normalizeToolInput } from "@reins/core";
import { CallLimitExceededError, DuplicateCallError } from "./errors";
import type { CallResult, ToolState } from "./executor-context";
import { ensureReadableObservation } from "./format-observation";
import { DEFAULT_STRING_CONFIRMATION_HINT, MODEL_MESSAGES } from "./messages";
import type { RunHandle } from "./run-slots";
import { previewText } from "./tool-input";

/** The dry-run answer of an unconfirmed side-effect call, or `undefined` when the call may run. */
export function dryRun(state: ToolState, toolInput: unknown, confirmed: boolean): CallResult | undefined {
  const { policy, name: toolName } = state;
  if (!policy.sideEffects || confirmed) return undefined;
  const observation =
    policy.preview?.(toolInput, { toolName }) ??
    (state.kind === "object"
      ? MODEL_MESSAGES.dryRunObject(toolName, previewText(toolInput))
      : MODEL_MESSAGES.dryRunString(toolName, previewText(toolInput), policy.confirmWhen === undefined ? DEFAULT_STRING_CONFIRMATION_HINT : "with an explicit confirmation"));
  return { observation: ensureReadableObservation(observation, toolName), outcome: "dry_run" };
}

/** A confirmed side-effect call's place in its run's idempotency keys. */
export interface IdempotencyClaim {
  readonly slotKey: string;
}

/**
 * Checks a confirmed side-effect call against the keys its run already used.
 * @returns a `rejected` result for a repeat, the claim to register once the call goes ahead, or
 *   `undefined` when there is no key (no `idempotencyKey`, or no run: `warnNoRun` is called)
 */
export function checkIdempotency(state: ToolState, toolInput: unknown, run: RunHandle, warnNoRun: (toolName: string, feature: string) => void): CallResult | IdempotencyClaim | undefined {
  const { policy, name: toolName } = state;
  if (!policy.sideEffects || policy.idempotencyKey === undefined) return undefined;
  if (run.slot === undefined) {
    warnNoRun(toolName, "idempotencyKey");
    return undefined;
  }
  const key = policy.idempotencyKey === true ? normalizeToolInput(toolInput) : policy.idempotencyKey(toolInput, { toolName });
  const slotKey = `${toolName}\u0000${key}`;
  const previous = run.slot.idempotency.get(slotKey);
  if (previous === undefined) return { slotKey };
  const error = new DuplicateCallError({ toolName, idempotencyKey: key, runId: run.runId });
  return { observation: MODEL_MESSAGES.duplicate(toolName, previous.observation), outcome: "rejected", error };
}

/** Counts the call against `maxCallsPerRun`; a `rejected` result once the run has used them all. */
export function checkCallCap(state: ToolState, run: RunHandle, warnNoRun: (toolName: string, feature: string) => void): CallResult | undefined {
  const { policy, name: toolName } = state;
  if (!Number.isFinite(policy.maxCallsPerRun)) return undefined;
  if (run.slot === undefined) {
    warnNoRun(toolName, "maxCallsPerRun");
    return undefined;
  }
  const count = run.slot.callCounts.get(toolName) ?? 0;
  if (count >= policy.maxCallsPerRun) {
    const error = new CallLimitExceededError({ toolName, maxCallsPerRun: policy.maxCallsPerRun, runId: run.runId });
    return { observation: MODEL_MESSAGES.callLimit(toolName, policy.maxCallsPerRun), outcome: "rejected", error };
  }
  run.slot.callCounts.set(toolName, count + 1);
  return undefined;
}

/**
 * Runs `call` holding an idempotency claim: registered only once the call really goes ahead (a
 * call-cap rejection must not mark it done). If the tool never started (circuit open, bulkhead
 * full, cancelled while queued) a repeat is not a duplicate, so the key is forgotten; once the tool
 * started, a repeat is dropped even after a failure, since the action may have happened.
 */
export async function withIdempotencyClaim(claim: IdempotencyClaim | undefined, run: RunHandle, call: () => Promise<CallResult>): Promise<CallResult> {
  const slot = run.slot;
  if (claim === undefined || slot === undefined) return call();
  const entry: { observation?: string } = {};
  slot.idempotency.set(claim.slotKey, entry);
  const result = await call();
  if (result.toolCalls === 0) slot.idempotency.delete(claim.slotKey);
  else entry.observation = result.observation;
  return result;
}
