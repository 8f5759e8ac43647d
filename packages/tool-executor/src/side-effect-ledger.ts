/**
 * The side-effect ledger: a side-effect call is claimed before it runs and its result stored
 * after, so one call (scope + tool call id + exact input) runs at most once, across retries,
 * resumes and, with a shared ledger (`RedisSideEffectLedger` of `@reins/redis-store`), replicas.
 *
 * States of one key:
 * - free: `claim` takes it (`claimed`);
 * - held (a live claim, no result): other claimants get `held` and wait for the result;
 * - done (a result stored): every claimant gets the stored result (`done`), the tool never runs again;
 * - in doubt (a claim whose holder's lease expired before it stored a result: the holder died or
 *   hung after the effect may have happened): `in_doubt`, never run again automatically. Only a
 *   decision (`approve`, or an operator writing a result with `complete`) ends it; `takeOver`
 *   claims an in-doubt key for a run an `approve` hook allowed.
 */
import { createHash, randomBytes } from "node:crypto";
import { stableStringify, type ToolCallOutcome } from "@reins/core";

/** The result a ledger stores for a completed side-effect call: what the model saw. */
export interface SideEffectResult {
  /** The observation (the `ToolMessage` content) the call returned. */
  readonly observation: string;
  /** The call's typed outcome. */
  readonly outcome: ToolCallOutcome;
}

/** What {@link SideEffectLedger.claim} found. */
export type SideEffectClaim =
  | { readonly state: "claimed" }
  | { readonly state: "done"; readonly result: SideEffectResult }
  | { readonly state: "held" }
  | { readonly state: "in_doubt" };

/**
 * Where side-effect calls are claimed and their results kept. Implement it on a store the whole
 * fleet shares (Redis: `RedisSideEffectLedger`; a Postgres recipe is in the tool-executor guide);
 * every method must be atomic per key. A method that throws or rejects is a ledger outage: the
 * call is then refused (never run unguarded) and the model told to try later.
 */
export interface SideEffectLedger {
  /**
   * Claims `key` for `holderId` for `ttlMs` (the holder's lease), unless a result is stored
   * (`done`), a live claim of another holder exists (`held`) or an expired claim without a result
   * is there (`in_doubt`). A holder that claims its own live claim again gets `claimed`.
   */
  claim(key: string, holderId: string, ttlMs: number): Promise<SideEffectClaim>;
  /**
   * Stores the result of `key`, if `holderId` is the holder of its claim (also after its lease
   * expired, as long as no one took it over). Kept for `retentionMs`.
   * @returns whether the result was stored
   */
  complete(key: string, holderId: string, result: SideEffectResult, retentionMs: number): Promise<boolean>;
  /**
   * Drops `holderId`'s claim of `key` when the tool never started (circuit open, cancelled while
   * queued, call cap): the key is free again, not in doubt.
   */
  release(key: string, holderId: string): Promise<void>;
  /** Claims an in-doubt (or free) key for `holderId`: used only once an `approve` hook decided to run it again. */
  takeOver(key: string, holderId: string, ttlMs: number): Promise<SideEffectClaim>;
  /**
   * The confirmation token of a dry run (`key`: scope + tool + exact input): the stored one, or
   * `token` stored now if none is. Kept for `retentionMs`.
   * @returns the token that is valid for the key
   */
  confirmationToken(key: string, token: string, retentionMs: number): Promise<string>;
  /** The stored confirmation token of `key`, or `undefined` (no dry run issued one). */
  peekConfirmationToken(key: string): Promise<string | undefined>;
}

/** How long results and confirmation tokens are kept: 24 h. */
export const DEFAULT_SIDE_EFFECT_RETENTION_MS = 24 * 60 * 60 * 1000;

interface MemoryEntry {
  holderId: string;
  leaseEndsAt: number;
  result?: SideEffectResult;
  expiresAt: number;
}

/** Options of {@link InMemorySideEffectLedger}. */
export interface InMemorySideEffectLedgerOptions {
  /** Clock (ms). @default Date.now */
  readonly now?: () => number;
  /** Keys kept (oldest dropped first). @default 10000 */
  readonly maxEntries?: number;
}

/**
 * The default ledger: per process (one per `ToolExecutor`). It makes a call run at most once
 * within the process (a replayed or resumed call gets the stored result); a fleet needs a shared
 * ledger.
 *
 * @example
 * ```ts
 * const executor = new ToolExecutor({ sideEffectLedger: new InMemorySideEffectLedger() });
 * ```
 */
export class InMemorySideEffectLedger implements SideEffectLedger {
  private readonly entries = new Map<string, MemoryEntry>();
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();
  private readonly now: () => number;
  private readonly maxEntries: number;

  constructor(options: InMemorySideEffectLedgerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  async claim(key: string, holderId: string, ttlMs: number): Promise<SideEffectClaim> {
    return this.claimOrTake(key, holderId, ttlMs, false);
  }

  async takeOver(key: string, holderId: string, ttlMs: number): Promise<SideEffectClaim> {
    return this.claimOrTake(key, holderId, ttlMs, true);
  }

  async complete(key: string, holderId: string, result: SideEffectResult, retentionMs: number): Promise<boolean> {
    const entry = this.live(key);
    if (entry === undefined || entry.holderId !== holderId || entry.result !== undefined) return false;
    entry.result = { observation: result.observation, outcome: result.outcome };
    entry.expiresAt = this.now() + retentionMs;
    return true;
  }

  async release(key: string, holderId: string): Promise<void> {
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.holderId === holderId && entry.result === undefined) this.entries.delete(key);
  }

  async confirmationToken(key: string, token: string, retentionMs: number): Promise<string> {
    const stored = await this.peekConfirmationToken(key);
    if (stored !== undefined) return stored;
    this.tokens.set(key, { token, expiresAt: this.now() + retentionMs });
    bound(this.tokens, this.maxEntries);
    return token;
  }

  async peekConfirmationToken(key: string): Promise<string | undefined> {
    const stored = this.tokens.get(key);
    if (stored === undefined) return undefined;
    if (stored.expiresAt <= this.now()) {
      this.tokens.delete(key);
      return undefined;
    }
    return stored.token;
  }

  private claimOrTake(key: string, holderId: string, ttlMs: number, takeOver: boolean): SideEffectClaim {
    const now = this.now();
    const entry = this.live(key);
    if (entry?.result !== undefined) return { state: "done", result: entry.result };
    if (entry !== undefined && entry.holderId !== holderId) {
      if (entry.leaseEndsAt > now) return { state: "held" };
      if (!takeOver) return { state: "in_doubt" };
    }
    this.entries.delete(key);
    this.entries.set(key, { holderId, leaseEndsAt: now + ttlMs, expiresAt: now + Math.max(ttlMs, DEFAULT_SIDE_EFFECT_RETENTION_MS) });
    bound(this.entries, this.maxEntries);
    return { state: "claimed" };
  }

  private live(key: string): MemoryEntry | undefined {
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }
}

function bound(map: Map<string, unknown>, maxEntries: number): void {
  while (map.size > maxEntries) {
    const oldest = map.keys().next().value;
    if (oldest === undefined) break;
    map.delete(oldest);
  }
}

/**
 * The exact input's hash: SHA-256 (hex) of the string itself for a string input, of its canonical
 * JSON (sorted keys, `stableStringify`) for anything else. Unlike `normalizeToolInput`, nothing is
 * trimmed or collapsed: two inputs that differ in any character are two calls.
 */
export function exactInputHash(toolInput: unknown): string {
  const text = typeof toolInput === "string" ? `s:${toolInput}` : `j:${stableStringify(toolInput)}`;
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The ledger key of one side-effect call: scope (the thread, else the run) + tool + tool call id
 * + exact input hash, hashed to a fixed length (ids and inputs may be long).
 */
export function sideEffectKey(scope: string, toolName: string, toolCallId: string, toolInput: unknown): string {
  return createHash("sha256").update(JSON.stringify(["call", scope, toolName, toolCallId, exactInputHash(toolInput)])).digest("hex");
}

/** The ledger key of a dry run's confirmation token: scope + tool + exact input. */
export function confirmationKey(scope: string, toolName: string, toolInput: unknown): string {
  return createHash("sha256").update(JSON.stringify(["confirm", scope, toolName, exactInputHash(toolInput)])).digest("hex");
}

/**
 * The idempotency key a side-effect tool receives (thread or run + tool call id), to pass on to
 * the downstream API (Stripe-style `Idempotency-Key`): `reins-` + 40 hex characters, the same for
 * every attempt, retry, resume and replica of the call.
 */
export function idempotencyKeyFor(scope: string, toolCallId: string): string {
  return `reins-${createHash("sha256").update(JSON.stringify([scope, toolCallId])).digest("hex").slice(0, 40)}`;
}

/**
 * Where a side-effect tool finds its idempotency key: `config.configurable[IDEMPOTENCY_KEY_FIELD]`
 * of the config LangChain hands the tool (`tool((input, config) => …)`).
 */
export const IDEMPOTENCY_KEY_FIELD = "reins_idempotency_key";

/**
 * The idempotency key of the call a tool runs for (see {@link IDEMPOTENCY_KEY_FIELD}), or
 * `undefined` when the call has none (not a side-effect tool, or no thread/run and tool call id).
 *
 * @example
 * ```ts
 * const pay = tool(async (input, config) => stripe.paymentIntents.create(input, { idempotencyKey: idempotencyKeyOf(config) }), {...});
 * ```
 */
export function idempotencyKeyOf(config: { configurable?: Record<string, unknown> } | undefined): string | undefined {
  const value = config?.configurable?.[IDEMPOTENCY_KEY_FIELD];
  return typeof value === "string" ? value : undefined;
}

/** A holder id: this process and a random part (one per executor). */
export function createHolderId(): string {
  return `${process.pid}-${randomBytes(6).toString("hex")}`;
}
