/**
 * Side-effect calls: a dry run first, then the real call only with the per-run confirmation token
 * that dry run showed (`"confirm": "<token>"`), or with an app's `approve` hook.
 *
 * - No dry run of this call (same tool, same normalised input) in this run, or another token:
 *   the dry run again (the same token while the run lasts). So a confirmation written into tool
 *   output (an injection), or guessed by the model before seeing the preview, never runs a tool.
 * - A user's own `confirmWhen` replaces the token check, but still only after a dry run in the
 *   same run.
 * - `approve(call, context)` wins over both: the app asks a person (human in the loop).
 * A token stays valid for its call (tool and normalised input) for the rest of the run, so a
 * repeat of a call that ran reaches the idempotency check ("already run") instead of a new dry run.
 */
import { randomBytes } from "node:crypto";
import { normalizeToolInput } from "@reins/core";

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
}

/** Decides a side-effect call (human in the loop). Wins over the confirmation token. */
export type ApproveSideEffectCall = (call: SideEffectCall, context: SideEffectCallContext) => boolean | Promise<boolean>;

/** Per-run confirmation state: dry-run call key → token shown. */
type ConfirmationLedger = Map<string, string>;

const ledgers = new WeakMap<object, ConfirmationLedger>();

/**
 * The confirmation state of one run. `runKey` is the object that stands for the run (today the
 * ToolExecutor's per-run slot); keeping the lookup here lets run identity change in one place.
 */
/**
 * Most dry-run keys one ledger holds; the oldest is dropped first (it then gets a new dry run and
 * token). Bounds the ledger of a long-lived executor that stands for "the run" when calls carry
 * no run id (the callback-free `stream()`/`invoke()` paths).
 */
export const MAX_LEDGER_ENTRIES = 4096;

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

/** The decision on one side-effect call. */
export type SideEffectDecision =
  | { readonly proceed: true }
  | { readonly proceed: false; readonly reason: "dry_run"; readonly token: string }
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
  readonly runKey: object;
  readonly runId: string | undefined;
}

/**
 * Decides whether a side-effect call runs now, gets its dry run (with the token), or is refused.
 * Never throws: a hook that throws refuses the call (and the error is returned for the log).
 */
export async function decideSideEffectCall(request: SideEffectCallRequest): Promise<SideEffectDecision> {
  const ledger = confirmationLedgerOf(request.runKey);
  const key = `${request.toolName}\u0000${normalizeToolInput(request.toolInput)}`;
  const shown = ledger.get(key);
  if (request.approve !== undefined) {
    try {
      const approved = await request.approve({ toolName: request.toolName, toolInput: request.toolInput }, { runId: request.runId, dryRunShown: shown !== undefined });
      if (approved === true) return { proceed: true };
      return { proceed: false, reason: "not_approved" };
    } catch (error) {
      return { proceed: false, reason: "not_approved", error: error instanceof Error ? error : new Error(String(error)) };
    }
  }
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
  const token = createConfirmationToken();
  ledger.set(key, token);
  while (ledger.size > MAX_LEDGER_ENTRIES) {
    const oldest = ledger.keys().next().value;
    if (oldest === undefined) break;
    ledger.delete(oldest);
  }
  return { proceed: false, reason: "dry_run", token };
}
