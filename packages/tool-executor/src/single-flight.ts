import type { CallResult } from "./executor-context";

/**
 * Concurrent identical calls of one cacheable tool share one execution (single-flight, as Go's
 * `golang.org/x/sync/singleflight`): keyed by the cache key, which holds the cache scope, the
 * tool name and the input, so only calls that may share a cache entry share a run. The first call
 * runs; the others wait for its result. Nothing is kept once the run settles.
 */
export class SingleFlight {
  private readonly inFlight = new Map<string, Promise<CallResult>>();

  /** Calls now sharing a run, for tests and diagnostics. */
  get size(): number {
    return this.inFlight.size;
  }

  /**
   * Runs `run` for `key`, or joins the run already in flight for `key`.
   *
   * @returns the result and whether this call joined another's run (`shared: true`) or ran it
   */
  async do(key: string, run: () => Promise<CallResult>): Promise<{ result: CallResult; shared: boolean }> {
    const running = this.inFlight.get(key);
    if (running !== undefined) return { result: await running, shared: true };
    const started = run();
    this.inFlight.set(key, started);
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
