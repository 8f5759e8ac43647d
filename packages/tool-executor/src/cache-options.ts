import { checkFunction, checkKeys, checkNumber, fail, isPlainObject } from "./policy-checks";
import type { ToolResultStore } from "./result-store";
import type { ToolCallContext } from "./tool-call-context";

/** What a cache `scope` function learns about the call (see {@link CacheOptions.scope}). */
export interface CacheScopeContext extends ToolCallContext {
  /** `config.configurable` of the call (the `invoke()` path hands it to tools; `stream()` does not). */
  readonly configurable: Readonly<Record<string, unknown>> | undefined;
  /** `config.metadata` of the call (inheritable metadata; also reaches tools on `stream()` with callbacks). */
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Who may be served an entry: `"run"` (only the run that stored it), `"global"` (every caller of
 * this store: every user, every run) or a function returning a scope key, e.g.
 * `(context) => context.configurable?.user_id`. A function that returns anything but a non-empty
 * string, or throws, makes the call uncached (fail safe).
 */
export type CacheScope = "run" | "global" | ((context: CacheScopeContext) => string | undefined);

/** Result cache. Failures are never cached. */
export interface CacheOptions {
  /**
   * How long a result is served from the cache, in milliseconds.
   * @default 60000
   */
  ttlMs: number;
  /**
   * Entries kept by the default in-memory LRU store (ignored when `store` is given).
   * @default 500
   */
  maxEntries: number;
  /**
   * Who may be served a cached result. `"run"` keeps entries to the run that stored them, so one
   * user's result is never served to another; a call whose run cannot be told (the classic
   * `stream()` path without callbacks, `invoke()` without callbacks) is not cached. `"global"`
   * shares entries between every run and every user of the store: use it only for tools whose
   * answer does not depend on who asks.
   * @default "run"
   */
  scope: CacheScope;
  /**
   * Cache key of a call. The tool name and the scope are always prefixed.
   * @default the exact input: a string as written; an object canonicalised (keys sorted, number
   * literals kept as written when the input arrived as JSON text)
   */
  key?: (toolInput: unknown, context: { toolName: string }) => string;
  /**
   * Whether a successful result may be cached.
   * @default every successful, checked result
   */
  cacheable?: (result: unknown, context: ToolCallContext) => boolean;
  /**
   * Where entries live; give a shared store (Redis…) to share the cache between instances.
   * @default a new InMemoryToolResultStore per tool
   */
  store?: ToolResultStore;
}

/** Defaults of the cache when turned on. */
export const DEFAULT_CACHE_OPTIONS: Readonly<Pick<CacheOptions, "ttlMs" | "maxEntries" | "scope">> = Object.freeze({
  ttlMs: 60_000,
  maxEntries: 500,
  scope: "run" as CacheScope,
});

/**
 * Resolves the `cache` section (`undefined` when off; `true` means the defaults).
 * @throws {ToolExecutorOptionsError} naming the first bad field
 */
export function resolveCacheOptions(field: string, section: unknown): CacheOptions | undefined {
  const policy = { cache: section as Partial<CacheOptions> | boolean | undefined };
  let cache: CacheOptions | undefined;
  if (policy.cache !== false && policy.cache !== undefined) {
    const given = policy.cache === true ? {} : policy.cache;
    if (!isPlainObject(given)) fail(`${field}.cache`, given, "must be an object, true or false");
    checkKeys(`${field}.cache`, given, ["ttlMs", "maxEntries", "scope", "key", "cacheable", "store"]);
    const merged = { ...DEFAULT_CACHE_OPTIONS, ...given };
    if (merged.scope !== "run" && merged.scope !== "global" && typeof merged.scope !== "function") {
      fail(`${field}.cache.scope`, merged.scope, 'must be "run", "global" or a function (context) => string');
    }
    cache = {
      ttlMs: checkNumber(`${field}.cache.ttlMs`, merged.ttlMs, { min: 1 }),
      maxEntries: checkNumber(`${field}.cache.maxEntries`, merged.maxEntries, { min: 1, integer: true }),
      scope: merged.scope,
      key: checkFunction(`${field}.cache.key`, merged.key),
      cacheable: checkFunction(`${field}.cache.cacheable`, merged.cacheable),
      store: merged.store,
    };
    const store = cache.store as unknown;
    if (store !== undefined && (typeof store !== "object" || store === null || typeof (store as Record<string, unknown>).get !== "function" || typeof (store as Record<string, unknown>).set !== "function")) {
      fail(`${field}.cache.store`, "(store)", "must implement get(key) and set(key, entry, ttlMs)");
    }
  }

  return cache;
}
