import { checkFunction, checkKeys, checkNumber, fail, isPlainObject, MAX_TIMER_MS } from "./policy-checks";

/**
 * The part of a rate-limiter-flexible limiter (`RateLimiterRedis`, `RateLimiterMemory`,
 * `RateLimiterCluster`, `RLWrapperBlackAndWhite`, …, 11.x) the executor uses: `consume(key, 1)`
 * resolves when a point was taken and rejects with a `RateLimiterRes` (`msBeforeNext` in
 * milliseconds) when the key has none left, or with an `Error` when its store failed and it has no
 * `insuranceLimiter`.
 */
export interface RateLimiterLike {
  consume(key: string | number, points?: number, options?: Record<string, unknown>): Promise<unknown>;
  /**
   * Blocks `key` for `secDuration` seconds (rate-limiter-flexible's `block`): used when the
   * service answers 429/503 with a `Retry-After`, so the whole fleet waits, not only this call.
   */
  block?(key: string | number, secDuration: number, options?: Record<string, unknown>): Promise<unknown>;
}

/** What `rateLimit.key` sees of a call. */
export interface RateLimitKeyContext {
  readonly toolName: string;
  readonly toolInput: unknown;
  /** The call's `config.metadata` (e.g. a tenant id). */
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
  /** The call's `config.configurable`. */
  readonly configurable: Readonly<Record<string, unknown>> | undefined;
}

/**
 * A request quota shared by every call of the tool (and, with `RateLimiterRedis`, by every process
 * of a fleet). Each attempt (retries too) takes one point of the limiter under `key(context)`; a
 * call without a point waits for the limiter's `msBeforeNext` (several times if others win the
 * slot) within its deadline and `maxWaitMs`; a call that cannot get one within them is not made
 * and answers a rate-limited observation naming when a slot frees (`RateLimitedError`, outcome
 * `rejected`, not counted against the circuit). A limiter whose store fails (an `Error`, not a
 * `RateLimiterRes`) lets the call through and logs a warning: give it an `insuranceLimiter` to keep
 * a per-process quota while Redis is down. When the service still answers 429 or 503 with a
 * `Retry-After`, the key is blocked for that long (`limiter.block`), so every replica waits.
 */
export interface RateLimitOptions {
  /** A rate-limiter-flexible limiter (an optional peer dependency: install it yourself). */
  limiter: RateLimiterLike;
  /**
   * The key the call is counted under (e.g. per tenant: `(context) => \`${context.toolName}:${context.metadata?.tenant}\``).
   * A function that throws or returns no string fails the call's attempt as a ToolExecutionError.
   * @default the tool name
   */
  key?: (context: RateLimitKeyContext) => string;
  /**
   * Longest total wait for a slot per attempt, in milliseconds (the call's deadline bounds it too).
   * `0` never waits.
   * @default Infinity (only the deadline bounds the wait)
   */
  maxWaitMs?: number;
}

/** Resolved `rateLimit` section. */
export interface ResolvedRateLimitOptions {
  readonly limiter: RateLimiterLike;
  readonly key: ((context: RateLimitKeyContext) => string) | undefined;
  readonly maxWaitMs: number;
}

/**
 * Resolves the `rateLimit` section (`undefined` when off or absent).
 * @throws {ToolExecutorOptionsError} naming the first bad field
 */
export function resolveRateLimitOptions(field: string, section: unknown): ResolvedRateLimitOptions | undefined {
  if (section === undefined || section === false) return undefined;
  if (!isPlainObject(section)) fail(`${field}.rateLimit`, section, "must be an object or false");
  checkKeys(`${field}.rateLimit`, section, ["limiter", "key", "maxWaitMs"]);
  const limiter = section.limiter as RateLimiterLike | undefined;
  if (limiter === null || typeof limiter !== "object" || typeof limiter.consume !== "function") {
    fail(`${field}.rateLimit.limiter`, limiter, "must be a rate-limiter-flexible limiter (with consume(key, points))");
  }
  const maxWaitMs = checkNumber(`${field}.rateLimit.maxWaitMs`, section.maxWaitMs ?? Number.POSITIVE_INFINITY, { min: 0, max: MAX_TIMER_MS, allowInfinity: true });
  return Object.freeze({ limiter, key: checkFunction<ResolvedRateLimitOptions["key"]>(`${field}.rateLimit.key`, section.key), maxWaitMs });
}
