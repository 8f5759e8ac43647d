import { createOptionChecks, type OptionChecks } from "@reins/core";
import { RedisStoreOptionsError, type RedisStoreOperationError } from "./errors";

/**
 * The part of an ioredis client the store uses (`Redis` or `Cluster` from `ioredis`). A client the
 * app passes in stays the app's: `RedisResultStore.close` does not quit it.
 */
export interface RedisClientLike {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, mode: "PX", ttlMs: number): Promise<unknown>;
  del(key: string): Promise<number>;
  quit?(): Promise<unknown>;
}

/** The part of a node-redis client (v4+) the stores use: raw commands. */
export interface NodeRedisClientLike {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Options of `RedisResultStore`. */
export interface RedisResultStoreOptions {
  /**
   * A client the app owns: ioredis `Redis` or `Cluster`, or node-redis (`createClient` of `redis`
   * / `@redis/client`, v4+; its commands are sent with `sendCommand`).
   * @default a new ioredis `Redis` on `url`
   */
  client?: RedisClientLike | NodeRedisClientLike;
  /**
   * Redis URL of the client the store creates when no `client` is given (it is created with
   * `lazyConnect`, `enableOfflineQueue: false` and `maxRetriesPerRequest: 0`, so a command fails at
   * once while Redis is down instead of queueing).
   * @default "redis://127.0.0.1:6379"
   */
  url?: string;
  /**
   * Prefix of every key, so several apps or environments share one Redis.
   * @default "reins:tool:"
   */
  keyPrefix?: string;
  /**
   * Longest wait for one Redis operation, in milliseconds. A slower one counts as failed: `get`
   * answers a miss, `set` is dropped, and the tool call goes on as if uncached.
   * @default 250
   */
  operationTimeoutMs?: number;
  /**
   * Called with every failed operation, before it is thrown (the failures are also counted in
   * `RedisResultStore.failures`; the ToolExecutor logs them and emits `tool_cache_error`).
   * @default undefined
   */
  onError?: (error: RedisStoreOperationError) => void;
  /**
   * Cross-process stampede guard: after a miss, the executor asks the store to `claim` the key. The
   * first process takes a lease (`SET <prefix>lease:<key> <token> NX PX leaseMs`) and runs the tool;
   * the others poll for its entry (every `leasePollMs`) up to `leaseWaitMs`, then run the tool
   * themselves. A lease outlives a crashed holder by at most `leaseMs`. `false` turns leases off.
   * Needs a client that sends raw commands (ioredis, node-redis); with another client, or while
   * Redis fails, the call runs (fail open).
   * @default { leaseMs: 10000, leaseWaitMs: 2000, leasePollMs: 50 }
   */
  lease?: { leaseMs?: number; leaseWaitMs?: number; leasePollMs?: number } | false;
}

/** Defaults of {@link RedisResultStoreOptions}. */
export const DEFAULT_REDIS_RESULT_STORE_OPTIONS = Object.freeze({
  url: "redis://127.0.0.1:6379",
  keyPrefix: "reins:tool:",
  operationTimeoutMs: 250,
  lease: Object.freeze({ leaseMs: 10_000, leaseWaitMs: 2_000, leasePollMs: 50 }),
});

/** The resolved `lease` option (`undefined`: off). */
export interface ResolvedLeaseOptions {
  readonly leaseMs: number;
  readonly leaseWaitMs: number;
  readonly leasePollMs: number;
}

const check: OptionChecks = createOptionChecks((field, value, reason) => {
  throw new RedisStoreOptionsError({ field, value, reason });
});

/**
 * Checks `options` and fills the defaults of the fields the store reads directly.
 *
 * @returns `keyPrefix` and `operationTimeoutMs`, defaults applied
 * @throws {RedisStoreOptionsError} when an option is invalid (names the field)
 */
export function resolveRedisResultStoreOptions(options: RedisResultStoreOptions): { keyPrefix: string; operationTimeoutMs: number; lease: ResolvedLeaseOptions | undefined } {
  const { keyPrefix = DEFAULT_REDIS_RESULT_STORE_OPTIONS.keyPrefix, operationTimeoutMs = DEFAULT_REDIS_RESULT_STORE_OPTIONS.operationTimeoutMs } = options;
  if (typeof keyPrefix !== "string") check.fail("keyPrefix", keyPrefix, "must be a string");
  if (typeof operationTimeoutMs !== "number" || !Number.isFinite(operationTimeoutMs) || operationTimeoutMs <= 0) {
    check.fail("operationTimeoutMs", operationTimeoutMs, "must be a finite number > 0");
  }
  const client = options.client as Partial<RedisClientLike & NodeRedisClientLike> | null | undefined;
  if (client !== undefined && (typeof client !== "object" || client === null || (typeof client.get !== "function" && typeof client.sendCommand !== "function"))) {
    check.fail("client", "(client)", "must be an ioredis client (get, set, del) or a node-redis client (sendCommand)");
  }
  check.optionalFunction("onError", options.onError);
  let lease: ResolvedLeaseOptions | undefined;
  if (options.lease !== false) {
    if (options.lease !== undefined && (typeof options.lease !== "object" || options.lease === null)) check.fail("lease", options.lease, "must be an object or false");
    const merged = { ...DEFAULT_REDIS_RESULT_STORE_OPTIONS.lease, ...(options.lease ?? {}) };
    for (const field of ["leaseMs", "leaseWaitMs", "leasePollMs"] as const) {
      const value = merged[field];
      if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) check.fail(`lease.${field}`, value, "must be a finite number > 0");
    }
    lease = Object.freeze(merged);
  }
  return { keyPrefix, operationTimeoutMs, lease };
}
