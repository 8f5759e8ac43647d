/**
 * Side-effect calls: a dry run first, then the real call only with the per-run confirmation token
 * that dry run showed (`"confirm": "<token>"`), or with an app's `approve` hook.
 *
 * A token is bound to the run whose dry run issued it: the run the call belongs to (its run id
 * where LangChain passes one, or the run Reins' `createReactAgent` bound the call to from the
 * steps its planning step received). There is no process-wide ledger: a call whose run is unknown
 * (a wrapped tool in the stock `AgentExecutor` called without callbacks, a bare `tool.invoke`)
 * accepts no token and no `confirmWhen`; only `approve` runs it.
 *
 * - No dry run of this call (same tool, exactly the same input) in this run, or another token:
 *   the dry run again (the same token while the run lasts). So a confirmation written into tool
 *   output (an injection), or guessed by the model before seeing the preview, never runs a tool.
 * - A token binds the exact input its dry run showed ({@link confirmationKeyOf}): an object by
 *   its canonical JSON (keys sorted), a string as written, never a trimmed, unquoted or
 *   whitespace-folded form. So a dry run of `SELECT 1 -- DROP TABLE users` never confirms
 *   `SELECT 1 --\nDROP TABLE users` (whose line break ends the SQL comment).
 * - The dry run shows that input whole; an input longer than the policy's
 *   `maxConfirmableInputChars` gets no token (`reason: "too_long"`): only `approve` runs it.
 * - A user's own `confirmWhen` replaces the token check, but still only after a dry run in the
 *   same run.
 * - `approve(call, context)` wins over both: the app asks a person (human in the loop).
 * A token stays valid for its call (tool and exact input) for the rest of the run, so a
 * repeat of a call that ran reaches the idempotency check ("already run") instead of a new dry run.
 */
import { randomBytes } from "node:crypto";
import { stableStringify } from "@reins/core";

/** A side-effect call put to an `approve` hook. */
export interface SideEffectCall {
  readonly toolName: string;
  /** The input the tool would run with (the `confirm` field removed). */
  readonly toolInput: unknown;
}

/** What an `approve` hook knows about the call's run. */
export interface SideEffectCallContext {
  /** The run (one top-level executor invocation), when known. */
  readonly runId: string | undefined;
  /** Whether this call was dry-run earlier in the same run. */
  readonly dryRunShown: boolean;
  /**
   * `true` when the side-effect ledger found this exact call claimed before without a result (its
   * holder stopped after the claim: the effect may have happened). Returning `true` then runs the
   * call again (after checking downstream that it did not happen); `false` leaves it in doubt.
   */
  readonly inDoubt?: boolean;
}

/** Decides a side-effect call (human in the loop). Wins over the confirmation token. */
export type ApproveSideEffectCall = (call: SideEffectCall, context: SideEffectCallContext) => boolean | Promise<boolean>;

/** Per-run confirmation state: dry-run call key → token shown. */
type ConfirmationLedger = Map<string, string>;

const ledgers = new WeakMap<object, ConfirmationLedger>();

/**
 * Most dry-run keys one run's ledger holds; the oldest is dropped first (it then gets a new dry
 * run and token). Bounds the ledger of a run that dry-runs without end.
 */
export const MAX_LEDGER_ENTRIES = 4096;

/**
 * The confirmation state of one run. `runKey` is the object that stands for the run (the
 * ToolExecutor's slot in the run's context, or in its tracked runs); there is no ledger for calls
 * whose run is unknown, so a token is never valid outside the run whose dry run issued it.
 */
export function confirmationLedgerOf(runKey: object): ConfirmationLedger {
  let ledger = ledgers.get(runKey);
  if (ledger === undefined) {
    ledger = new Map();
    ledgers.set(runKey, ledger);
  }
  return ledger;
}

/** A fresh confirmation token: 8 random hexadecimal characters behind a fixed prefix. */
export function createConfirmationToken(): string {
  return `ok-${randomBytes(4).toString("hex")}`;
}

/**
 * The ledger key of a side-effect call: the tool name and the exact input, as canonical JSON
 * (`stableStringify` of `@reins/core`: object keys sorted, strings as written, so a string input
 * keeps every space, line break and quote). Deliberately not `normalizeToolInput` (the loop
 * detectors' key, which trims and folds whitespace): a token confirms only what its dry run showed.
 */
export function confirmationKeyOf(toolName: string, toolInput: unknown): string {
  return `${toolName}\u0000${stableStringify(toolInput)}`;
}

/** The decision on one side-effect call. */
export type SideEffectDecision =
  | { readonly proceed: true }
  | { readonly proceed: false; readonly reason: "dry_run"; readonly token: string }
  /** The call's run is unknown: no token (and no `confirmWhen`) can be bound to it, so none is accepted. */
  | { readonly proceed: false; readonly reason: "unbound" }
  /** The input is longer than the dry run can show whole (`maxConfirmableInputChars`): no token, only `approve` runs it. */
  | { readonly proceed: false; readonly reason: "too_long" }
  | { readonly proceed: false; readonly reason: "not_approved"; readonly error?: Error };

/** What {@link decideSideEffectCall} needs. */
export interface SideEffectCallRequest {
  readonly toolName: string;
  readonly toolInput: unknown;
  /** The `confirm` value the model wrote, if any. */
  readonly confirmation: unknown;
  /** The input as given (with its `confirm` field), for a user's `confirmWhen`. */
  readonly rawInput: unknown;
  readonly confirmWhen: ((toolInput: unknown, context: { toolName: string }) => boolean) | undefined;
  readonly approve: ApproveSideEffectCall | undefined;
  /**
   * Shares a new dry run's token with the fleet (the side-effect ledger): stores it unless the
   * same run's dry run of this exact call already stored one elsewhere, and answers the token
   * that is valid (so every replica resuming the run shows and accepts the same token).
   */
  readonly shareToken?: (token: string) => Promise<string>;
  /** Stands for the call's run (its slot); `undefined` when the run is unknown (no run id, no bound run). */
  readonly runKey: object | undefined;
  readonly runId: string | undefined;
  /**
   * Whether the dry run shows the input whole (its text is within `maxConfirmableInputChars`):
   * only then may a token (or `confirmWhen`) confirm it.
   */
  readonly confirmable: boolean;
}

/**
 * Decides whether a side-effect call runs now, gets its dry run (with the token), or is refused.
 * A call whose run is unknown (`runKey` undefined) runs only when `approve` says so: otherwise it
 * gets a dry run without a token (`reason: "unbound"`), whatever `confirm` it carries; so does a
 * call whose input is too long to show whole (`reason: "too_long"`).
 * Never throws: a hook that throws refuses the call (and the error is returned for the log).
 */
export async function decideSideEffectCall(request: SideEffectCallRequest): Promise<SideEffectDecision> {
  const ledger = request.runKey === undefined ? undefined : confirmationLedgerOf(request.runKey);
  const key = confirmationKeyOf(request.toolName, request.toolInput);
  const shown = ledger?.get(key);
  if (request.approve !== undefined) {
    try {
      const approved = await request.approve({ toolName: request.toolName, toolInput: request.toolInput }, { runId: request.runId, dryRunShown: shown !== undefined });
      if (approved === true) return { proceed: true };
      return { proceed: false, reason: "not_approved" };
    } catch (error) {
      return { proceed: false, reason: "not_approved", error: error instanceof Error ? error : new Error(String(error)) };
    }
  }
  if (!request.confirmable) return { proceed: false, reason: "too_long" };
  if (shown !== undefined) {
    let confirmed: boolean;
    try {
      confirmed = request.confirmWhen !== undefined ? request.confirmWhen(request.rawInput, { toolName: request.toolName }) === true : request.confirmation === shown;
    } catch {
      confirmed = false;
    }
    if (confirmed) return { proceed: true };
    return { proceed: false, reason: "dry_run", token: shown };
  }
  if (ledger === undefined) return { proceed: false, reason: "unbound" };
  const token = request.shareToken === undefined ? createConfirmationToken() : await request.shareToken(createConfirmationToken());
  ledger.set(key, token);
  while (ledger.size > MAX_LEDGER_ENTRIES) {
    const oldest = ledger.keys().next().value;
    if (oldest === undefined) break;
    ledger.delete(oldest);
  }
  return { proceed: false, reason: "dry_run", token };
}
