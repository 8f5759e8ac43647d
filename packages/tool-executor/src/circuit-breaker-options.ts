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
}

/** Defaults of the circuit breaker. */
export const DEFAULT_CIRCUIT_BREAKER_OPTIONS: Readonly<CircuitBreakerOptions> = Object.freeze({
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
    checkKeys(`${field}.circuitBreaker`, policy.circuitBreaker, ["failureThreshold", "halfOpenAfterMs"]);
    const merged = { ...DEFAULT_CIRCUIT_BREAKER_OPTIONS, ...policy.circuitBreaker };
    circuitBreaker = {
      failureThreshold: checkNumber(`${field}.circuitBreaker.failureThreshold`, merged.failureThreshold, { min: 1, integer: true }),
      halfOpenAfterMs: checkNumber(`${field}.circuitBreaker.halfOpenAfterMs`, merged.halfOpenAfterMs, { min: 0 }),
    };
  }

  return circuitBreaker;
}
