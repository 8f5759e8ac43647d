import { isCircuitStore, type CircuitStore } from "./circuit-store";
import { checkKeys, checkNumber, fail, isPlainObject } from "./policy-checks";

/** Consecutive-failure circuit breaker (cockatiel `circuitBreaker` + `ConsecutiveBreaker`). */
export interface CircuitBreakerOptions {
  /**
   * Consecutive failed calls (after retries) that open the circuit.
   * @default 5
   */
  failureThreshold: number;
  /**
   * Time the circuit stays open before one half-open probe call is let through, in milliseconds.
   * Timed with `Date.now` (cockatiel's clock), not the executor's `now` option.
   * @default 30000
   */
  halfOpenAfterMs: number;
  /**
   * Where the breaker's state lives, to share it between replicas (e.g. `new RedisCircuitStore({ client })`
   * of `@reins/redis-store`): they open together and send one half-open probe per fleet per
   * window. While the store fails, each replica decides with its own local breaker (and emits
   * `circuit_store_error`).
   * @default undefined (the breaker is this process's own)
   */
  store?: CircuitStore;
}

/** Defaults of the circuit breaker. */
export const DEFAULT_CIRCUIT_BREAKER_OPTIONS: Readonly<Omit<CircuitBreakerOptions, "store">> = Object.freeze({
  failureThreshold: 5,
  halfOpenAfterMs: 30_000,
});

/**
 * Resolves the `circuitBreaker` section (`undefined` when off).
 * @throws {ToolExecutorOptionsError} naming the first bad field
 */
export function resolveCircuitBreakerOptions(field: string, section: unknown): CircuitBreakerOptions | undefined {
  const policy = { circuitBreaker: section as Partial<CircuitBreakerOptions> | false | undefined };
  let circuitBreaker: CircuitBreakerOptions | undefined;
  if (policy.circuitBreaker !== false && policy.circuitBreaker !== undefined) {
    if (!isPlainObject(policy.circuitBreaker)) fail(`${field}.circuitBreaker`, policy.circuitBreaker, "must be an object or false");
    checkKeys(`${field}.circuitBreaker`, policy.circuitBreaker, ["failureThreshold", "halfOpenAfterMs", "store"]);
    const merged = { ...DEFAULT_CIRCUIT_BREAKER_OPTIONS, ...policy.circuitBreaker };
    circuitBreaker = {
      failureThreshold: checkNumber(`${field}.circuitBreaker.failureThreshold`, merged.failureThreshold, { min: 1, integer: true }),
      halfOpenAfterMs: checkNumber(`${field}.circuitBreaker.halfOpenAfterMs`, merged.halfOpenAfterMs, { min: 0 }),
    };
    if (merged.store !== undefined) {
      if (!isCircuitStore(merged.store)) fail(`${field}.circuitBreaker.store`, merged.store, "must be a circuit store (acquire, record), e.g. a RedisCircuitStore");
      circuitBreaker.store = merged.store;
    }
  }

  return circuitBreaker;
}
