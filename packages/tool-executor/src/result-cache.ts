import type { CacheOptions, CacheScopeContext } from "./tool-policy";
import { exactInputKey } from "./cache-key";

/** Where a call's cache entry lives, or why the call is not cached. */
export type CacheSlot = { readonly key: string } | { readonly uncached: string };

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
  return { key: JSON.stringify([scope, facts.toolName, inputKey]) };
}
