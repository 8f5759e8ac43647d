import { ReinsError, brandReinsError } from "@reins/core";

/** Base class of `@reins/redis-store` errors. */
export class RedisStoreError extends ReinsError {
  static {
    brandReinsError(this, "redis-store", "RedisStoreError");
  }

  constructor(fields: { message: string; cause?: unknown }) {
    super(fields.message, { cause: fields.cause });
    this.name = "RedisStoreError";
  }
}

/** An option of `RedisResultStore` or `RedisCircuitStore` is invalid. */
export class RedisStoreOptionsError extends RedisStoreError {
  static {
    brandReinsError(this, "redis-store", "RedisStoreOptionsError");
  }

  readonly field: string;
  readonly value: unknown;
  readonly reason: string;

  constructor(fields: { field: string; value: unknown; reason: string; store?: "RedisResultStore" | "RedisCircuitStore" | "RedisSideEffectLedger"; message?: string; cause?: unknown }) {
    super({ message: fields.message ?? `Invalid ${fields.store ?? "RedisResultStore"} option "${fields.field}": ${fields.reason}.`, cause: fields.cause });
    this.name = "RedisStoreOptionsError";
    this.field = fields.field;
    this.value = fields.value;
    this.reason = fields.reason;
  }
}

/** What a store was doing when Redis failed: result-store operations, cache leases, shared-circuit operations, side-effect ledger operations. */
export type RedisStoreOperation =
  | "get"
  | "set"
  | "delete"
  | "claim"
  | "release"
  | "acquire"
  | "record"
  | "complete"
  | "takeOver"
  | "confirmationToken"
  | "peekConfirmationToken";

/**
 * A Redis operation failed or ran out of time. `RedisResultStore` then answers as if uncached;
 * `RedisCircuitStore` lets the executor decide with the local breaker.
 */
export class RedisStoreOperationError extends RedisStoreError {
  static {
    brandReinsError(this, "redis-store", "RedisStoreOperationError");
  }

  readonly operation: RedisStoreOperation;
  readonly key: string;

  constructor(fields: { operation: RedisStoreOperation; key: string; cause?: unknown; message?: string }) {
    const detail = fields.cause instanceof Error ? fields.cause.message : String(fields.cause);
    super({ message: fields.message ?? `Redis ${fields.operation} failed: ${detail}.`, cause: fields.cause });
    this.name = "RedisStoreOperationError";
    this.operation = fields.operation;
    this.key = fields.key;
  }
}
