import { BulkheadRejectedError as CockatielBulkheadRejectedError, type BulkheadPolicy } from "cockatiel";
import { BulkheadRejectedError, ToolTimeoutError } from "./errors";
import { ignore } from "./executor-context";
import type { BulkheadOptions } from "./tool-policy";

/** The tool's own promise, which may outlive an abandoned attempt. */
export interface InFlight {
  call?: Promise<unknown>;
}

/**
 * Runs `attempt` in the bulkhead, holding the slot until the tool itself settles, even after the
 * caller got its timeout answer (the caller's promise is settled from inside the bulkhead task).
 * A queued call waits at most `timeoutMs` for a slot, then ends as a `ToolTimeoutError` without
 * starting. cockatiel's own bulkhead frees the slot when the (abandoned) attempt returns; this is
 * the adapter for `releaseOnTimeout: false`.
 *
 * @param attempt - one timed attempt; it sets `inFlight.call` to the tool's promise
 * @throws {BulkheadRejectedError} when the bulkhead and its queue are full
 */
export function runInHeldBulkhead(
  bulkhead: BulkheadPolicy,
  limits: Readonly<BulkheadOptions>,
  toolName: string,
  timeoutMs: number,
  signal: AbortSignal,
  attempt: (signal: AbortSignal, inFlight: InFlight) => Promise<unknown>,
): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    let gaveUp = false;
    let queueTimer: ReturnType<typeof setTimeout> | undefined;
    if (bulkhead.executionSlots === 0 && bulkhead.queueSlots > 0) {
      // Queued behind calls that may never settle: wait at most timeoutMs for a slot.
      queueTimer = setTimeout(() => {
        gaveUp = true;
        reject(
          new ToolTimeoutError({
            toolName,
            timeoutMs,
            message: `Tool "${toolName}" waited ${timeoutMs} ms for a free bulkhead slot (${limits.maxConcurrent} busy) and was not started.`,
          }),
        );
      }, timeoutMs);
    }
    bulkhead
      .execute(async ({ signal: inner }) => {
        if (queueTimer !== undefined) clearTimeout(queueTimer);
        if (gaveUp) return;
        const inFlight: InFlight = {};
        try {
          resolve(await attempt(inner, inFlight));
        } catch (error) {
          reject(error);
          if (inFlight.call !== undefined) await inFlight.call.then(ignore, ignore);
        }
      }, signal)
      .catch((error: unknown) => {
        if (queueTimer !== undefined) clearTimeout(queueTimer);
        reject(typedBulkheadError(error, toolName, limits));
      });
  });
}

/** cockatiel's bulkhead rejection as Reins' typed `BulkheadRejectedError`; other errors unchanged. */
export function typedBulkheadError(error: unknown, toolName: string, limits: Readonly<BulkheadOptions>): unknown {
  return error instanceof CockatielBulkheadRejectedError
    ? new BulkheadRejectedError({ toolName, maxConcurrent: limits.maxConcurrent, maxQueued: limits.maxQueued, cause: error })
    : error;
}
