const OPTIONS_MARKER = Symbol.for("reins.redis-store.options-error");
const OPERATION_MARKER = Symbol.for("reins.redis-store.operation-error");

function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[marker] === true;
}

/** Base class of `@reins/redis-store` errors. */
export class RedisStoreError extends Error {
  constructor(fields: { message: string; cause?: unknown }) {
    super(fields.message, { cause: fields.cause });
    this.name = "RedisStoreError";
  }
}

/** An option of `RedisResultStore` is invalid. */
export class RedisStoreOptionsError extends RedisStoreError {
  private readonly [OPTIONS_MARKER] = true;
  readonly field: string;
  readonly value: unknown;
  readonly reason: string;

  constructor(fields: { field: string; value: unknown; reason: string; message?: string; cause?: unknown }) {
    super({ message: fields.message ?? `Invalid RedisResultStore option "${fields.field}": ${fields.reason}.`, cause: fields.cause });
    this.name = "RedisStoreOptionsError";
    this.field = fields.field;
    this.value = fields.value;
    this.reason = fields.reason;
  }

  static isInstance(error: unknown): error is RedisStoreOptionsError {
    return hasMarker(error, OPTIONS_MARKER);
  }
}

/** A Redis operation failed or ran out of time; the store answered as if uncached. */
export class RedisStoreOperationError extends RedisStoreError {
  private readonly [OPERATION_MARKER] = true;
  readonly operation: "get" | "set" | "delete";
  readonly key: string;

  constructor(fields: { operation: "get" | "set" | "delete"; key: string; cause?: unknown; message?: string }) {
    const detail = fields.cause instanceof Error ? fields.cause.message : String(fields.cause);
    super({ message: fields.message ?? `Redis ${fields.operation} failed: ${detail}.`, cause: fields.cause });
    this.name = "RedisStoreOperationError";
    this.operation = fields.operation;
    this.key = fields.key;
  }

  static isInstance(error: unknown): error is RedisStoreOperationError {
    return hasMarker(error, OPERATION_MARKER);
  }
}
