import type { CircuitState } from "@reins/core";
import type { CircuitPermit, CircuitStore, CircuitStoreSettings } from "@reins/tool-executor";
import { randomUUID } from "node:crypto";
import { RedisStoreOperationError, RedisStoreOptionsError } from "./errors";
import { canSendCommands, sendCommand, whileConnecting, withinMs, type RedisCommandClient } from "./redis-connection";

/** Options of {@link RedisCircuitStore}. */
export interface RedisCircuitStoreOptions {
  /** The app's client: ioredis `Redis`/`Cluster` or node-redis (v4+). The store never quits it. */
  client: RedisCommandClient;
  /**
   * Prefix of every key. A circuit (tool name) `search` uses `<prefix>{search}` (a hash: the
   * consecutive failure count and the open-until time) and `<prefix>{search}:probe` (the probe
   * lease); the braces keep both in one Redis Cluster slot.
   * @default "reins:circuit:"
   */
  keyPrefix?: string;
  /**
   * Longest wait for one Redis round trip, in milliseconds; a slower one fails and the call is
   * decided by the replica's local breaker. A client still making its connection (ioredis
   * `connecting`/`connect`, node-redis not ready yet) is first waited for, up to
   * `max(operationTimeoutMs, 1 s)`, so a busy start-up does not read as an outage.
   * @default 250
   */
  operationTimeoutMs?: number;
  /** Called with every failed operation (also counted in {@link RedisCircuitStore.failures}). @default undefined */
  onError?: (error: RedisStoreOperationError) => void;
}

/** Defaults of {@link RedisCircuitStoreOptions}. */
export const DEFAULT_REDIS_CIRCUIT_STORE_OPTIONS = Object.freeze({ keyPrefix: "reins:circuit:", operationTimeoutMs: 250 });

/** Longest wait for a client that is still connecting before an operation is sent (and its own timeout starts). */
const CONNECT_WAIT_MS = 1000;

/** How long an idle circuit's keys stay in Redis at least (an hour), so none live forever. */
const MIN_IDLE_TTL_MS = 3_600_000;

// The clock is Redis' own TIME, so replicas with skewed clocks agree on when the circuit reopens.
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * KEYS: state hash, probe lease. ARGV: probe token, probe lease ms (= halfOpenAfterMs), idle TTL ms. → {state, retryAfterMs}
 * What another writer of the namespace left is bounded by this reader's own settings: an
 * `openUntil` further ahead than `halfOpenAfterMs` is cut back to it, a state hash or probe lease
 * without a TTL (or a lease longer than `halfOpenAfterMs`) gets one, and a value that is not a
 * number is read as closed. So a planted key can hold the circuit open for one window at most.
 */
const ACQUIRE = `${NOW}
local bound = tonumber(ARGV[2])
local openUntil = tonumber(redis.call('HGET', KEYS[1], 'openUntil') or '0') or 0
if openUntil ~= openUntil then openUntil = 0 end
if openUntil == 0 then return {'closed', 0} end
if redis.call('PTTL', KEYS[1]) == -1 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
if openUntil > now + bound then
  openUntil = now + bound
  redis.call('HSET', KEYS[1], 'openUntil', openUntil)
end
if now < openUntil then return {'open', openUntil - now} end
local leaseTtl = redis.call('PTTL', KEYS[2])
if leaseTtl == -1 or leaseTtl > bound then redis.call('PEXPIRE', KEYS[2], bound) end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {'half_open', 0} end
return {'open', math.max(1, math.min(bound, redis.call('PTTL', KEYS[2])))}`;

/** KEYS: state hash, probe lease. ARGV: outcome, probe token or '', threshold, half-open ms, idle TTL ms. → state */
const RECORD = `${NOW}
local probe = ARGV[2] ~= ''
if probe and redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
local openUntil = tonumber(redis.call('HGET', KEYS[1], 'openUntil') or '0') or 0
if ARGV[1] == 'success' then
  if probe or openUntil == 0 then redis.call('DEL', KEYS[1]) return 'closed' end
  return 'open'
end
if probe or openUntil == 0 then
  local failures = probe and tonumber(ARGV[3]) or redis.call('HINCRBY', KEYS[1], 'failures', 1)
  if failures >= tonumber(ARGV[3]) then
    redis.call('HSET', KEYS[1], 'openUntil', now + tonumber(ARGV[4]), 'failures', 0)
    redis.call('PEXPIRE', KEYS[1], ARGV[5])
    return 'open'
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return 'closed'
end
return 'open'`;

/**
 * A {@link CircuitStore} on Redis, so every replica of a fleet shares each tool's circuit breaker
 * (`policies: { search: { circuitBreaker: { failureThreshold: 5, halfOpenAfterMs: 30_000, store } } }`):
 * `failureThreshold` consecutive counted failures from any replica open it for all of them, and
 * after `halfOpenAfterMs` one replica of the fleet gets the probe (a `SET NX PX` lease that expires
 * after `halfOpenAfterMs`, so a probe that never reports frees the next window); its success closes
 * the circuit for all, its failure opens it again. Each decision is one Lua script (`EVAL`), atomic
 * in Redis and timed by Redis' `TIME`, so no replica's clock matters. Keys expire after
 * `max(1 h, 10 × halfOpenAfterMs)` without failures.
 *
 * Redis down, paused or slow: every operation is bounded by `operationTimeoutMs` and fails with a
 * `RedisStoreOperationError`; the executor then decides the call with the replica's local breaker
 * and emits `circuit_store_error` (one per failed operation).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis";
 * import { RedisCircuitStore } from "@reins/redis-store";
 * const client = new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
 * const store = new RedisCircuitStore({ client });
 * const executor = new ToolExecutor({ policies: { search: { circuitBreaker: { failureThreshold: 5, halfOpenAfterMs: 30_000, store } } } });
 * ```
 */
export class RedisCircuitStore implements CircuitStore {
  /** The client in use (the app's). */
  readonly client: RedisCommandClient;
  /** Failed or timed-out operations so far. */
  readonly failures = { acquire: 0, record: 0 };
  private readonly keyPrefix: string;
  private readonly operationTimeoutMs: number;
  private readonly onError: ((error: RedisStoreOperationError) => void) | undefined;

  /**
   * @param options - see {@link RedisCircuitStoreOptions}
   * @throws {RedisStoreOptionsError} when an option is invalid (names the field)
   */
  constructor(options: RedisCircuitStoreOptions) {
    const fail = (field: string, value: unknown, reason: string): never => {
      throw new RedisStoreOptionsError({ field, value, reason, store: "RedisCircuitStore" });
    };
    if (typeof options !== "object" || options === null) fail("options", options, "must be an object with a client");
    const { client, keyPrefix = DEFAULT_REDIS_CIRCUIT_STORE_OPTIONS.keyPrefix, operationTimeoutMs = DEFAULT_REDIS_CIRCUIT_STORE_OPTIONS.operationTimeoutMs, onError } = options;
    if (!canSendCommands(client)) fail("client", "(client)", "must be an ioredis client (call) or a node-redis client (sendCommand)");
    if (typeof keyPrefix !== "string") fail("keyPrefix", keyPrefix, "must be a string");
    if (typeof operationTimeoutMs !== "number" || !Number.isFinite(operationTimeoutMs) || operationTimeoutMs <= 0) fail("operationTimeoutMs", operationTimeoutMs, "must be a finite number > 0");
    if (onError !== undefined && typeof onError !== "function") fail("onError", onError, "must be a function");
    this.client = client;
    this.keyPrefix = keyPrefix;
    this.operationTimeoutMs = operationTimeoutMs;
    this.onError = onError;
  }

  /**
   * Whether a call of `circuit` may pass now (one Lua round trip).
   * @throws {RedisStoreOperationError} when Redis fails or does not answer within `operationTimeoutMs`
   */
  async acquire(circuit: string, settings: CircuitStoreSettings): Promise<CircuitPermit> {
    const probe = randomUUID();
    const leaseMs = Math.max(1, Math.ceil(settings.halfOpenAfterMs));
    const idleTtlMs = Math.max(MIN_IDLE_TTL_MS, leaseMs * 10);
    const reply = await this.run("acquire", circuit, [ACQUIRE, 2, ...this.keysOf(circuit), probe, leaseMs, idleTtlMs]);
    const [state, retryAfterMs] = Array.isArray(reply) ? (reply as unknown[]) : [];
    if (state === "closed") return { state: "closed" };
    if (state === "half_open") return { state: "half_open", probe };
    // Bounded here too: whatever the script answered, this reader waits one window at most.
    if (state === "open") return { state: "open", retryAfterMs: Math.min(leaseMs, Math.max(1, Number(retryAfterMs) || 1)) };
    throw this.fail("acquire", circuit, new Error(`unexpected script reply ${JSON.stringify(reply)}`));
  }

  /**
   * Reports how a permitted call ended (one Lua round trip).
   * @returns the circuit's state after the report
   * @throws {RedisStoreOperationError} when Redis fails or does not answer within `operationTimeoutMs`
   */
  async record(circuit: string, permit: CircuitPermit, outcome: "success" | "failure", settings: CircuitStoreSettings): Promise<CircuitState> {
    const idleTtlMs = Math.max(MIN_IDLE_TTL_MS, Math.ceil(settings.halfOpenAfterMs) * 10);
    const token = permit.state === "half_open" ? permit.probe : "";
    const reply = await this.run("record", circuit, [RECORD, 2, ...this.keysOf(circuit), outcome, token, settings.failureThreshold, Math.ceil(settings.halfOpenAfterMs), idleTtlMs]);
    if (reply === "closed" || reply === "open" || reply === "half_open") return reply;
    throw this.fail("record", circuit, new Error(`unexpected script reply ${JSON.stringify(reply)}`));
  }

  private keysOf(circuit: string): [string, string] {
    const base = `${this.keyPrefix}{${circuit}}`;
    return [base, `${base}:probe`];
  }

  private async run(operation: "acquire" | "record", circuit: string, args: (string | number)[]): Promise<unknown> {
    try {
      // A client still connecting (a busy start-up) is waited for, not reported as an outage.
      await whileConnecting(this.client, Math.max(this.operationTimeoutMs, CONNECT_WAIT_MS));
      return await withinMs(this.operationTimeoutMs, () => sendCommand(this.client, "EVAL", args));
    } catch (error) {
      throw this.fail(operation, circuit, error);
    }
  }

  private fail(operation: "acquire" | "record", circuit: string, cause: unknown): RedisStoreOperationError {
    if (cause instanceof RedisStoreOperationError) return cause;
    this.failures[operation] += 1;
    const error = new RedisStoreOperationError({ operation, key: circuit, cause });
    try {
      this.onError?.(error);
    } catch {
      // A broken hook must not replace the operation's own error.
    }
    return error;
  }
}
