import { AggregatorRegistry, register as globalRegistry, Registry } from "prom-client";
import { MetricsOptionsError } from "./errors";

/** The registries this worker serves to the primary's `AggregatorRegistry`, besides prom-client's global one. */
const served = new Set<Registry>();

/**
 * Makes this Node cluster worker serve `registry` (e.g. `createAgentMetrics().registry`) to the
 * primary's prom-client `AggregatorRegistry.clusterMetrics()`, alongside prom-client's global
 * registry and any registry registered before. prom-client aggregates only registries given to
 * `AggregatorRegistry.setRegistries` in each worker; this call does that without dropping the
 * ones already set by this function. Values merge per metric with its `aggregator`: counters and
 * histograms sum, `circuit_state` takes the `max`. Series of different hosts stay apart by
 * Prometheus' `instance` label as usual; within one host the workers merge.
 *
 * Call it in each worker (it is a no-op outside a worker in effect: the primary never asks).
 *
 * @example
 * ```ts
 * import cluster from "node:cluster";
 * import { AggregatorRegistry } from "prom-client";
 * if (cluster.isPrimary) {
 *   const aggregator = new AggregatorRegistry();
 *   // serve `await aggregator.clusterMetrics()` on /metrics
 * } else {
 *   const metrics = createAgentMetrics();
 *   registerClusterWorker(metrics.registry);
 * }
 * ```
 *
 * @throws {MetricsOptionsError} when `registry` is not a prom-client `Registry`
 */
export function registerClusterWorker(registry: Registry): void {
  if (!(registry instanceof Registry)) throw new MetricsOptionsError({ field: "registry", value: registry, reason: "expected a prom-client Registry" });
  served.add(registry);
  // Constructing one adds prom-client's worker listener (idempotent).
  void new AggregatorRegistry();
  AggregatorRegistry.setRegistries([globalRegistry, ...served]);
}
