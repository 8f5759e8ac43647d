import type { ToolCallOutcome } from "@reins/core";
import { BulkheadRejectedError, TaskCancelledError } from "cockatiel";
import {
  BulkheadFullError,
  CallLimitExceededError,
  CircuitOpenError,
  DuplicateCallError,
  RateLimitedError,
  StoppedRunCallError,
  ToolExecutionError,
  ToolResultCheckError,
  ToolTimeoutError,
  ToolValidationError,
} from "./errors";
import { MODEL_MESSAGES } from "./messages";
import { httpStatusOf, isRetryableError } from "./normalize-error";
import { retryAfterMsOf } from "./retry-after";

/** The `tool_call` outcome of a failure. */
export function outcomeOf(error: Error): ToolCallOutcome {
  if (ToolTimeoutError.isInstance(error)) return "timeout";
  if (CircuitOpenError.isInstance(error)) return "circuit_open";
  if (
    BulkheadFullError.isInstance(error) ||
    CallLimitExceededError.isInstance(error) ||
    DuplicateCallError.isInstance(error) ||
    RateLimitedError.isInstance(error) ||
    StoppedRunCallError.isInstance(error)
  ) {
    return "rejected";
  }
  if (ToolValidationError.isInstance(error)) return "invalid_input";
  return "error";
}

/** True for the typed failures the pipeline throws itself (they are not wrapped again). */
export function isKnownFailure(thrown: unknown): boolean {
  return (
    ToolTimeoutError.isInstance(thrown) ||
    CircuitOpenError.isInstance(thrown) ||
    BulkheadFullError.isInstance(thrown) ||
    RateLimitedError.isInstance(thrown) ||
    ToolValidationError.isInstance(thrown) ||
    ToolResultCheckError.isInstance(thrown) ||
    ToolExecutionError.isInstance(thrown)
  );
}

/**
 * Failures that count towards opening a circuit: transport faults, timeouts, 5xx and other
 * failures; not HTTP 4xx answers (429 included), not input errors, not bulkhead rejections, not
 * cancellations by the caller, not a call the rate limiter refused (a timeout reaches the breaker
 * as a ToolTimeoutError and counts).
 */
export function countsAgainstCircuit(error: Error): boolean {
  // A 4xx (429 included) says the service is up and answering: the request or the quota is at
  // fault, not the service's health (a 429 is handled by Retry-After and rateLimit instead).
  const status = ToolResultCheckError.isInstance(error) ? error.status : httpStatusOf(error);
  if (status !== undefined && status >= 400 && status < 500) return false;
  return (
    !ToolValidationError.isInstance(error) &&
    !RateLimitedError.isInstance(error) &&
    !BulkheadFullError.isInstance(error) &&
    !(error instanceof BulkheadRejectedError) &&
    !(error instanceof TaskCancelledError)
  );
}

/**
 * The model-facing observation of a failed call: what failed, whether trying again can help, what
 * to do. Never includes a stack trace.
 *
 * @param toolName - the tool
 * @param error - the typed failure
 * @param attempts - attempts made (mentioned when > 1)
 * @param halfOpenAfterMs - the breaker pause, mentioned for an open circuit
 */
export function failureObservation(toolName: string, error: Error, attempts: number, halfOpenAfterMs: number): string {
  if (ToolTimeoutError.isInstance(error)) {
    return error.deadline === "run" ? MODEL_MESSAGES.runTimeUp(toolName) : MODEL_MESSAGES.timeout(toolName, error.timeoutMs, attempts);
  }
  if (CircuitOpenError.isInstance(error)) return MODEL_MESSAGES.circuitOpen(toolName, halfOpenAfterMs);
  if (RateLimitedError.isInstance(error)) return MODEL_MESSAGES.rateLimited(toolName, error.retryAfterMs);
  if (BulkheadFullError.isInstance(error)) return MODEL_MESSAGES.bulkheadRejected(toolName, error.maxConcurrent);
  if (ToolValidationError.isInstance(error)) return MODEL_MESSAGES.invalidInput(toolName, error.issues);
  if (ToolResultCheckError.isInstance(error)) return MODEL_MESSAGES.resultCheckFailed(toolName, error.label, error.detail, isRetryableError(error));
  const cause = ToolExecutionError.isInstance(error) ? error.cause : error;
  if (cause.name === "AbortError" || cause instanceof TaskCancelledError) return MODEL_MESSAGES.cancelled(toolName);
  const status = httpStatusOf(cause);
  if (status !== undefined && status >= 400 && status < 500 && status !== 429) return MODEL_MESSAGES.clientError(toolName, status, cause.message);
  // A 429/503 that names its wait (Retry-After) and could not be retried in time says when to try again.
  const retryAfterMs = retryAfterMsOf(cause, Date.now());
  if (retryAfterMs !== undefined) return MODEL_MESSAGES.retryAfter(toolName, retryAfterMs, attempts);
  if (isRetryableError(error)) return MODEL_MESSAGES.retryableError(toolName, cause.message, attempts);
  return MODEL_MESSAGES.permanentError(toolName, cause.message);
}
