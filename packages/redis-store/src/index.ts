export { RedisResultStore } from "./redis-result-store";
export {
  DEFAULT_REDIS_RESULT_STORE_OPTIONS,
  type NodeRedisClientLike,
  type RedisClientLike,
  type RedisResultStoreOptions,
} from "./redis-result-store-options";
export { RedisStoreError, RedisStoreOperationError, RedisStoreOptionsError } from "./errors";
export { DEFAULT_REDIS_CIRCUIT_STORE_OPTIONS, RedisCircuitStore, type RedisCircuitStoreOptions } from "./redis-circuit-store";
export { type RedisCommandClient } from "./redis-connection";
export { type RedisStoreOperation } from "./errors";
export { DEFAULT_REDIS_SIDE_EFFECT_LEDGER_OPTIONS, RedisSideEffectLedger, type RedisSideEffectLedgerOptions } from "./redis-side-effect-ledger";
