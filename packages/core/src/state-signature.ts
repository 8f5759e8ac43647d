import { createHmac, timingSafeEqual } from "node:crypto";
import { stableStringify } from "./fingerprint";
import { brandReinsError, ReinsError } from "./reins-error";

/**
 * Signatures over the guard state Reins keeps outside the process (the `createAgent` run record
 * and the typed outcomes and call lists it writes into graph state, which a LangGraph
 * checkpointer stores): HMAC-SHA256 (RFC 2104, `node:crypto`) over a canonical serialisation
 * ({@link stableStringify}: keys sorted, `undefined` fields left out, as JSON does), so a value
 * read back from any store verifies whatever key order or whitespace the store kept.
 *
 * Keys rotate: the first key signs, every key verifies, so a key is retired by moving it behind
 * the new one until the threads it signed have ended.
 */

/** The environment variable read when no `stateKey` option is given: one key, or a comma-separated rotation list. */
export const STATE_KEY_ENV = "REINS_STATE_KEY";

/** Shortest accepted key, in characters (256 bits of hex, or a long passphrase). */
export const MIN_STATE_KEY_CHARS = 32;

/** Options of {@link StateKeyError}. */
export interface StateKeyErrorOptions {
  /** Where the key came from: the option name (`stateKey`, `stateKey[1]`) or {@link STATE_KEY_ENV}. */
  readonly source: string;
  /** Why it was refused, a sentence fragment. */
  readonly reason: string;
  readonly message?: string;
  readonly cause?: unknown;
}

/** A state key (option or environment variable) is unusable: empty, too short, or not a string. */
export class StateKeyError extends ReinsError {
  static {
    brandReinsError(this, "core", "StateKeyError");
  }

  readonly source: string;
  readonly reason: string;

  constructor(options: StateKeyErrorOptions) {
    super(options.message ?? `Invalid state key from ${options.source}: ${options.reason}.`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "StateKeyError";
    this.source = options.source;
    this.reason = options.reason;
  }
}

/** Signs and verifies guard state (see {@link createStateSigner}). */
export interface StateSigner {
  /** The signature of `value`: `hs256:` + the base64url HMAC-SHA256 of its canonical serialisation, with the first key. */
  sign(value: unknown): string;
  /** True when `signature` is the signature of `value` under one of the keys (constant-time comparison). */
  verify(value: unknown, signature: unknown): boolean;
}

const SIGNATURE_PREFIX = "hs256:";

function checkedKey(key: unknown, source: string): string {
  if (typeof key !== "string") throw new StateKeyError({ source, reason: "must be a string" });
  if (key.length < MIN_STATE_KEY_CHARS) {
    throw new StateKeyError({ source, reason: `must be at least ${MIN_STATE_KEY_CHARS} characters (got ${key.length}); use e.g. \`openssl rand -hex 32\`` });
  }
  return key;
}

/**
 * The state keys to sign with: the option when given, else {@link STATE_KEY_ENV}. Keys are used
 * as given (no trimming inside a key; the environment list is split on commas and each entry's
 * surrounding spaces removed).
 *
 * @param option - one key, or a rotation list (the first signs, all verify)
 * @param env - the environment variable's value @default process.env.REINS_STATE_KEY
 * @returns the keys, or `undefined` when neither is set (an empty variable counts as unset)
 * @throws {StateKeyError} when a key is not a string or is shorter than {@link MIN_STATE_KEY_CHARS}, or the list is empty
 */
export function resolveStateKeys(option: string | readonly string[] | undefined, env: string | undefined = process.env[STATE_KEY_ENV]): readonly string[] | undefined {
  if (option !== undefined) {
    if (Array.isArray(option)) {
      if (option.length === 0) throw new StateKeyError({ source: "stateKey", reason: "must list at least one key" });
      return Object.freeze(option.map((key, index) => checkedKey(key, `stateKey[${index}]`)));
    }
    return Object.freeze([checkedKey(option, "stateKey")]);
  }
  if (env === undefined || env.trim() === "") return undefined;
  return Object.freeze(env.split(",").map((key, index) => checkedKey(key.trim(), `${STATE_KEY_ENV} (entry ${index + 1})`)));
}

/**
 * A signer over `keys` (see {@link resolveStateKeys}).
 *
 * @throws {StateKeyError} when `keys` is empty or a key is too short
 * @example
 * ```ts
 * const signer = createStateSigner(resolveStateKeys(undefined) ?? []);
 * const signature = signer.sign({ runId, modelCalls: 3 });
 * signer.verify({ modelCalls: 3, runId }, signature); // true
 * ```
 */
export function createStateSigner(keys: readonly string[]): StateSigner {
  if (keys.length === 0) throw new StateKeyError({ source: "keys", reason: "must list at least one key" });
  const checked = keys.map((key, index) => checkedKey(key, `keys[${index}]`));
  const digest = (key: string, text: string): Buffer => createHmac("sha256", key).update(text, "utf8").digest();
  return Object.freeze({
    sign: (value: unknown): string => `${SIGNATURE_PREFIX}${digest(checked[0] as string, stableStringify(value)).toString("base64url")}`,
    verify: (value: unknown, signature: unknown): boolean => {
      if (typeof signature !== "string" || !signature.startsWith(SIGNATURE_PREFIX)) return false;
      const given = Buffer.from(signature.slice(SIGNATURE_PREFIX.length), "base64url");
      const text = stableStringify(value);
      let valid = false;
      // Every key is tried (no early exit), each comparison in constant time.
      for (const key of checked) {
        const expected = digest(key, text);
        if (given.length === expected.length && timingSafeEqual(given, expected)) valid = true;
      }
      return valid;
    },
  });
}
