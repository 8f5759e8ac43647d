import { checkFunction, checkKeys, checkNumber, fail, isPlainObject, MAX_TIMER_MS } from "./policy-checks";
import type { ToolCallContext } from "./tool-call-context";

/** How retry delays are randomised (cockatiel's backoff generators). */
export type RetryJitter = "decorrelated" | "full" | "none";

/** Retry with exponential backoff (cockatiel `retry` + `ExponentialBackoff`). */
export interface RetryOptions {
  /**
   * Total attempts including the first call (1 = no retry).
   * @default 3
   */
  maxAttempts: number;
  /**
   * Base of the exponential backoff, in milliseconds.
   * @default 250
   */
  initialDelayMs: number;
  /**
   * Upper bound of one backoff delay, in milliseconds (at most 2^31 − 1, the longest timer delay).
   * @default 4000
   */
  maxDelayMs: number;
  /**
   * Randomisation of the delays: `"decorrelated"` (Polly's decorrelated jitter v2, cockatiel's
   * default), `"full"` (uniform in [0, delay)) or `"none"` (initialDelayMs × 2^n, capped).
   * @default "decorrelated"
   */
  jitter: RetryJitter;
  /**
   * Decides whether a failure is retried. Replaces the default classification
   * (`isRetryableError`: network errors, HTTP 429 and 5xx, and timeouts of idempotent tools).
   * Never consulted for a timeout of a tool that is not declared `idempotent` (the abandoned
   * attempt may still be running), nor for `sideEffects` tools that are not declared idempotent.
   * @default isRetryableError
   */
  retryOn?: (error: Error, context: ToolCallContext & { attempt: number }) => boolean;
}

/** Defaults of the retry section when it is turned on. */
export const DEFAULT_RETRY_OPTIONS: Readonly<RetryOptions> = Object.freeze({
  maxAttempts: 3,
  initialDelayMs: 250,
  maxDelayMs: 4000,
  jitter: "decorrelated" as RetryJitter,
});

/**
 * Resolves the `retry` section: `undefined` when off, when it allows one attempt only, or for a
 * `sideEffects` tool not declared idempotent (a side-effect call may have happened even when it
 * failed).
 * @throws {ToolExecutorOptionsError} naming the first bad field
 */
export function resolveRetryOptions(field: string, section: unknown, sideEffects: boolean, idempotent: boolean): RetryOptions | undefined {
  const policy = { retry: section as Partial<RetryOptions> | false | undefined };
  let retry: RetryOptions | undefined;
  if (policy.retry !== false && policy.retry !== undefined) {
    if (!isPlainObject(policy.retry)) fail(`${field}.retry`, policy.retry, "must be an object or false");
    checkKeys(`${field}.retry`, policy.retry, ["maxAttempts", "initialDelayMs", "maxDelayMs", "jitter", "retryOn"]);
    const merged = { ...DEFAULT_RETRY_OPTIONS, ...policy.retry };
    retry = {
      maxAttempts: checkNumber(`${field}.retry.maxAttempts`, merged.maxAttempts, { min: 1, integer: true }),
      initialDelayMs: checkNumber(`${field}.retry.initialDelayMs`, merged.initialDelayMs, { min: 0, max: MAX_TIMER_MS }),
      maxDelayMs: checkNumber(`${field}.retry.maxDelayMs`, merged.maxDelayMs, { min: 0, max: MAX_TIMER_MS }),
      jitter: merged.jitter,
      retryOn: checkFunction(`${field}.retry.retryOn`, merged.retryOn),
    };
    if (!["decorrelated", "full", "none"].includes(retry.jitter)) fail(`${field}.retry.jitter`, retry.jitter, 'must be "decorrelated", "full" or "none"');
    if (retry.maxDelayMs < retry.initialDelayMs) fail(`${field}.retry.maxDelayMs`, retry.maxDelayMs, "must be >= retry.initialDelayMs");
    // A side-effect call may have happened even when it failed: retry it only when declared safe.
    if ((sideEffects && !idempotent) || retry.maxAttempts === 1) retry = undefined;
  }

  return retry;
}
