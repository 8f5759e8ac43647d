import type { CircuitState, ReinsEvent } from "@reins/core";
import {
  CircuitState as CockatielCircuitState,
  ConsecutiveBreaker,
  ExponentialBackoff,
  TimeoutStrategy,
  bulkhead as createBulkhead,
  circuitBreaker as createCircuitBreaker,
  decorrelatedJitterGenerator,
  fullJitterGenerator,
  handleWhen,
  noJitterGenerator,
  retry as createRetry,
  timeout as createTimeout,
  type BulkheadPolicy,
  type CircuitBreakerPolicy,
  type IExponentialBackoffOptions,
  type RetryPolicy,
  type TimeoutPolicy,
} from "cockatiel";
import { CircuitOpenError, RateLimitedError, ToolTimeoutError } from "./errors";
import { countsAgainstCircuit } from "./failure-observation";
import { isRetryableError, toError } from "./normalize-error";
import type { ResolvedToolPolicy } from "./tool-policy";
import type { ToolExecutorLogger } from "./tool-executor-options";

/** Where the policies report state changes and hook failures. */
export interface PolicyHooks {
  log(level: keyof ToolExecutorLogger, message: string, fields?: Record<string, unknown>): void;
  emit(event: ReinsEvent): void;
  /** Per tool, the run of the latest call started (a circuit change is reported under it). */
  readonly lastRunIdOfTool: ReadonlyMap<string, string | undefined>;
}

/** The state of one call's attempts, handed explicitly to the retry predicate of that call. */
export interface AttemptState {
  attempts: number;
  lastError: Error | undefined;
  readonly toolInput: unknown;
  /** The caller's signal (its abort is a cancellation, not a failure). */
  readonly parentSignal: AbortSignal | undefined;
  /** Settles when the tool's latest attempt has really ended (also after it was abandoned). */
  previousAttempt: Promise<void> | undefined;
  /** The top-level run of the call (copied onto its retry and circuit events). */
  readonly runId: string | undefined;
  /** When the call's deadline ends (epoch ms, `Date.now`; `Infinity` for none). */
  callEndsAtMs: number;
  /** Not before this time may the next attempt start (a failure's `Retry-After`; epoch ms, `Date.now`). */
  notBeforeMs: number | undefined;
}

/** Reins' name of a cockatiel circuit state. */
export function toCircuitState(state: CockatielCircuitState): CircuitState {
  if (state === CockatielCircuitState.Closed) return "closed";
  if (state === CockatielCircuitState.HalfOpen) return "half_open";
  return "open";
}

/** cockatiel's backoff generator for a `retry.jitter` value. */
export function generatorOf(jitter: string): IExponentialBackoffOptions<unknown>["generator"] {
  if (jitter === "none") return noJitterGenerator as IExponentialBackoffOptions<unknown>["generator"];
  if (jitter === "full") return fullJitterGenerator as IExponentialBackoffOptions<unknown>["generator"];
  return decorrelatedJitterGenerator as IExponentialBackoffOptions<unknown>["generator"];
}

/** The circuit breaker of a tool name (shared by every call of that name), or `undefined` when off. */
export function createToolBreaker(toolName: string, policy: ResolvedToolPolicy, hooks: PolicyHooks): CircuitBreakerPolicy | undefined {
  if (policy.circuitBreaker === undefined) return undefined;
  const breaker = createCircuitBreaker(
    handleWhen((error) => countsAgainstCircuit(error)),
    { halfOpenAfter: policy.circuitBreaker.halfOpenAfterMs, breaker: new ConsecutiveBreaker(policy.circuitBreaker.failureThreshold) },
  );
  const halfOpenAfterMs = policy.circuitBreaker.halfOpenAfterMs;
  breaker.onStateChange((state) => {
    const circuitState = toCircuitState(state);
    const runId = hooks.lastRunIdOfTool.get(toolName);
    hooks.emit({
      type: "circuit_state",
      toolName,
      state: circuitState,
      ...(circuitState === "open" ? { halfOpenAfterMs } : {}),
      ...(runId !== undefined ? { runId } : {}),
    });
    hooks.log(state === CockatielCircuitState.Closed ? "info" : "warn", `Circuit of tool "${toolName}" is now ${toCircuitState(state)}.`, { toolName });
  });
  return breaker;
}

/** The per-attempt timeout of a tool, or `undefined` for `timeoutMs: Infinity`. */
export function createAttemptTimeout(policy: ResolvedToolPolicy): TimeoutPolicy | undefined {
  // abortOnReturn: false — aborting a finished call only costs a DOMException per call (~25 µs on Node 20).
  return Number.isFinite(policy.timeoutMs) ? createTimeout(policy.timeoutMs, { strategy: TimeoutStrategy.Aggressive, abortOnReturn: false }) : undefined;
}

/** The bulkhead of a tool, or `undefined` when off. */
export function createToolBulkhead(policy: ResolvedToolPolicy): BulkheadPolicy | undefined {
  return policy.bulkhead === undefined ? undefined : createBulkhead(policy.bulkhead.maxConcurrent, policy.bulkhead.maxQueued);
}

/**
 * The retry policy of one call (cheap: an object and a backoff), so its predicate sees that call's
 * state directly: no retry once the caller or the call's deadline aborted, after a timeout of a
 * tool not declared idempotent, or once the circuit is open; else `retryOn` or `isRetryableError`.
 *
 * @param breaker - the tool's breaker, to stop retrying once a failure opened it
 */
export function createCallRetry(
  toolName: string,
  policy: ResolvedToolPolicy,
  call: AttemptState,
  callSignal: AbortSignal | undefined,
  breaker: CircuitBreakerPolicy | undefined,
  hooks: PolicyHooks,
): RetryPolicy | undefined {
  const retryOptions = policy.retry;
  if (retryOptions === undefined) return undefined;
  const retryPolicy = createRetry(
    handleWhen((error) => {
      if (call.parentSignal?.aborted === true || callSignal?.aborted === true) return false;
      // The timed-out attempt may still be running: only a tool declared idempotent may run again.
      if (ToolTimeoutError.isInstance(error) && !policy.idempotent) return false;
      // Once this failure opened the circuit, another attempt would only wait out a backoff to be refused.
      if (CircuitOpenError.isInstance(error) || breaker?.state === CockatielCircuitState.Open) return false;
      // No point of the quota came in time; and a Retry-After that ends past the deadline cannot be honoured.
      if (RateLimitedError.isInstance(error)) return false;
      if (call.notBeforeMs !== undefined && call.notBeforeMs > call.callEndsAtMs) return false;
      if (retryOptions.retryOn !== undefined) {
        try {
          return retryOptions.retryOn(error, { toolName, toolInput: call.toolInput, attempt: call.attempts });
        } catch (hookError) {
          hooks.log("warn", `retry.retryOn threw for tool "${toolName}"; not retrying.`, { toolName, error: toError(hookError) });
          return false;
        }
      }
      return isRetryableError(error);
    }),
    {
      maxAttempts: retryOptions.maxAttempts - 1,
      backoff: new ExponentialBackoff({
        initialDelay: retryOptions.initialDelayMs,
        maxDelay: retryOptions.maxDelayMs,
        generator: generatorOf(retryOptions.jitter),
      } as Partial<IExponentialBackoffOptions<unknown>>),
    },
  );
  retryPolicy.onRetry((event) => {
    hooks.emit({
      type: "tool_retry",
      toolName,
      attempt: event.attempt + 1,
      delayMs: event.delay,
      error: "error" in event ? toError(event.error) : undefined,
      ...(call.runId !== undefined ? { runId: call.runId } : {}),
    });
  });
  return retryPolicy;
}
