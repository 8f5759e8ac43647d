/**
 * Where cached tool results live. The default keeps them in memory per tool; implement
 * {@link ToolResultStore} over Redis (see the README recipe) to share a cache between instances.
 */

/** One cached result. `value` is the tool's raw (successful, checked) result. */
export interface CachedToolResult {
  readonly value: unknown;
  /** When it was stored, in epoch milliseconds of the executor's clock. */
  readonly storedAtMs: number;
  /**
   * A digest of the full scoped key the entry was written for (the store's key is only its
   * SHA-256): a reader serves the entry only when it matches its own, so a hash collision, or an
   * entry copied under another key, is a miss. Written by the ToolExecutor; a store keeps it as is.
   */
  readonly keyCheck?: string;
}

/**
 * Whether `entry` is a cached tool result that may be served at `nowMs`: the documented JSON shape
 * `{ value, storedAtMs }` with a finite `storedAtMs`, and an age by the reader's clock in
 * `[0, ttlMs)`. An entry stamped in the future (a writer's clock ahead, or a forged entry) is never
 * fresh, so a store that keeps it without its own TTL cannot serve it for ever.
 *
 * @param entry - what a {@link ToolResultStore} returned (any value)
 * @param nowMs - the reader's clock, epoch milliseconds
 * @param ttlMs - the cache's TTL in milliseconds
 * @returns true when `entry` may be served
 * @example
 * ```ts
 * isFreshCachedResult({ value: "18 °C", storedAtMs: Date.now() + 3_600_000 }, Date.now(), 60_000); // false
 * ```
 */
export function isFreshCachedResult(entry: unknown, nowMs: number, ttlMs: number): entry is CachedToolResult {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry) || !("value" in entry)) return false;
  const storedAtMs = (entry as { storedAtMs?: unknown }).storedAtMs;
  if (typeof storedAtMs !== "number" || !Number.isFinite(storedAtMs)) return false;
  const ageMs = nowMs - storedAtMs;
  return ageMs >= 0 && ageMs < ttlMs;
}

/**
 * A key-value store for tool results with per-entry TTL. Methods may be sync or async. A store
 * that throws is treated as a cache miss (the tool is called) and the error is logged.
 *
 * @example Redis (ioredis) adapter
 * ```ts
 * const redisStore: ToolResultStore = {
 *   async get(key) {
 *     const text = await redis.get(`reins:tool:${key}`);
 *     return text === null ? undefined : JSON.parse(text);
 *   },
 *   async set(key, entry, ttlMs) {
 *     await redis.set(`reins:tool:${key}`, JSON.stringify(entry), "PX", ttlMs);
 *   },
 * };
 * ```
 */
export interface ToolResultStore {
  /** The entry stored under `key`, or `undefined` when absent or expired. */
  get(key: string): CachedToolResult | undefined | Promise<CachedToolResult | undefined>;
  /** Stores `entry` under `key` for `ttlMs` milliseconds. */
  set(key: string, entry: CachedToolResult, ttlMs: number): void | Promise<void>;
  /** Removes `key` (optional). */
  delete?(key: string): void | Promise<void>;
  /**
   * Cross-process stampede guard (optional; `RedisResultStore` implements it with `SET NX PX`):
   * called after a miss, before the tool runs. Either takes a short lease on `key` and answers
   * `undefined` (this process computes, then the executor calls `release`), or waits a bounded
   * time for the process holding the lease and answers the entry it stored. A store that cannot
   * tell (an error, the wait ran out) answers `undefined`, and the tool runs (fail open).
   */
  claim?(key: string): Promise<CachedToolResult | undefined>;
  /** Gives up this process's lease on `key` (after the entry was stored or the call failed). */
  release?(key: string): void | Promise<void>;
}

/** Options of {@link InMemoryToolResultStore}. */
export interface InMemoryToolResultStoreOptions {
  /**
   * Most entries kept; the least recently used is evicted first.
   * @default 500
   */
  maxEntries?: number;
  /**
   * Clock in epoch milliseconds (for expiry).
   * @default Date.now
   */
  now?: () => number;
}

/**
 * The default {@link ToolResultStore}: an in-memory LRU map with per-entry expiry. Expired entries
 * are dropped lazily when read and when the LRU evicts; no timers run.
 *
 * @example
 * ```ts
 * const store = new InMemoryToolResultStore({ maxEntries: 100 });
 * store.set("weather:\"Paris\"", { value: "18 °C", storedAtMs: Date.now() }, 60_000);
 * ```
 */
export class InMemoryToolResultStore implements ToolResultStore {
  private readonly entries = new Map<string, { entry: CachedToolResult; expiresAtMs: number }>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: InMemoryToolResultStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 500;
    this.now = options.now ?? Date.now;
  }

  /** Number of entries held (expired ones included until read or evicted). */
  get size(): number {
    return this.entries.size;
  }

  get(key: string): CachedToolResult | undefined {
    const held = this.entries.get(key);
    if (held === undefined) return undefined;
    if (this.now() >= held.expiresAtMs) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-insert to mark as most recently used (Map keeps insertion order).
    this.entries.delete(key);
    this.entries.set(key, held);
    return held.entry;
  }

  set(key: string, entry: CachedToolResult, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { entry, expiresAtMs: this.now() + ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Removes every entry. */
  clear(): void {
    this.entries.clear();
  }
}
