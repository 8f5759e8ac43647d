import type { RunnableConfig } from "@langchain/core/runnables";
import { BrokenCircuitError, TaskCancelledError, fallback as createFallback, handleWhen } from "cockatiel";
import { callOriginal, successResult } from "./call-original";
import { createCallRetry, type AttemptState } from "./cockatiel-policies";
import { CircuitOpenError, ToolExecutionError, ToolTimeoutError, ToolValidationError } from "./errors";
import { ignore, type CallResult, type ExecutorContext, type ToolState } from "./executor-context";
import { isKnownFailure } from "./failure-observation";
import { failureResult, runFallback } from "./fallback";
import { guardAbortListeners } from "./guarded-signal";
import { runInHeldBulkhead, typedBulkheadError, type InFlight } from "./held-bulkhead";
import { toError } from "./normalize-error";
import { blockRateLimitKey, takeRateLimitSlot } from "./rate-limit";
import { retryAfterMsOf, sleepUnlessAborted } from "./retry-after";
import type { RunHandle } from "./run-slots";
import { MAX_TIMER_MS } from "./tool-policy";

/** A signal that never aborts, for calls made without one. */
const NEVER_ABORTED = new AbortController().signal;

/** Marker the fallback policy returns so the real fallback can run with the failure's cause. */
const FALLBACK_SIGNAL = Symbol("reins.tool-executor.fallback");

/**
 * Runs one call through fallback(deadline(retry(breaker(rateLimit(bulkhead(timeout(call))))))), the
 * order of Polly/cockatiel resilience pipelines. A failure with a `Retry-After` (429/503) makes the
 * next attempt wait that long, within the deadline (else it is not retried). The deadline is the call's `deadlineMs`, cut to the run's
 * remaining time budget (`RunContext.deadlineAtMs`); once the run's time is up the tool is not
 * started. The result counts the tool's starts (`toolCalls`).
 *
 * The layers are composed by hand rather than with cockatiel's `wrap()`: each boundary translates
 * cockatiel's errors into Reins' typed ones (`TaskCancelledError` → `ToolTimeoutError`,
 * `BrokenCircuitError` → `CircuitOpenError`, bulkhead rejections), the bulkhead may hold its slot
 * past a timeout (`held-bulkhead.ts`), and a retry waits for the abandoned attempt to settle.
 */
export async function runResilientCall(executor: ExecutorContext, state: ToolState, toolInput: unknown, config: RunnableConfig, run: RunHandle): Promise<CallResult> {
  const attemptState: AttemptState = {
    attempts: 0,
    lastError: undefined,
    toolInput,
    parentSignal: config.signal,
    previousAttempt: undefined,
    runId: run.runId,
    callEndsAtMs: Number.POSITIVE_INFINITY,
    notBeforeMs: undefined,
  };
  const deadlineAtMs = run.context?.deadlineAtMs;
  const runRemainingMs = deadlineAtMs === undefined ? Number.POSITIVE_INFINITY : deadlineAtMs - executor.options.now();
  if (runRemainingMs <= 0) {
    // The run's time is up: the tool is not started at all.
    const error = new ToolTimeoutError({ toolName: state.name, timeoutMs: 0, deadline: "run" });
    return { ...failureResult(executor, state, error, 0, run.runId), toolCalls: 0 };
  }
  const result = await runChain(executor, state, toolInput, config, attemptState, runRemainingMs, run);
  return { ...result, toolCalls: attemptState.attempts };
}

async function runChain(
  executor: ExecutorContext,
  state: ToolState,
  toolInput: unknown,
  config: RunnableConfig,
  attemptState: AttemptState,
  runRemainingMs: number,
  run: RunHandle,
): Promise<CallResult> {
  const { policy, name: toolName } = state;
  const parentSignal = config.signal;
  const byRun = runRemainingMs < policy.deadlineMs;
  const budgetMs = Math.min(policy.deadlineMs, runRemainingMs, MAX_TIMER_MS);
  const deadline = Number.isFinite(budgetMs) ? new AbortController() : undefined;
  if (deadline !== undefined) attemptState.callEndsAtMs = Date.now() + budgetMs;
  const callSignal = deadline === undefined ? parentSignal : parentSignal === undefined ? deadline.signal : AbortSignal.any([parentSignal, deadline.signal]);
  const retry = createCallRetry(toolName, policy, attemptState, callSignal, state.breaker, executor);

  const timed = async (signal: AbortSignal, inFlight?: InFlight): Promise<unknown> => {
    // Two attempts of one call never run at once: a retry waits until the abandoned attempt has
    // really ended (bounded by the call's deadline, which answers the caller on its own).
    if (attemptState.previousAttempt !== undefined) {
      // Without any call deadline, the wait is bounded by one attempt's timeout instead.
      const waitMs = deadline === undefined && Number.isFinite(policy.timeoutMs) ? policy.timeoutMs : Number.POSITIVE_INFINITY;
      const settled = await untilSettledOrAborted(attemptState.previousAttempt, signal, waitMs);
      if (!settled && !signal.aborted) {
        throw new ToolTimeoutError({ toolName, timeoutMs: policy.timeoutMs, message: `Tool "${toolName}" was not retried: its abandoned attempt was still running ${policy.timeoutMs} ms later.` });
      }
    }
    if (signal.aborted) throw new TaskCancelledError();
    attemptState.attempts += 1;
    const track = (call: Promise<unknown>): Promise<unknown> => {
      attemptState.previousAttempt = call.then(ignore, ignore);
      if (inFlight !== undefined) inFlight.call = call;
      return call;
    };
    if (state.timeout === undefined) return track(callOriginal(state, toolInput, signal, config));
    try {
      // Without any upstream signal nothing can abort, so skip cockatiel's parent-signal listener.
      return await state.timeout.execute(
        ({ signal: attemptSignal }) => {
          // cockatiel's fresh per-attempt signal, aborted by us at the deadline: the tool's abort
          // listeners run guarded, as one that throws would otherwise crash the process.
          guardAbortListeners(attemptSignal, (listenerError) =>
            executor.log("warn", `An abort listener of tool "${toolName}" threw; ignored.`, { toolName, error: toError(listenerError) }),
          );
          return track(callOriginal(state, toolInput, attemptSignal, config));
        },
        callSignal === undefined ? undefined : signal,
      );
    } catch (error) {
      if (error instanceof TaskCancelledError && parentSignal?.aborted !== true && deadline?.signal.aborted !== true) {
        throw new ToolTimeoutError({ toolName, timeoutMs: policy.timeoutMs, cause: error });
      }
      throw error;
    }
  };
  const limited = async (signal: AbortSignal): Promise<unknown> => {
    const bulkhead = state.bulkhead;
    const limits = policy.bulkhead;
    if (bulkhead === undefined || limits === undefined) return timed(signal);
    if (limits.releaseOnTimeout || state.timeout === undefined) {
      try {
        return await bulkhead.execute(({ signal: inner }) => timed(inner), signal);
      } catch (error) {
        throw typedBulkheadError(error, toolName, limits);
      }
    }
    return runInHeldBulkhead(bulkhead, limits, toolName, policy.timeoutMs, signal, timed);
  };
  let rateLimitKey: string | undefined;
  /** Takes a point of the tool's quota (every attempt does, retries too), then enters the bulkhead. */
  const metered = async (signal: AbortSignal): Promise<unknown> => {
    if (policy.rateLimit !== undefined) {
      const keyContext = { toolName, toolInput, metadata: config.metadata, configurable: config.configurable };
      rateLimitKey = await takeRateLimitSlot(executor, policy.rateLimit, keyContext, signal, attemptState.callEndsAtMs);
    }
    return limited(signal);
  };
  /** cockatiel's open-circuit rejection as Reins' `CircuitOpenError` (other errors unchanged). */
  const openCircuitError = (error: unknown): unknown => {
    if (!(error instanceof BrokenCircuitError)) return error;
    // cockatiel's lastFailure is `{ error }` or `{ value }`: report the failure itself as the cause.
    const last = state.breaker?.lastFailure as { error?: unknown } | undefined;
    return new CircuitOpenError({ toolName, cause: last !== undefined && "error" in last ? last.error : error });
  };
  const guarded = async (signal: AbortSignal): Promise<unknown> => {
    if (state.breaker === undefined) return metered(signal);
    executor.lastRunIdOfTool.set(toolName, attemptState.runId);
    if (state.sharedBreaker !== undefined) return state.sharedBreaker.execute(metered, signal, attemptState.runId, openCircuitError);
    try {
      return await state.breaker.execute(({ signal: inner }) => metered(inner), signal);
    } catch (error) {
      throw openCircuitError(error);
    }
  };
  const attempt = async (signal: AbortSignal): Promise<unknown> => {
    // The previous failure named its wait (Retry-After): the backoff so far counts towards it.
    const notBeforeMs = attemptState.notBeforeMs;
    attemptState.notBeforeMs = undefined;
    if (notBeforeMs !== undefined && !(await sleepUnlessAborted(notBeforeMs - Date.now(), signal))) throw new TaskCancelledError();
    try {
      return await guarded(signal);
    } catch (thrown) {
      const retryAfterMs = retryAfterMsOf(thrown, Date.now());
      if (retryAfterMs !== undefined) {
        attemptState.notBeforeMs = Date.now() + retryAfterMs;
        // The service is over its quota: the whole fleet waits, not only this call.
        if (policy.rateLimit !== undefined && rateLimitKey !== undefined) await blockRateLimitKey(executor, policy.rateLimit, toolName, rateLimitKey, retryAfterMs);
      }
      const error = isKnownFailure(thrown) ? (thrown as Error) : new ToolExecutionError({ toolName, cause: toError(thrown) });
      // An attempt cut by the call's deadline is reported by the deadline itself.
      if (deadline?.signal.aborted !== true) attemptState.lastError = error;
      throw error;
    }
  };
  const retried = (signal: AbortSignal): Promise<unknown> => (retry === undefined ? attempt(signal) : retry.execute(({ signal: inner }) => attempt(inner), signal));
  /** Ends the call at its deadline, whatever the attempts are doing (they are aborted and left to settle). */
  const bounded = (signal: AbortSignal): Promise<unknown> => {
    if (deadline === undefined) return retried(signal);
    const work = retried(callSignal ?? signal);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const error = new ToolTimeoutError({ toolName, timeoutMs: budgetMs, deadline: byRun ? "run" : "call" });
        attemptState.lastError = error;
        reject(error);
        deadline.abort(error);
      }, budgetMs);
    });
    work.catch(ignore);
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  };

  const neverAborted = parentSignal ?? NEVER_ABORTED;
  if (policy.fallback === undefined) {
    try {
      const value = await bounded(neverAborted);
      return successResult(executor, state, toolInput, value, run.runId);
    } catch (thrown) {
      return failureResult(executor, state, attemptState.lastError ?? toError(thrown), attemptState.attempts, run.runId);
    }
  }
  const fallbackPolicy = createFallback(
    // Not for input errors: the model must learn its input was invalid, not get a stand-in answer.
    handleWhen((error) => parentSignal?.aborted !== true && !ToolValidationError.isInstance(error)),
    () => FALLBACK_SIGNAL,
  );
  let value: unknown;
  try {
    value = await fallbackPolicy.execute(() => bounded(neverAborted));
  } catch (thrown) {
    return failureResult(executor, state, attemptState.lastError ?? toError(thrown), attemptState.attempts, run.runId);
  }
  if (value !== FALLBACK_SIGNAL) return successResult(executor, state, toolInput, value, run.runId);
  const cause = attemptState.lastError ?? new ToolExecutionError({ toolName, cause: new Error("unknown failure") });
  return runFallback(executor, state, policy.fallback, toolInput, cause, attemptState.attempts, config, run);
}

/**
 * Resolves `true` when `settled` settles, `false` when `signal` aborts or `maxWaitMs` passes
 * first; leaves no listener or timer behind.
 */
function untilSettledOrAborted(settled: Promise<void>, signal: AbortSignal, maxWaitMs: number): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (value: boolean): void => {
      signal.removeEventListener("abort", onAbort);
      if (timer !== undefined) clearTimeout(timer);
      resolve(value);
    };
    const onAbort = (): void => finish(false);
    signal.addEventListener("abort", onAbort, { once: true });
    if (Number.isFinite(maxWaitMs)) timer = setTimeout(() => finish(false), Math.min(maxWaitMs, MAX_TIMER_MS));
    void settled.then(() => finish(true));
  });
}
