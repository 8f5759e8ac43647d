import type { CircuitState } from "@reins/core";
import type { CircuitBreakerPolicy } from "cockatiel";
import { toCircuitState, type PolicyHooks } from "./cockatiel-policies";
import type { CircuitPermit, CircuitStore, CircuitStoreSettings } from "./circuit-store";
import { CircuitOpenError } from "./errors";
import { countsAgainstCircuit } from "./failure-observation";
import { toError } from "./normalize-error";
import { storeOperationFailed, storeOperationWorked, type OutageHost } from "./store-outage";

/**
 * A tool's breaker whose state lives in a {@link CircuitStore} shared by the fleet, with the
 * tool's local cockatiel breaker as the fallback while the store fails. Emits `circuit_state` when
 * the state this replica acts on changes, and `circuit_store_error` for each failed store operation.
 */
export class SharedBreaker {
  /** The last state this replica saw (from the store, or from the local breaker during an outage). */
  private seen: CircuitState = "closed";
  private readonly settings: CircuitStoreSettings;

  constructor(
    private readonly toolName: string,
    settings: CircuitStoreSettings,
    private readonly store: CircuitStore,
    private readonly local: CircuitBreakerPolicy,
    private readonly hooks: PolicyHooks & OutageHost,
  ) {
    this.settings = { failureThreshold: settings.failureThreshold, halfOpenAfterMs: settings.halfOpenAfterMs };
  }

  /** The last `acquire` failed: the local breaker decides until the store answers again. */
  private degraded = false;

  /** The state this replica acts on: the shared one, or the local breaker's while the store fails. */
  get state(): CircuitState {
    return this.degraded ? toCircuitState(this.local.state) : this.seen;
  }

  /**
   * Runs `call` if the shared circuit lets it pass; reports its end to the store.
   *
   * @param convertLocal - turns the local breaker's rejection (cockatiel's `BrokenCircuitError`) into Reins' error
   * @throws {CircuitOpenError} when the shared circuit is open (or another replica holds the probe)
   */
  async execute<T>(call: (signal: AbortSignal) => Promise<T>, signal: AbortSignal, runId: string | undefined, convertLocal: (error: unknown) => unknown): Promise<T> {
    let permit: CircuitPermit;
    try {
      permit = await this.store.acquire(this.toolName, this.settings);
    } catch (storeError) {
      this.degraded = true;
      this.storeFailed("acquire", storeError, runId);
      try {
        return await this.local.execute(({ signal: inner }) => call(inner), signal);
      } catch (error) {
        throw convertLocal(error);
      }
    }
    this.degraded = false;
    storeOperationWorked(this.hooks, this.store, "circuit_store", this.toolName, runId);
    this.see(permit.state, runId);
    if (permit.state === "open") {
      throw new CircuitOpenError({ toolName: this.toolName, message: `Circuit of tool "${this.toolName}" is open fleet-wide (shared store); the call was not made.` });
    }
    let failed: unknown;
    let result: T | undefined;
    try {
      result = await call(signal);
    } catch (error) {
      failed = error;
    }
    const counted = failed !== undefined && countsAgainstCircuit(toError(failed));
    // A probe that ended in a failure that does not count (a 4xx, a cancellation, a rate-limit or
    // bulkhead rejection before the service was reached) proved nothing: it is not reported as a
    // success that would close the circuit fleet-wide. Its lease lapses after halfOpenAfterMs and
    // the next window gets a probe.
    if (permit.state === "half_open" && failed !== undefined && !counted) throw failed;
    try {
      this.see(await this.store.record(this.toolName, permit, counted ? "failure" : "success", this.settings), runId);
      storeOperationWorked(this.hooks, this.store, "circuit_store", this.toolName, runId);
    } catch (storeError) {
      this.storeFailed("record", storeError, runId);
    }
    if (failed !== undefined) throw failed;
    return result as T;
  }

  private see(state: CircuitState, runId: string | undefined): void {
    if (state === this.seen) return;
    this.seen = state;
    this.hooks.emit({
      type: "circuit_state",
      toolName: this.toolName,
      state,
      ...(state === "open" ? { halfOpenAfterMs: this.settings.halfOpenAfterMs } : {}),
      ...(runId !== undefined ? { runId } : {}),
    });
    this.hooks.log(state === "closed" ? "info" : "warn", `Circuit of tool "${this.toolName}" is now ${state} (shared).`, { toolName: this.toolName });
  }

  private storeFailed(operation: "acquire" | "record", thrown: unknown, runId: string | undefined): void {
    const error = toError(thrown);
    this.hooks.log("debug", `Shared circuit store failed on ${operation} for tool "${this.toolName}"; ${operation === "acquire" ? "using the local breaker" : "the result was not shared"}.`, {
      toolName: this.toolName,
      error,
    });
    this.hooks.emit({ type: "circuit_store_error", toolName: this.toolName, operation, error, ...(runId !== undefined ? { runId } : {}) });
    storeOperationFailed(this.hooks, this.store, "circuit_store", { toolName: this.toolName, operation, error, runId });
  }
}
