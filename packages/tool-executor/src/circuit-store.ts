import type { CircuitState } from "@reins/core";

/** The breaker settings a {@link CircuitStore} applies (the tool's resolved `circuitBreaker`). */
export interface CircuitStoreSettings {
  /** Consecutive counted failures, fleet-wide, that open the circuit. */
  readonly failureThreshold: number;
  /** How long the circuit stays open before one probe may pass, in milliseconds; also the probe lease's TTL. */
  readonly halfOpenAfterMs: number;
}

/** What a {@link CircuitStore} answers when a call asks to pass the circuit. */
export type CircuitPermit =
  /** The circuit is closed: the call may pass. */
  | { readonly state: "closed" }
  /** The open time is over and this call holds the fleet's one probe lease (`probe` names it). */
  | { readonly state: "half_open"; readonly probe: string }
  /** The circuit is open (or another replica holds the probe): the call must not pass for `retryAfterMs`. */
  | { readonly state: "open"; readonly retryAfterMs: number };

/**
 * Where a circuit breaker's state lives when several replicas share it (`circuitBreaker.store`;
 * `RedisCircuitStore` of `@reins/redis-store` is one). The model is cockatiel's consecutive
 * breaker, kept fleet-wide: `failureThreshold` consecutive counted failures from any replica open
 * the circuit for every replica; after `halfOpenAfterMs` exactly one call of the fleet gets the
 * probe (a lease that expires after `halfOpenAfterMs`, so a lost probe frees the next window); its
 * success closes the circuit, its failure opens it again. Which failures count is decided by the
 * executor (as for the local breaker: not invalid input, not bulkhead or rate-limit rejections,
 * not cancellations). A store that throws or times out makes the replica decide with its local
 * breaker for that call and emit a `circuit_store_error` event.
 */
export interface CircuitStore {
  /** Asks whether a call of `circuit` may pass now. Should answer within a bounded time. */
  acquire(circuit: string, settings: CircuitStoreSettings): Promise<CircuitPermit>;
  /**
   * Reports how a call that got `permit` ended (`failure` only for counted failures).
   * @returns the circuit's state after the report
   */
  record(circuit: string, permit: CircuitPermit, outcome: "success" | "failure", settings: CircuitStoreSettings): Promise<CircuitState>;
}

/** True for a value shaped like a {@link CircuitStore}. */
export function isCircuitStore(value: unknown): value is CircuitStore {
  return typeof value === "object" && value !== null && typeof (value as CircuitStore).acquire === "function" && typeof (value as CircuitStore).record === "function";
}
