export {
  DEFAULT_REDIS_RESULT_STORE_OPTIONS,
  RedisResultStore,
  type RedisClientLike,
  type RedisResultStoreOptions,
} from "./redis-result-store";
export { RedisStoreError, RedisStoreOperationError, RedisStoreOptionsError } from "./errors";
