import type { CachedToolResult, ToolResultStore } from "@reins/tool-executor";
import { Redis } from "ioredis";
import { randomUUID } from "node:crypto";
import { RedisStoreOperationError } from "./errors";
import { canSendCommands, sendCommand } from "./redis-connection";
import {
  DEFAULT_REDIS_RESULT_STORE_OPTIONS,
  resolveRedisResultStoreOptions,
  type NodeRedisClientLike,
  type RedisClientLike,
  type RedisResultStoreOptions,
  type ResolvedLeaseOptions,
} from "./redis-result-store-options";

/**
 * A {@link ToolResultStore} on Redis (ioredis), so every agent process of a fleet shares the tool
 * results its `cache.scope` allows: entries expire with Redis' own `PX` TTL, every key carries the
 * prefix and the executor's scope (run, user, or global). Redis being down or slow never reaches
 * the agent: each operation is bounded by `operationTimeoutMs` and fails with a
 * `RedisStoreOperationError` (counted in {@link RedisResultStore.failures}, passed to `onError`),
 * which the ToolExecutor treats as a miss (`get`) or a dropped entry (`set`): the call runs as if
 * uncached, the failure is logged and emitted as a `tool_cache_error` event
 * (`tool_cache_errors_total` in `@reins/metrics`). Values are stored as JSON, so a tool result must
 * be JSON-serialisable to be cached.
 *
 * Why ioredis: it bounds each command itself (`commandTimeout`), can refuse commands while
 * disconnected instead of queueing them (`enableOfflineQueue: false`), ships its own types and a
 * CommonJS build, and supports Cluster and Sentinel with the same API.
 *
 * @example
 * ```ts
 * import { RedisResultStore } from "@reins/redis-store";
 * const store = new RedisResultStore({ url: process.env.REDIS_URL });
 * const executor = new ToolExecutor({
 *   policies: { search: { cache: { store, ttlMs: 300_000, scope: (context) => context.metadata?.user_id as string } } },
 * });
 * // … on shutdown:
 * await store.close();
 * ```
 */
export class RedisResultStore implements ToolResultStore {
  /** The client in use. */
  readonly client: RedisClientLike | NodeRedisClientLike;
  /** A node-redis client: every command goes through `sendCommand` (its `set` takes options, not `"PX"`). */
  private readonly viaSendCommand: boolean;
  /** Failed or timed-out operations so far, by operation. */
  readonly failures = { get: 0, set: 0, delete: 0, claim: 0, release: 0 };
  private readonly ownsClient: boolean;
  private readonly keyPrefix: string;
  private readonly operationTimeoutMs: number;
  private readonly onError: ((error: RedisStoreOperationError) => void) | undefined;
  private connecting: Promise<void> | undefined;
  private readonly lease: ResolvedLeaseOptions | undefined;
  /** The lease tokens this process holds, by key. */
  private readonly leases = new Map<string, string>();

  /**
   * @param options - see {@link RedisResultStoreOptions}
   * @throws {RedisStoreOptionsError} when an option is invalid (names the field)
   */
  constructor(options: RedisResultStoreOptions = {}) {
    const { keyPrefix, operationTimeoutMs, lease } = resolveRedisResultStoreOptions(options);
    this.lease = lease;
    this.keyPrefix = keyPrefix;
    this.operationTimeoutMs = operationTimeoutMs;
    this.onError = options.onError;
    this.ownsClient = options.client === undefined;
    this.client =
      options.client ??
      new Redis(options.url ?? DEFAULT_REDIS_RESULT_STORE_OPTIONS.url, {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: operationTimeoutMs,
        connectTimeout: Math.max(operationTimeoutMs, 1000),
      });
    // ioredis emits "error" while reconnecting; unhandled, it would crash the process. Only on the
    // client this store created: an app's own client is the app's to listen to (a listener added
    // here would pile up per store and hide errors the app does not handle).
    if (this.ownsClient) (this.client as { on?: (event: string, listener: (error: unknown) => void) => void }).on?.("error", () => undefined);
    this.viaSendCommand = typeof (this.client as { call?: unknown }).call !== "function" && typeof (this.client as { sendCommand?: unknown }).sendCommand === "function";
  }

  /**
   * The cached entry under `key`, or `undefined` when absent or expired.
   * @throws {RedisStoreOperationError} when Redis fails, does not answer within `operationTimeoutMs`, or holds an unreadable entry
   */
  async get(key: string): Promise<CachedToolResult | undefined> {
    return this.getAs("get", key);
  }

  private async getAs(operation: "get" | "claim", key: string): Promise<CachedToolResult | undefined> {
    const text = await this.run(operation, key, () => this.command("GET", [this.keyPrefix + key]) as Promise<string | null>);
    if (text === null) return undefined;
    let entry: unknown;
    try {
      entry = JSON.parse(text);
    } catch (error) {
      throw this.fail(operation, key, error);
    }
    if (typeof entry === "object" && entry !== null && "value" in entry && typeof (entry as CachedToolResult).storedAtMs === "number") return entry as CachedToolResult;
    throw this.fail(operation, key, new Error("the stored entry is not a cached tool result"));
  }

  /**
   * Stores `entry` under `key` for `ttlMs` milliseconds (Redis `SET … PX`).
   * @throws {RedisStoreOperationError} when the entry is not JSON-serialisable, or Redis fails or does not answer within `operationTimeoutMs`
   */
  async set(key: string, entry: CachedToolResult, ttlMs: number): Promise<void> {
    let text: string;
    try {
      text = JSON.stringify(entry);
    } catch (error) {
      throw this.fail("set", key, error);
    }
    await this.run("set", key, () => this.command("SET", [this.keyPrefix + key, text, "PX", Math.max(1, Math.ceil(ttlMs))]));
  }

  /**
   * Removes `key`.
   * @throws {RedisStoreOperationError} when Redis fails or does not answer within `operationTimeoutMs`
   */
  async delete(key: string): Promise<void> {
    await this.run("delete", key, () => this.command("DEL", [this.keyPrefix + key]));
  }

  /**
   * After a miss: takes the key's lease (`SET NX PX`, answers `undefined`: this process runs the
   * tool), or waits up to `lease.leaseWaitMs` for the entry the lease holder stores and answers
   * it. A lease freed without an entry (its holder failed) is taken over. Answers `undefined` when
   * leases are off, the client sends no raw commands, or the wait ran out.
   * @throws {RedisStoreOperationError} when Redis fails or does not answer within `operationTimeoutMs` (the executor then runs the tool)
   */
  async claim(key: string): Promise<CachedToolResult | undefined> {
    const lease = this.lease;
    if (lease === undefined || !canSendCommands(this.client)) return undefined;
    const leaseKey = `${this.keyPrefix}lease:${key}`;
    const token = randomUUID();
    const waitEndsAtMs = Date.now() + lease.leaseWaitMs;
    for (;;) {
      const taken = await this.run("claim", key, () => sendCommand(this.client, "SET", [leaseKey, token, "NX", "PX", Math.ceil(lease.leaseMs)]));
      if (taken === "OK") {
        this.leases.set(key, token);
        // The caller's miss may be older than another holder's entry (stored, then its lease released
        // just before this SET): look again under the lease, so that entry is served, not recomputed.
        const stored = await this.getAs("claim", key);
        if (stored !== undefined) {
          // A failed release is reported by `run` (event, counted); the lease then lapses after leaseMs.
          await this.release(key).catch(() => undefined);
          return stored;
        }
        return undefined;
      }
      for (;;) {
        const remainingMs = waitEndsAtMs - Date.now();
        if (remainingMs <= 0) return undefined;
        await new Promise((resolve) => setTimeout(resolve, Math.min(lease.leasePollMs, remainingMs)));
        const entry = await this.getAs("claim", key);
        if (entry !== undefined) return entry;
        const held = await this.run("claim", key, () => sendCommand(this.client, "EXISTS", [leaseKey]));
        if (Number(held) === 0) break;
      }
    }
  }

  /**
   * Gives up this process's lease on `key` (only if it still holds it: compare-and-delete in one script).
   * @throws {RedisStoreOperationError} when Redis fails or does not answer within `operationTimeoutMs`
   */
  async release(key: string): Promise<void> {
    const token = this.leases.get(key);
    if (token === undefined) return;
    this.leases.delete(key);
    await this.run("release", key, () =>
      sendCommand(this.client, "EVAL", ["if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0", 1, `${this.keyPrefix}lease:${key}`, token]),
    );
  }

  /** GET, SET … PX and DEL through the client's own methods (ioredis, fakes) or `sendCommand` (node-redis). */
  private command(name: "GET" | "SET" | "DEL", args: (string | number)[]): Promise<unknown> {
    if (this.viaSendCommand) return sendCommand(this.client, name, args);
    const client = this.client as RedisClientLike;
    const [key, value, , ttlMs] = args as [string, string, string, number];
    if (name === "GET") return client.get(key);
    if (name === "SET") return client.set(key, value, "PX", ttlMs);
    return client.del(key);
  }

  /** Closes the client the store created (a client passed in is left to the app). */
  async close(): Promise<void> {
    if (!this.ownsClient) return;
    const client = this.client as unknown as Redis;
    try {
      await client.quit();
    } catch {
      client.disconnect();
    }
  }

  private async run<T>(operation: "get" | "set" | "delete" | "claim" | "release", key: string, command: () => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${this.operationTimeoutMs} ms`)), this.operationTimeoutMs);
      });
      const connecting = this.connectOnce();
      const pending = connecting === undefined ? command() : connecting.then(command);
      pending.catch(() => undefined);
      return await Promise.race([pending, timeout]);
    } catch (error) {
      throw this.fail(operation, key, error);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  /**
   * The first connection of a client the store created (lazily, so constructing a store never
   * opens a socket). While it is being made, commands wait for it within their timeout; after
   * that, a lost connection fails commands at once (`enableOfflineQueue: false`) while ioredis
   * reconnects in the background.
   */
  private connectOnce(): Promise<void> | undefined {
    if (!this.ownsClient) return undefined;
    const client = this.client as unknown as Redis;
    if (client.status === "wait") {
      this.connecting = client.connect().catch(() => undefined);
    }
    return client.status === "connecting" || client.status === "connect" ? this.connecting : undefined;
  }

  /** Counts and reports a failed operation; returns the error to throw. */
  private fail(operation: "get" | "set" | "delete" | "claim" | "release", key: string, cause: unknown): RedisStoreOperationError {
    this.failures[operation] += 1;
    const error = new RedisStoreOperationError({ operation, key, cause });
    try {
      this.onError?.(error);
    } catch {
      // A broken hook must not replace the operation's own error.
    }
    return error;
  }
}
