import { checkKeys, checkNumber, fail, isPlainObject } from "./policy-checks";

/** Concurrency limit per tool (cockatiel `bulkhead`). */
export interface BulkheadOptions {
  /**
   * Calls of this tool running at once.
   * @default 10
   */
  maxConcurrent: number;
  /**
   * Calls waiting for a slot; more are rejected at once.
   * @default 0
   */
  maxQueued: number;
  /**
   * What a timed-out call does with its slot. `false` (default): the slot stays taken until the
   * abandoned tool really settles (a tool that honours its `AbortSignal` settles at once), so the
   * limit bounds the work actually running against the service; a queued call then waits at most
   * `timeoutMs` for a slot and otherwise ends as a timeout without starting. `true`: the slot is
   * freed at the deadline, while the abandoned tool may still be running (cockatiel's behaviour).
   * @default false
   */
  releaseOnTimeout: boolean;
}

/** Defaults of the bulkhead when turned on. */
export const DEFAULT_BULKHEAD_OPTIONS: Readonly<BulkheadOptions> = Object.freeze({
  maxConcurrent: 10,
  maxQueued: 0,
  releaseOnTimeout: false,
});

/**
 * Resolves the `bulkhead` section (`undefined` when off).
 * @throws {ToolExecutorOptionsError} naming the first bad field
 */
export function resolveBulkheadOptions(field: string, section: unknown): BulkheadOptions | undefined {
  const policy = { bulkhead: section as Partial<BulkheadOptions> | false | undefined };
  let bulkhead: BulkheadOptions | undefined;
  if (policy.bulkhead !== false && policy.bulkhead !== undefined) {
    if (!isPlainObject(policy.bulkhead)) fail(`${field}.bulkhead`, policy.bulkhead, "must be an object or false");
    checkKeys(`${field}.bulkhead`, policy.bulkhead, ["maxConcurrent", "maxQueued", "releaseOnTimeout"]);
    const merged = { ...DEFAULT_BULKHEAD_OPTIONS, ...policy.bulkhead };
    bulkhead = {
      maxConcurrent: checkNumber(`${field}.bulkhead.maxConcurrent`, merged.maxConcurrent, { min: 1, integer: true }),
      maxQueued: checkNumber(`${field}.bulkhead.maxQueued`, merged.maxQueued, { min: 0, integer: true }),
      releaseOnTimeout: merged.releaseOnTimeout,
    };
    if (typeof bulkhead.releaseOnTimeout !== "boolean") fail(`${field}.bulkhead.releaseOnTimeout`, bulkhead.releaseOnTimeout, "must be a boolean");
  }

  return bulkhead;
}
