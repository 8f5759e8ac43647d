import { createHash } from "node:crypto";
import { exactInputKey } from "./cache-key";
import { type CallResult, type ExecutorContext, type ToolState } from "./executor-context";
import { toError } from "./normalize-error";
import { isFreshCachedResult, type CachedToolResult, type ToolResultStore } from "./result-store";
import type { CacheOptions, CacheScopeContext } from "./tool-policy";
import { storeOperationFailed, storeOperationWorked } from "./store-outage";

/**
 * Where a call's cache entry lives, or why the call is not cached. `key` is what the store sees:
 * `sha256:` and the SHA-256 (hex) of the scoped key, never the tool input itself (a store such as
 * Redis keeps keys in plain sight: `KEYS`, `MONITOR`, slow logs). `keyCheck` is a second, independent
 * digest of the same scoped key (SHA-512, base64url) stored inside the entry and compared on read,
 * so two inputs whose SHA-256 collided could never be served each other's result.
 */
export type CacheSlot = { readonly key: string; readonly keyCheck: string } | { readonly uncached: string };

/** What the cache needs to know about one call. */
export interface CacheCallFacts extends CacheScopeContext {
  /** The run the call belongs to (see `identifyRun`); `undefined` when it cannot be told. */
  readonly runId: string | undefined;
  /** The JSON text an object input was parsed from (see `PreparedToolInput.sourceText`). */
  readonly sourceText: string | undefined;
}

/**
 * The store key of a call: scope, tool name and input key, written as a JSON array so no scope or
 * input can forge another's key. Returns the reason instead when the call must not be cached: the
 * run cannot be told (scope `"run"`), or the scope function gave no scope key.
 *
 * @throws whatever the user's `scope` or `key` function throws (the caller logs it and skips the cache)
 */
export function cacheSlotOf(cache: Readonly<CacheOptions>, facts: CacheCallFacts): CacheSlot {
  let scope: string;
  if (cache.scope === "global") scope = "global";
  else if (cache.scope === "run") {
    if (facts.runId === undefined) return { uncached: 'the call carries no run id, so cache scope "run" cannot keep runs apart' };
    scope = `run:${facts.runId}`;
  } else {
    const given = cache.scope(facts);
    if (typeof given !== "string" || given === "") return { uncached: "cache.scope returned no scope key" };
    scope = `scope:${given}`;
  }
  const inputKey = cache.key !== undefined ? `k${cache.key(facts.toolInput, { toolName: facts.toolName })}` : exactInputKey(facts.toolInput, facts.sourceText);
  const scopedKey = JSON.stringify([scope, facts.toolName, inputKey]);
  return {
    key: `sha256:${createHash("sha256").update(scopedKey).digest("hex")}`,
    keyCheck: createHash("sha512").update("reins-cache-key-check\0").update(scopedKey).digest("base64url"),
  };
}

/** Whether a stored entry was written for this exact scoped key (see {@link CacheSlot}). */
function isEntryOf(hit: CachedToolResult, entry: CallCacheEntry): boolean {
  return (hit as { keyCheck?: unknown }).keyCheck === entry.keyCheck;
}

/** The cache entry of one call, found by {@link cacheEntryOf}. */
export interface CallCacheEntry {
  readonly key: string;
  readonly keyCheck: string;
  readonly store: ToolResultStore;
  readonly options: Readonly<CacheOptions>;
}

/**
 * The cache entry of a call, or `undefined` when the tool has no cache or the call must not be
 * cached (its run cannot be told, the scope function gave no key, or a hook threw: logged).
 */
export function cacheEntryOf(
  executor: Pick<ExecutorContext, "log">,
  state: ToolState,
  facts: CacheCallFacts,
  warnUncached: (toolName: string, reason: string) => void,
): CallCacheEntry | undefined {
  const { policy, store, name: toolName } = state;
  if (policy.cache === undefined || store === undefined) return undefined;
  try {
    const slot = cacheSlotOf(policy.cache, facts);
    if ("key" in slot) return { key: slot.key, keyCheck: slot.keyCheck, store, options: policy.cache };
    warnUncached(toolName, slot.uncached);
  } catch (keyError) {
    executor.log("warn", `cache.key or cache.scope threw for tool "${toolName}"; calling the tool without the cache.`, { toolName, error: toError(keyError) });
  }
  return undefined;
}

/**
 * The cached answer of a call, or `undefined` on a miss. An entry older than `ttlMs` by the
 * executor's clock, or stamped later than now, is a miss even if the store returns it; a store that throws is a miss, logged
 * and emitted as a `tool_cache_error` event (and `onStoreError` is called).
 */
export async function readCache(
  executor: ExecutorContext,
  entry: CallCacheEntry,
  toolName: string,
  toolInput: unknown,
  runId: string | undefined,
  onStoreError?: () => void,
): Promise<CallResult | undefined> {
  try {
    const hit = await entry.store.get(entry.key);
    storeOperationWorked(executor, entry.store, "result_store", toolName, runId);
    // The age is checked here by the reader's clock, so a store that keeps entries past their TTL
    // (or one stamped in the future) cannot serve them.
    if (isFreshCachedResult(hit, executor.options.now(), entry.options.ttlMs) && isEntryOf(hit, entry)) {
      return { observation: executor.format(hit.value, { toolName, toolInput, ...(runId !== undefined ? { runId } : {}) }), outcome: "cached", artifact: hit.value };
    }
  } catch (storeError) {
    const error = toError(storeError);
    executor.log("debug", `Cache store failed on get for tool "${toolName}"; calling the tool.`, { toolName, error });
    storeOperationFailed(executor, entry.store, "result_store", { toolName, operation: "get", error, runId });
    executor.emit({ type: "tool_cache_error", toolName, operation: "get", error, runId });
    onStoreError?.();
  }
  return undefined;
}

/**
 * Stores a successful, checked result unless `cacheable` declines it (a hook that throws
 * declines, logged). A store that throws is logged and emitted as a `tool_cache_error` event.
 */
export async function writeCache(executor: ExecutorContext, entry: CallCacheEntry, toolName: string, toolInput: unknown, result: CallResult, runId: string | undefined): Promise<void> {
  if (result.outcome !== "success" || result.direct !== undefined) return;
  const value = result.raw;
  let cacheable = true;
  try {
    cacheable = entry.options.cacheable?.(value, { toolName, toolInput }) ?? true;
  } catch (hookError) {
    cacheable = false;
    executor.log("warn", `cache.cacheable threw for tool "${toolName}"; result not cached.`, { toolName, error: toError(hookError) });
  }
  if (!cacheable) return;
  try {
    await entry.store.set(entry.key, { value, storedAtMs: executor.options.now(), keyCheck: entry.keyCheck }, entry.options.ttlMs);
    storeOperationWorked(executor, entry.store, "result_store", toolName, runId);
  } catch (storeError) {
    const error = toError(storeError);
    executor.log("debug", `Cache store failed on set for tool "${toolName}".`, { toolName, error });
    storeOperationFailed(executor, entry.store, "result_store", { toolName, operation: "set", error, runId });
    executor.emit({ type: "tool_cache_error", toolName, operation: "set", error, runId });
  }
}

/**
 * After a miss: lets the store's `claim` (cross-process lease) wait for another process's entry.
 * Answers that entry as a cached result, or `undefined` when this process must run the tool (no
 * `claim`, the lease was taken, the wait ran out, or the store threw: logged and emitted as a
 * `tool_cache_error` with operation `get`).
 */
export async function claimCache(executor: ExecutorContext, entry: CallCacheEntry, toolName: string, toolInput: unknown, runId: string | undefined): Promise<CallResult | undefined> {
  if (entry.store.claim === undefined) return undefined;
  try {
    const hit = await entry.store.claim(entry.key);
    storeOperationWorked(executor, entry.store, "result_store", toolName, runId);
    // The same freshness rule as readCache: the reader's clock, never a future stamp.
    if (isFreshCachedResult(hit, executor.options.now(), entry.options.ttlMs) && isEntryOf(hit, entry)) {
      return { observation: executor.format(hit.value, { toolName, toolInput, ...(runId !== undefined ? { runId } : {}) }), outcome: "cached", artifact: hit.value };
    }
  } catch (storeError) {
    const error = toError(storeError);
    executor.log("debug", `Cache store failed on claim for tool "${toolName}"; calling the tool.`, { toolName, error });
    storeOperationFailed(executor, entry.store, "result_store", { toolName, operation: "claim", error, runId });
    executor.emit({ type: "tool_cache_error", toolName, operation: "get", error, runId });
  }
  return undefined;
}

/** Gives up the lease `claimCache` may have taken; a store that throws is logged. */
export async function releaseCache(executor: ExecutorContext, entry: CallCacheEntry, toolName: string): Promise<void> {
  if (entry.store.release === undefined) return;
  try {
    await entry.store.release(entry.key);
  } catch (storeError) {
    executor.log("warn", `Cache store failed to release the lease for tool "${toolName}".`, { toolName, error: toError(storeError) });
  }
}
