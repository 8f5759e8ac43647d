export { RedisResultStore } from "./redis-result-store";
export {
  DEFAULT_REDIS_RESULT_STORE_OPTIONS,
  type RedisClientLike,
  type RedisResultStoreOptions,
} from "./redis-result-store-options";
export { RedisStoreError, RedisStoreOperationError, RedisStoreOptionsError } from "./errors";
