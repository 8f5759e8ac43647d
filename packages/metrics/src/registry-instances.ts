import type { Registry } from "prom-client";
import type { ResolvedAgentMetricsOptions } from "./agent-metrics-options";

/**
 * The catalogs built per registry and prefix, kept on the registry itself under a `Symbol.for`
 * key: a second copy of this package in the process (its CJS and ESM builds side by side) finds
 * them too and returns the same object instead of failing on "already registered".
 */
const INSTANCES_KEY = Symbol.for("reins.metrics.instances");

/** One registry's catalogs by prefix, with the bucket signature each was built with. */
export type InstancesByPrefix<Metrics> = Map<string, { metrics: Metrics; signature: string }>;

/** The catalogs remembered on `registry`; with `create`, an empty map is attached when none is. */
export function instancesOf<Metrics>(registry: Registry, create: boolean): InstancesByPrefix<Metrics> | undefined {
  const holder = registry as unknown as Record<symbol, InstancesByPrefix<Metrics> | undefined>;
  let byPrefix = holder[INSTANCES_KEY];
  if (byPrefix === undefined && create) {
    byPrefix = new Map();
    Object.defineProperty(registry, INSTANCES_KEY, { value: byPrefix, enumerable: false, configurable: true });
  }
  return byPrefix;
}

/** The options two calls for the same registry and prefix must agree on (the buckets). */
export function signatureOf(options: ResolvedAgentMetricsOptions): string {
  return JSON.stringify([options.durationBucketsSeconds, options.observationCharBuckets]);
}
