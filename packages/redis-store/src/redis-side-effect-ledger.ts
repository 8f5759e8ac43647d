import type { SideEffectClaim, SideEffectLedger, SideEffectResult } from "@reins/tool-executor";
import { RedisStoreOperationError, RedisStoreOptionsError, type RedisStoreOperation } from "./errors";
import { canSendCommands, sendCommand, withinMs, type RedisCommandClient } from "./redis-connection";

/** Options of {@link RedisSideEffectLedger}. */
export interface RedisSideEffectLedgerOptions {
  /**
   * The app's Redis client: ioredis (`Redis`, `Cluster`) or node-redis (`createClient`, v4+).
   * Used as is: the ledger adds no listener to it, never connects or closes it (the app does).
   */
  readonly client: RedisCommandClient;
  /** Prepended to every key. @default "reins:" */
  readonly keyPrefix?: string;
  /** Longest wait for one Redis call; a call past it fails (`RedisStoreOperationError`), and the ToolExecutor refuses the side-effect call. @default 1000 */
  readonly operationTimeoutMs?: number;
}

/** Defaults of {@link RedisSideEffectLedgerOptions}. */
export const DEFAULT_REDIS_SIDE_EFFECT_LEDGER_OPTIONS = Object.freeze({ keyPrefix: "reins:", operationTimeoutMs: 1000 });

/**
 * Claim (or take over) in one step. KEYS: record, lease. ARGV: holder, leaseMs, retentionMs, takeOver ("1"/"0").
 * The record (`{"h":holder}` then `{"h":holder,"r":result}`) outlives the lease: a record without a
 * result and without a lease is a claim whose holder stopped, so it is in doubt.
 */
const CLAIM_SCRIPT = `
local record = redis.call('GET', KEYS[1])
if record then
  local entry = cjson.decode(record)
  if entry.r ~= nil then return {'done', record} end
  if entry.h ~= ARGV[1] then
    if redis.call('EXISTS', KEYS[2]) == 1 then return {'held'} end
    if ARGV[4] ~= '1' then return {'in_doubt'} end
  end
end
redis.call('SET', KEYS[1], cjson.encode({h = ARGV[1]}), 'PX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return {'claimed'}`;

/** Store the result if still the holder (also after the lease lapsed). KEYS: record, lease. ARGV: holder, result JSON, retentionMs. */
const COMPLETE_SCRIPT = `
local record = redis.call('GET', KEYS[1])
if not record then return 0 end
local entry = cjson.decode(record)
if entry.h ~= ARGV[1] or entry.r ~= nil then return 0 end
redis.call('SET', KEYS[1], '{"h":' .. cjson.encode(ARGV[1]) .. ',"r":' .. ARGV[2] .. '}', 'PX', ARGV[3])
redis.call('DEL', KEYS[2])
return 1`;

/** Drop the holder's claim when the tool never started. KEYS: record, lease. ARGV: holder. */
const RELEASE_SCRIPT = `
local record = redis.call('GET', KEYS[1])
if not record then return 0 end
local entry = cjson.decode(record)
if entry.h ~= ARGV[1] or entry.r ~= nil then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
return 1`;

/** The stored token, or ARGV[1] stored now. KEYS: token. ARGV: token, retentionMs. */
const TOKEN_SCRIPT = `
local stored = redis.call('GET', KEYS[1])
if stored then return stored end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]`;

/**
 * A {@link SideEffectLedger} on Redis, shared by every replica of a fleet: a side-effect call
 * (thread + tool call id + exact input) runs at most once across crashes, resumes and replicas.
 * Each claim, completion and release is one Lua script (atomic on the Redis server); the two keys
 * of a call share a hash tag, so it works on Redis Cluster. Every Redis call is bounded by
 * `operationTimeoutMs` and fails with a `RedisStoreOperationError` (the ToolExecutor then refuses
 * the side-effect call: it never runs unguarded).
 *
 * Works with ioredis and node-redis clients alike (raw commands: ioredis `call`, node-redis
 * `sendCommand`); adds no listener to the client (handling its `error` events is the app's job,
 * as with any client it owns).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis";
 * import { RedisSideEffectLedger } from "@reins/redis-store";
 * const redis = new Redis(process.env.REDIS_URL);
 * redis.on("error", (error) => logger.warn("redis", error));
 * const sideEffectLedger = new RedisSideEffectLedger({ client: redis });
 * createReinsMiddleware({ toolExecutor: { sideEffectLedger, policies: { pay: { sideEffects: true } } } });
 * ```
 * @throws {RedisStoreOptionsError} when `client` cannot send raw commands or an option is invalid
 */
export class RedisSideEffectLedger implements SideEffectLedger {
  readonly client: RedisCommandClient;
  private readonly keyPrefix: string;
  private readonly operationTimeoutMs: number;

  constructor(options: RedisSideEffectLedgerOptions) {
    if (typeof options !== "object" || options === null || !canSendCommands(options.client)) {
      throw new RedisStoreOptionsError({ field: "client", value: "(object)", reason: "must be an ioredis client (call) or a node-redis client (sendCommand)", store: "RedisSideEffectLedger" });
    }
    const keyPrefix = options.keyPrefix ?? DEFAULT_REDIS_SIDE_EFFECT_LEDGER_OPTIONS.keyPrefix;
    if (typeof keyPrefix !== "string") throw new RedisStoreOptionsError({ field: "keyPrefix", value: keyPrefix, reason: "must be a string", store: "RedisSideEffectLedger" });
    const operationTimeoutMs = options.operationTimeoutMs ?? DEFAULT_REDIS_SIDE_EFFECT_LEDGER_OPTIONS.operationTimeoutMs;
    if (!Number.isFinite(operationTimeoutMs) || operationTimeoutMs <= 0) {
      throw new RedisStoreOptionsError({ field: "operationTimeoutMs", value: operationTimeoutMs, reason: "must be a finite number > 0", store: "RedisSideEffectLedger" });
    }
    this.client = options.client;
    this.keyPrefix = keyPrefix;
    this.operationTimeoutMs = operationTimeoutMs;
  }

  /** @throws {RedisStoreOperationError} when Redis fails or does not answer within `operationTimeoutMs` */
  async claim(key: string, holderId: string, ttlMs: number): Promise<SideEffectClaim> {
    return this.claimOrTake("claim", key, holderId, ttlMs, false);
  }

  /** @throws {RedisStoreOperationError} when Redis fails or does not answer within `operationTimeoutMs` */
  async takeOver(key: string, holderId: string, ttlMs: number): Promise<SideEffectClaim> {
    return this.claimOrTake("takeOver", key, holderId, ttlMs, true);
  }

  /** @throws {RedisStoreOperationError} when Redis fails or does not answer within `operationTimeoutMs` */
  async complete(key: string, holderId: string, result: SideEffectResult, retentionMs: number): Promise<boolean> {
    const resultJson = JSON.stringify({ observation: result.observation, outcome: result.outcome });
    const [record, lease] = this.keysOf(key);
    const stored = await this.eval("complete", key, COMPLETE_SCRIPT, [record, lease], [holderId, resultJson, Math.max(1, Math.ceil(retentionMs))]);
    return Number(stored) === 1;
  }

  /** @throws {RedisStoreOperationError} when Redis fails or does not answer within `operationTimeoutMs` */
  async release(key: string, holderId: string): Promise<void> {
    const [record, lease] = this.keysOf(key);
    await this.eval("release", key, RELEASE_SCRIPT, [record, lease], [holderId]);
  }

  /** @throws {RedisStoreOperationError} when Redis fails or does not answer within `operationTimeoutMs` */
  async confirmationToken(key: string, token: string, retentionMs: number): Promise<string> {
    const stored = await this.eval("confirmationToken", key, TOKEN_SCRIPT, [this.tokenKeyOf(key)], [token, Math.max(1, Math.ceil(retentionMs))]);
    return String(stored);
  }

  /** @throws {RedisStoreOperationError} when Redis fails or does not answer within `operationTimeoutMs` */
  async peekConfirmationToken(key: string): Promise<string | undefined> {
    const stored = await this.run("peekConfirmationToken", key, () => sendCommand(this.client, "GET", [this.tokenKeyOf(key)]));
    return stored === null || stored === undefined ? undefined : String(stored);
  }

  private async claimOrTake(operation: RedisStoreOperation, key: string, holderId: string, ttlMs: number, takeOver: boolean): Promise<SideEffectClaim> {
    const [record, lease] = this.keysOf(key);
    const reply = await this.eval(operation, key, CLAIM_SCRIPT, [record, lease], [holderId, Math.max(1, Math.ceil(ttlMs)), Math.max(Math.ceil(ttlMs), 24 * 60 * 60 * 1000), takeOver ? "1" : "0"]);
    const [state, recordText] = Array.isArray(reply) ? (reply as unknown[]).map((part) => (part instanceof Uint8Array ? Buffer.from(part).toString() : part)) : [];
    if (state === "claimed" || state === "held" || state === "in_doubt") return { state };
    if (state === "done" && typeof recordText === "string") {
      const entry = JSON.parse(recordText) as { r?: SideEffectResult };
      if (entry.r !== undefined && typeof entry.r.observation === "string") return { state: "done", result: { observation: entry.r.observation, outcome: entry.r.outcome } };
    }
    throw new RedisStoreOperationError({ operation, key, cause: new Error(`unexpected reply from the claim script: ${JSON.stringify(reply)}`) });
  }

  /** The call's record and lease keys, in one hash slot (`{…}`) for Redis Cluster. */
  private keysOf(key: string): [string, string] {
    return [`${this.keyPrefix}side-effect:{${key}}`, `${this.keyPrefix}side-effect:{${key}}:lease`];
  }

  private tokenKeyOf(key: string): string {
    return `${this.keyPrefix}confirmation:{${key}}`;
  }

  private eval(operation: RedisStoreOperation, key: string, script: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.run(operation, key, () => sendCommand(this.client, "EVAL", [script, keys.length, ...keys, ...args]));
  }

  private async run<T>(operation: RedisStoreOperation, key: string, command: () => Promise<T>): Promise<T> {
    try {
      return await withinMs(this.operationTimeoutMs, command);
    } catch (error) {
      throw new RedisStoreOperationError({ operation, key, cause: error });
    }
  }
}
