import { TaskCancelledError } from "cockatiel";
import { RateLimitedError, ToolExecutionError } from "./errors";
import type { ExecutorContext } from "./executor-context";
import { toError } from "./normalize-error";
import type { RateLimitKeyContext, ResolvedRateLimitOptions } from "./rate-limit-options";
import { sleepUnlessAborted } from "./retry-after";
import { storeOperationFailed, storeOperationWorked } from "./store-outage";

/** The wake-up spread after a `msBeforeNext` wait, so waiting replicas do not all ask at once (ms). */
const WAKE_JITTER_MS = 50;

/** A rate-limiter-flexible `RateLimiterRes` (what `consume` rejects with when the key has no point left). */
function msBeforeNextOf(rejection: unknown): number | undefined {
  if (rejection instanceof Error || rejection === null || typeof rejection !== "object") return undefined;
  const ms = (rejection as { msBeforeNext?: unknown }).msBeforeNext;
  return typeof ms === "number" && Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

/**
 * Takes one point of the tool's limiter for an attempt, waiting for `msBeforeNext` as often as
 * needed while the wait fits before `callEndsAtMs` and within `maxWaitMs`.
 *
 * @param callEndsAtMs - when the call's deadline ends (epoch ms, `Date.now` clock; `Infinity` for none)
 * @throws {RateLimitedError} when no point can be had in time (the tool is not started)
 * @throws {ToolExecutionError} when `rateLimit.key` throws or returns no string
 * @throws {TaskCancelledError} when `signal` aborts while waiting
 * @returns the key the point was taken under
 */
export async function takeRateLimitSlot(
  executor: Pick<ExecutorContext, "log" | "emit" | "options">,
  options: ResolvedRateLimitOptions,
  context: RateLimitKeyContext,
  signal: AbortSignal | undefined,
  callEndsAtMs: number,
): Promise<string> {
  const { toolName } = context;
  let key: string;
  try {
    const given = options.key === undefined ? toolName : options.key(context);
    if (typeof given !== "string" || given === "") throw new TypeError(`rateLimit.key returned ${given === "" ? "an empty string" : typeof given}`);
    key = given;
  } catch (keyError) {
    throw new ToolExecutionError({ toolName, cause: toError(keyError), message: `rateLimit.key failed for tool "${toolName}": ${toError(keyError).message}` });
  }
  const startedAtMs = Date.now();
  for (;;) {
    if (signal?.aborted === true) throw new TaskCancelledError();
    try {
      await options.limiter.consume(key, 1);
      storeOperationWorked(executor, options.limiter, "rate_limiter", toolName);
      return key;
    } catch (rejection) {
      const waitMs = msBeforeNextOf(rejection);
      if (waitMs === undefined) {
        // The limiter's store failed (and it has no insuranceLimiter): fail open, say so (once per outage).
        const error = toError(rejection);
        executor.log("debug", `Rate limiter of tool "${toolName}" failed; calling the tool without it.`, { toolName, error });
        storeOperationFailed(executor, options.limiter, "rate_limiter", { toolName, operation: "consume", error });
        return key;
      }
      // A refusal is the store answering: it works.
      storeOperationWorked(executor, options.limiter, "rate_limiter", toolName);
      const nowMs = Date.now();
      if (nowMs + waitMs > callEndsAtMs || nowMs - startedAtMs + waitMs > options.maxWaitMs) {
        throw new RateLimitedError({ toolName, key, retryAfterMs: waitMs });
      }
      const jitterMs = Math.floor(Math.random() * WAKE_JITTER_MS);
      if (!(await sleepUnlessAborted(Math.min(waitMs + jitterMs, Math.max(0, callEndsAtMs - nowMs)), signal))) throw new TaskCancelledError();
    }
  }
}

/**
 * Blocks the quota `key` for `retryAfterMs` (the service's `Retry-After`), when the limiter can
 * (`block`); a limiter that fails is logged, never thrown.
 */
export async function blockRateLimitKey(executor: Pick<ExecutorContext, "log" | "emit" | "options">, options: ResolvedRateLimitOptions, toolName: string, key: string, retryAfterMs: number): Promise<void> {
  if (typeof options.limiter.block !== "function" || retryAfterMs <= 0) return;
  try {
    await options.limiter.block(key, retryAfterMs / 1000);
  } catch (blockError) {
    const error = toError(blockError);
    executor.log("debug", `Rate limiter of tool "${toolName}" failed to block key "${key}" for the service's Retry-After.`, { toolName, error });
    storeOperationFailed(executor, options.limiter, "rate_limiter", { toolName, operation: "block", error });
  }
}
