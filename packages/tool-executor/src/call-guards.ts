import { normalizeToolInput } from "@reins/core";
import { decideSideEffectCall } from "./confirmation";
import { CallLimitExceededError, DuplicateCallError, SideEffectNotApprovedError } from "./errors";
import type { CallResult, ExecutorContext, ToolState } from "./executor-context";
import { ensureReadableObservation } from "./format-observation";
import { MODEL_MESSAGES } from "./messages";
import { toError } from "./normalize-error";
import type { RunHandle } from "./run-slots";
import { confirmationKey, DEFAULT_SIDE_EFFECT_RETENTION_MS, type SideEffectLedger } from "./side-effect-ledger";
import { dryRunInputText, type PreparedToolInput } from "./tool-input";

/**
 * Stage "dry run" of a side-effect call: the dry run (with the run's confirmation token), the
 * token check or `confirmWhen` after a dry run, and the `approve` hook (see `confirmation.ts`).
 *
 * @param prepared - the `confirm` value the model wrote and the input with it (for `confirmWhen`)
 * @param warnUnbound - told (operator log) when a call's run is unknown, so no token can confirm it
 * @returns the dry-run or refusal result, or `undefined` when the call goes ahead (or the tool has no side effects)
 */
export async function gateSideEffectCall(
  executor: Pick<ExecutorContext, "log">,
  state: ToolState,
  toolInput: unknown,
  prepared: Pick<PreparedToolInput, "confirmation" | "confirmationInput">,
  run: RunHandle,
  warnUnbound: (toolName: string) => void,
  shared?: SharedConfirmations,
): Promise<CallResult | undefined> {
  const { policy, name: toolName } = state;
  if (!policy.sideEffects) return undefined;
  // The dry run shows the exact input whole (its token confirms exactly that), or it gets no token.
  const shown = dryRunInputText(toolInput, policy.maxConfirmableInputChars);
  const decision = await decideSideEffectCall({
    toolName,
    toolInput,
    confirmation: prepared.confirmation,
    rawInput: prepared.confirmationInput,
    confirmWhen: policy.confirmWhen,
    approve: policy.approve,
    ...(shared !== undefined && run.slot !== undefined && run.runId !== undefined ? { shareToken: shareTokenOf(executor, shared, run.runId, toolName, toolInput) } : {}),
    runKey: run.slot,
    runId: run.runId,
    confirmable: shown.whole,
  });
  if (decision.proceed) return undefined;
  if (decision.reason === "not_approved") {
    if (decision.error !== undefined) executor.log("warn", `approve threw for tool "${toolName}"; the call was refused.`, { toolName, error: decision.error });
    return {
      observation: MODEL_MESSAGES.notApproved(toolName),
      outcome: "rejected",
      error: new SideEffectNotApprovedError({ toolName, runId: run.runId, ...(decision.error !== undefined ? { cause: decision.error } : {}) }),
    };
  }
  const inputText = shown.text;
  const custom = policy.preview?.(toolInput, { toolName });
  if (decision.reason === "too_long") {
    executor.log("warn", `Tool "${toolName}" got an input longer than its maxConfirmableInputChars (${policy.maxConfirmableInputChars}): no confirmation token was issued; only an approve hook can run such a call.`, { toolName });
    const tooLong = custom !== undefined ? `${custom}\n${MODEL_MESSAGES.tooLongHint(toolName, policy.maxConfirmableInputChars)}` : MODEL_MESSAGES.dryRunTooLong(toolName, inputText, policy.maxConfirmableInputChars);
    return { observation: ensureReadableObservation(tooLong, toolName), outcome: "dry_run" };
  }
  if (decision.reason === "unbound") {
    warnUnbound(toolName);
    const unbound = custom !== undefined ? `${custom}\n${MODEL_MESSAGES.unboundHint(toolName)}` : MODEL_MESSAGES.dryRunUnbound(toolName, inputText);
    return { observation: ensureReadableObservation(unbound, toolName), outcome: "dry_run" };
  }
  const observation =
    custom !== undefined
      ? `${custom}\n${policy.confirmWhen === undefined ? MODEL_MESSAGES.confirmationHint(toolName, decision.token) : ""}`.trim()
      : policy.confirmWhen !== undefined
        ? MODEL_MESSAGES.dryRunConfirmWhen(toolName, inputText)
        : state.kind === "object"
          ? MODEL_MESSAGES.dryRunObject(toolName, inputText, decision.token)
          : MODEL_MESSAGES.dryRunString(toolName, inputText, decision.token);
  return { observation: ensureReadableObservation(observation, toolName), outcome: "dry_run" };
}

/** The fleet's confirmations: dry-run tokens kept in the side-effect ledger, by run + tool + exact input. */
export interface SharedConfirmations {
  readonly ledger: SideEffectLedger;
}

function shareTokenOf(executor: Pick<ExecutorContext, "log">, shared: SharedConfirmations, runId: string, toolName: string, toolInput: unknown): (token: string) => Promise<string> {
  return async (token) => {
    try {
      return await shared.ledger.confirmationToken(confirmationKey(`run:${runId}`, toolName, toolInput), token, DEFAULT_SIDE_EFFECT_RETENTION_MS);
    } catch (error) {
      // The token then holds in this process only (as without a shared ledger); the call still needs it.
      executor.log("warn", `The side-effect ledger failed to store a confirmation token for tool "${toolName}"; the token is valid in this process only.`, { toolName, error: toError(error) });
      return token;
    }
  };
}

/**
 * Stage "shared confirmation", before the dry-run stage: a call that carries the token a dry run
 * of this run showed in another replica (kept in the side-effect ledger under run + tool + exact
 * input), or that passes `confirmWhen` after such a dry run, goes ahead. Skipped when the policy has
 * `approve` (the hook decides) or the run is unknown. A ledger failure answers `false` (the
 * process's own dry-run stage then decides).
 */
export async function confirmedAcrossReplicas(
  executor: Pick<ExecutorContext, "log">,
  state: ToolState,
  toolInput: unknown,
  prepared: Pick<PreparedToolInput, "confirmation" | "confirmationInput">,
  run: RunHandle,
  shared: SharedConfirmations,
): Promise<boolean> {
  const { policy, name: toolName } = state;
  if (!policy.sideEffects || policy.approve !== undefined || run.slot === undefined || run.runId === undefined) return false;
  if (policy.confirmWhen === undefined && (typeof prepared.confirmation !== "string" || prepared.confirmation === "")) return false;
  let stored: string | undefined;
  try {
    stored = await shared.ledger.peekConfirmationToken(confirmationKey(`run:${run.runId}`, toolName, toolInput));
  } catch (error) {
    executor.log("warn", `The side-effect ledger failed to read a confirmation token for tool "${toolName}"; only this process's dry runs count.`, { toolName, error: toError(error) });
    return false;
  }
  if (stored === undefined) return false;
  try {
    return policy.confirmWhen !== undefined ? policy.confirmWhen(prepared.confirmationInput, { toolName }) === true : prepared.confirmation === stored;
  } catch {
    return false;
  }
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
  // A run resumed from a checkpoint in this process starts from the calls it made before.
  const count = run.slot.callCounts.get(toolName) ?? run.context?.resumedCallCounts?.get(toolName) ?? 0;
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
