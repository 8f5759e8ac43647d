import type { SharedStoreKind } from "@reins/core";
import type { ExecutorContext } from "./executor-context";
import { DEFAULT_TOOL_EXECUTOR_OPTIONS } from "./tool-executor-options";

/**
 * Outages of the shared stores a ToolExecutor uses (the result cache's store, a shared breaker's
 * store, a rate limiter), told from the operations themselves: the first failed operation after
 * the store last worked starts an outage, the first working one ends it. Nothing listens on the
 * app's Redis client: its `error` events stay the app's.
 *
 * Each outage is one `store_outage` event (`down`), one warning, and when it ends one `recovered`
 * event and line, whatever the number of calls that failed between (those are still each logged at
 * `debug` and counted by `tool_cache_errors_total` / `circuit_store_errors_total`). With no
 * `logger`, the two lines go to `console.warn` (nothing else the executor logs does), so an outage
 * is never silent by default; any `logger` (`{}` too) takes them instead: `warn` for the outage,
 * `info` for the recovery.
 */

/** What an outage is reported through (the executor's context). */
export type OutageHost = Pick<ExecutorContext, "options" | "log" | "emit">;

interface Outage {
  readonly startedAtMs: number;
  failedOperations: number;
}

/** The stores in an outage, per store object (so executors sharing a store report it once). */
const outages = new WeakMap<object, Outage>();

const STORE_WORDS: Readonly<Record<SharedStoreKind, { readonly name: string; readonly meanwhile: string }>> = {
  result_store: { name: "cache store", meanwhile: "tools run without the cache" },
  circuit_store: { name: "shared circuit store", meanwhile: "each replica's local breaker decides" },
  rate_limiter: { name: "rate limiter's store", meanwhile: "calls are made without the shared quota (its insuranceLimiter, if any, applies)" },
};

/** Where outage lines go: `console.warn` without a logger (outage lines only), else the logger. */
function outageLine(host: OutageHost, level: "warn" | "info", message: string, fields: Record<string, unknown>): void {
  if (host.options.logger === DEFAULT_TOOL_EXECUTOR_OPTIONS.logger) {
    console.warn(`[reins] tool-executor: ${message} (Shown because ToolExecutor has no logger: pass { logger } to redirect it; {} silences it.)`);
    return;
  }
  host.log(level, message, fields);
}

/**
 * A store operation failed: starts an outage (event `down`, one warning) unless one is on.
 * @param store - the store object (the outage is tracked per object)
 */
export function storeOperationFailed(host: OutageHost, store: object, kind: SharedStoreKind, facts: { readonly toolName: string; readonly operation: string; readonly error: Error; readonly runId?: string | undefined }): void {
  const current = outages.get(store);
  if (current !== undefined) {
    current.failedOperations += 1;
    return;
  }
  outages.set(store, { startedAtMs: host.options.now(), failedOperations: 1 });
  const { toolName, operation, error, runId } = facts;
  host.emit({ type: "store_outage", store: kind, status: "down", toolName, operation, error, ...(runId !== undefined ? { runId } : {}) });
  const words = STORE_WORDS[kind];
  outageLine(host, "warn", `the ${words.name} failed on ${operation} for tool "${toolName}" (${error.message}); ${words.meanwhile} until it works again.`, { toolName, store: kind, operation, error });
}

/** A store operation worked: ends the store's outage, if one is on (event `recovered`, one line). */
export function storeOperationWorked(host: OutageHost, store: object, kind: SharedStoreKind, toolName: string, runId?: string): void {
  const current = outages.get(store);
  if (current === undefined) return;
  outages.delete(store);
  const downMs = Math.max(0, host.options.now() - current.startedAtMs);
  host.emit({ type: "store_outage", store: kind, status: "recovered", toolName, downMs, failedOperations: current.failedOperations, ...(runId !== undefined ? { runId } : {}) });
  const words = STORE_WORDS[kind];
  outageLine(host, "info", `the ${words.name} works again (tool "${toolName}"), after ${(downMs / 1000).toFixed(1)} s and ${current.failedOperations} failed operation${current.failedOperations === 1 ? "" : "s"}.`, {
    toolName,
    store: kind,
    downMs,
    failedOperations: current.failedOperations,
  });
}
