import { SideEffectInDoubtError, SideEffectLedgerError } from "./errors";
import type { CallResult, ExecutorContext, ToolState } from "./executor-context";
import { MODEL_MESSAGES } from "./messages";
import { toError } from "./normalize-error";
import type { RunHandle } from "./run-slots";
import { DEFAULT_SIDE_EFFECT_RETENTION_MS, idempotencyKeyFor, sideEffectKey, type SideEffectClaim, type SideEffectLedger } from "./side-effect-ledger";

/** Where a side-effect call sits in the ledger: its scope (thread, else run) and tool call id. */
export interface SideEffectCallIdentity {
  readonly scope: string;
  readonly toolCallId: string;
}

/** A claim this call holds; the result is stored (or the claim released) once the call ends. */
export interface HeldSideEffectClaim {
  readonly key: string;
  readonly holderId: string;
  /** Passed to the tool (`configurable.reins_idempotency_key`). */
  readonly idempotencyKey: string;
}

/** First wait between two looks at a claim held by another holder; doubled up to {@link MAX_CLAIM_POLL_MS}. */
export const FIRST_CLAIM_POLL_MS = 50;
/** Longest wait between two looks at a held claim (with jitter), so many waiters never poll in a storm. */
export const MAX_CLAIM_POLL_MS = 2_000;
/** Added to a call's own budget for its lease, so a slow holder is not taken for a dead one. */
export const CLAIM_LEASE_MARGIN_MS = 5_000;
/** The lease of a call without any finite deadline or timeout: 10 minutes. */
export const UNBOUNDED_CLAIM_LEASE_MS = 10 * 60 * 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * How long a holder's claim lives: the call's whole budget (`deadlineMs`, else `timeoutMs` per
 * attempt × attempts) plus {@link CLAIM_LEASE_MARGIN_MS}. A holder still running after its lease
 * is taken for dead: the key is then in doubt for other claimants (never run twice); the holder
 * can still store its result.
 */
export function claimLeaseMs(state: Pick<ToolState, "policy">): number {
  const { policy } = state;
  const budget = Number.isFinite(policy.deadlineMs)
    ? policy.deadlineMs
    : Number.isFinite(policy.timeoutMs)
      ? policy.timeoutMs * (policy.retry?.maxAttempts ?? 1)
      : UNBOUNDED_CLAIM_LEASE_MS;
  return Math.min(MAX_TIMER_MS, budget + CLAIM_LEASE_MARGIN_MS);
}

/** The identity of a call for the ledger: only calls with a tool call id and a thread or run. */
export function sideEffectIdentityOf(configurable: Readonly<Record<string, unknown>> | undefined, run: RunHandle, toolCallId: string | undefined): SideEffectCallIdentity | undefined {
  if (toolCallId === undefined || toolCallId === "") return undefined;
  const threadId = configurable?.thread_id;
  const scope = typeof threadId === "string" && threadId !== "" ? `thread:${threadId}` : run.runId !== undefined ? `run:${run.runId}` : undefined;
  return scope === undefined ? undefined : { scope, toolCallId };
}

/**
 * Stage "ledger claim" of a confirmed side-effect call (after its confirmation or `approve`):
 * - `claimed`: the call goes ahead holding the claim;
 * - `done`: the stored result (same observation and outcome); the tool is not run;
 * - `held` by another holder: waits (backoff from 50 ms, doubling to 2 s, with jitter) for its
 *   result until this call's own deadline (`deadlineMs`, else its lease) or its abort signal, then `in_doubt`;
 * - `in_doubt`: with an `approve` hook, the hook decides (`context.inDoubt: true`; `true` takes the
 *   claim over and runs the call again); without one, outcome `in_doubt`, never run again.
 * A ledger that throws refuses the call (outcome `error`, `SideEffectLedgerError`).
 *
 * @returns a result that ends the call, or the claim the call now holds
 */
export async function claimSideEffectCall(
  executor: Pick<ExecutorContext, "log" | "options">,
  state: ToolState,
  toolInput: unknown,
  identity: SideEffectCallIdentity,
  run: RunHandle,
  ledger: SideEffectLedger,
  holderId: string,
  signal: AbortSignal | undefined,
): Promise<CallResult | HeldSideEffectClaim> {
  const toolName = state.name;
  const key = sideEffectKey(identity.scope, toolName, identity.toolCallId, toolInput);
  const held: HeldSideEffectClaim = { key, holderId, idempotencyKey: idempotencyKeyFor(identity.scope, identity.toolCallId) };
  const leaseMs = claimLeaseMs(state);
  const now = executor.options.now;
  const waitUntil = now() + (Number.isFinite(state.policy.deadlineMs) ? state.policy.deadlineMs : leaseMs);
  const inDoubt = (reason: "expired" | "held"): CallResult => ({
    observation: MODEL_MESSAGES.inDoubt(toolName),
    outcome: "in_doubt",
    error: new SideEffectInDoubtError({ toolName, toolCallId: identity.toolCallId, reason, ...(run.runId !== undefined ? { runId: run.runId } : {}) }),
    toolCalls: 0,
  });
  let delayMs = FIRST_CLAIM_POLL_MS;
  for (;;) {
    let claim: SideEffectClaim;
    try {
      claim = await ledger.claim(key, holderId, leaseMs);
    } catch (error) {
      return ledgerFailure(toolName, "claim", error);
    }
    if (claim.state === "claimed") return held;
    if (claim.state === "done") return { observation: claim.result.observation, outcome: claim.result.outcome, toolCalls: 0 };
    if (claim.state === "in_doubt") {
      const approve = state.policy.approve;
      if (approve === undefined) return inDoubt("expired");
      let approved = false;
      try {
        approved = (await approve({ toolName, toolInput }, { runId: run.runId, dryRunShown: true, inDoubt: true })) === true;
      } catch (error) {
        executor.log("warn", `approve threw for in-doubt call of tool "${toolName}"; the call stays in doubt.`, { toolName, error: toError(error) });
      }
      if (!approved) return inDoubt("expired");
      let taken: SideEffectClaim;
      try {
        taken = await ledger.takeOver(key, holderId, leaseMs);
      } catch (error) {
        return ledgerFailure(toolName, "takeOver", error);
      }
      if (taken.state === "claimed") return held;
      if (taken.state === "done") return { observation: taken.result.observation, outcome: taken.result.outcome, toolCalls: 0 };
      return inDoubt("held");
    }
    const remainingMs = waitUntil - now();
    if (remainingMs <= 0 || signal?.aborted === true) return inDoubt("held");
    await sleep(Math.min(remainingMs, delayMs * (0.5 + Math.random() / 2)), signal);
    delayMs = Math.min(MAX_CLAIM_POLL_MS, delayMs * 2);
  }
}

/**
 * Ends a claim once the call ran: its result stored (the call started the tool), or the claim
 * released (the tool never started: circuit open, bulkhead full, cancelled while queued). A ledger
 * that fails here is logged: the claim then expires into in doubt (never run twice).
 */
export async function settleSideEffectClaim(executor: Pick<ExecutorContext, "log">, toolName: string, ledger: SideEffectLedger, claim: HeldSideEffectClaim, result: CallResult): Promise<void> {
  try {
    if (result.toolCalls === 0) await ledger.release(claim.key, claim.holderId);
    else await ledger.complete(claim.key, claim.holderId, { observation: result.observation, outcome: result.outcome }, DEFAULT_SIDE_EFFECT_RETENTION_MS);
  } catch (error) {
    executor.log("warn", `The side-effect ledger failed to store the result of a call of tool "${toolName}"; the call will be reported in doubt if repeated.`, {
      toolName,
      error: toError(error),
    });
  }
}

function ledgerFailure(toolName: string, operation: string, cause: unknown): CallResult {
  return {
    observation: MODEL_MESSAGES.ledgerUnavailable(toolName),
    outcome: "error",
    error: new SideEffectLedgerError({ toolName, operation, cause: toError(cause) }),
    toolCalls: 0,
  };
}

/** Waits `ms`, or less when `signal` aborts; leaves no timer or listener behind. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
