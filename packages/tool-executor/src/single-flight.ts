import type { CallResult } from "./executor-context";

/**
 * Concurrent identical calls of one cacheable tool share one execution (single-flight, as Go's
 * `golang.org/x/sync/singleflight`): keyed by the cache key, which holds the cache scope, the
 * tool name and the input, so only calls that may share a cache entry share a run. The first call
 * runs; the others wait for its result. Nothing is kept once the run settles.
 */
export class SingleFlight {
  private readonly inFlight = new Map<string, { readonly result: Promise<CallResult>; readonly signal: AbortSignal | undefined }>();

  /** Calls now sharing a run, for tests and diagnostics. */
  get size(): number {
    return this.inFlight.size;
  }

  /**
   * Runs `run` for `key`, or joins the run already in flight for `key`. A run its own caller
   * cancelled (`signal` aborted) is not shared: a call that joined it runs its own.
   *
   * @param signal - the caller's signal of the call that would lead the run
   * @returns the result and whether this call joined another's run (`shared: true`) or ran it
   */
  async do(key: string, run: () => Promise<CallResult>, signal: AbortSignal | undefined): Promise<{ result: CallResult; shared: boolean }> {
    const running = this.inFlight.get(key);
    if (running !== undefined) {
      const result = await running.result;
      if (running.signal?.aborted !== true) return { result, shared: true };
      return { result: await run(), shared: false };
    }
    const started = run();
    this.inFlight.set(key, { result: started, signal });
    try {
      return { result: await started, shared: false };
    } finally {
      this.inFlight.delete(key);
    }
  }
}

/**
 * What a call that joined another's run answers: the same observation and artifact; a success
 * counts as `cached` (the tool was not started for this call), a failure as the same failure.
 */
export function sharedResult(result: CallResult): CallResult {
  const shared: CallResult = { ...result, toolCalls: 0 };
  return result.outcome === "success" ? { ...shared, outcome: "cached" } : shared;
}
