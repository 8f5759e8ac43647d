import { createOptionChecks, type OptionChecks } from "@reins/core";
import { Registry, exponentialBuckets } from "prom-client";
import { MetricsOptionsError } from "./errors";

/** Options of `createAgentMetrics`. */
export interface AgentMetricsOptions {
  /**
   * The prom-client `Registry` to register into. Pass prom-client's global `register` yourself if
   * you want it there; Reins never touches it otherwise.
   * @default a new `Registry`
   */
  registry?: Registry;
  /**
   * Prefix of every metric name. Must match `[a-zA-Z_:][a-zA-Z0-9_:]*` (or be empty).
   * @default "react_agent_"
   */
  prefix?: string;
  /**
   * Tool names registered up front. The `tool` label only ever takes registered names (these, and
   * those agents register as they are built: `createReactAgent`, the ToolExecutor, the
   * `createAgent` middleware); any other name is `unregistered`, never learned.
   * @default undefined (the agents register theirs)
   */
  toolNames?: readonly string[];
  /**
   * Most tool names registered (over every agent sharing these metrics); a name registered past
   * it is recorded as `unregistered`.
   * @default 200
   */
  maxToolLabels?: number;
  /**
   * Allowed `reason` values of `parsing_errors_total`. When given, other reasons are recorded as
   * `other`. When omitted, up to `maxReasonLabels` identifier-like reasons (`[a-z][a-z0-9_]*`, at
   * most 48 characters) are learned and the rest are `other`.
   * @default undefined (learn)
   */
  parseErrorReasons?: readonly string[];
  /**
   * Allowed `repair` values of `parser_repairs_total`; same rules as `parseErrorReasons`.
   * @default undefined (learn)
   */
  parserRepairKinds?: readonly string[];
  /**
   * How many parse reasons (and, separately, repair kinds) are learned when no list is given.
   * @default 50
   */
  maxReasonLabels?: number;
  /**
   * Histogram buckets for every `_seconds` metric, in seconds, strictly increasing.
   * @default 14 exponential buckets from 0.01 to 81.92 (0.01 × 2ⁿ)
   */
  durationBucketsSeconds?: readonly number[];
  /**
   * Histogram buckets for `observation_chars`, in characters, strictly increasing.
   * @default 16, 64, 256, 1 024, 4 096, 16 384, 65 536, 262 144, 1 048 576
   */
  observationCharBuckets?: readonly number[];
  /**
   * Clock in epoch milliseconds. The `circuit_state` gauge uses it to turn an open circuit into
   * half-open (1) once the breaker's `halfOpenAfterMs` has passed, read at scrape time.
   * @default Date.now
   */
  now?: () => number;
}

/** The resolved options (every field set). */
export interface ResolvedAgentMetricsOptions {
  readonly registry: Registry;
  readonly prefix: string;
  readonly toolNames: readonly string[] | undefined;
  readonly maxToolLabels: number;
  readonly parseErrorReasons: readonly string[] | undefined;
  readonly parserRepairKinds: readonly string[] | undefined;
  readonly maxReasonLabels: number;
  readonly durationBucketsSeconds: readonly number[];
  readonly observationCharBuckets: readonly number[];
  readonly now: () => number;
}

/** Defaults of {@link AgentMetricsOptions} (the registry default is a new `Registry` per call). */
export const DEFAULT_AGENT_METRICS_OPTIONS = Object.freeze({
  prefix: "react_agent_",
  maxToolLabels: 200,
  maxReasonLabels: 50,
  durationBucketsSeconds: Object.freeze(exponentialBuckets(0.01, 2, 14)),
  observationCharBuckets: Object.freeze(exponentialBuckets(16, 4, 9)),
});

const PREFIX_PATTERN = /^([a-zA-Z_:][a-zA-Z0-9_:]*)?$/;

function checkBuckets(field: string, value: unknown): readonly number[] {
  if (!Array.isArray(value) || value.length === 0) check.fail(field, value, "expected a non-empty array of numbers");
  for (let index = 0; index < value.length; index += 1) {
    const bucket: unknown = value[index];
    if (typeof bucket !== "number" || !Number.isFinite(bucket) || bucket < 0) {
      check.fail(field, value, `bucket ${index} is not a finite number ≥ 0`);
    }
    if (index > 0 && bucket <= (value[index - 1] as number)) check.fail(field, value, "buckets must be strictly increasing");
  }
  return Object.freeze([...(value as number[])]);
}

const check: OptionChecks = createOptionChecks((field, value, reason) => {
  throw new MetricsOptionsError({ field, value, reason });
});

/**
 * Merges `options` over {@link DEFAULT_AGENT_METRICS_OPTIONS} and validates them.
 *
 * @param options - the caller's options
 * @returns every option set
 * @throws {MetricsOptionsError} when a field is invalid; `field` names it
 */
export function resolveAgentMetricsOptions(options: AgentMetricsOptions = {}): ResolvedAgentMetricsOptions {
  const registry = options.registry ?? new Registry();
  if (typeof registry !== "object" || registry === null || typeof (registry as Registry).registerMetric !== "function") {
    throw new MetricsOptionsError({ field: "registry", value: registry, reason: "expected a prom-client Registry" });
  }
  const now = options.now ?? Date.now;
  if (typeof now !== "function") throw new MetricsOptionsError({ field: "now", value: now, reason: "expected a function returning epoch milliseconds" });
  const prefix = options.prefix ?? DEFAULT_AGENT_METRICS_OPTIONS.prefix;
  if (typeof prefix !== "string" || !PREFIX_PATTERN.test(prefix)) {
    throw new MetricsOptionsError({
      field: "prefix",
      value: prefix,
      reason: "a Prometheus metric name prefix must match [a-zA-Z_:][a-zA-Z0-9_:]*",
    });
  }
  return Object.freeze({
    registry,
    prefix,
    toolNames: check.optionalStringList("toolNames", options.toolNames),
    maxToolLabels: check.integer("maxToolLabels", options.maxToolLabels ?? DEFAULT_AGENT_METRICS_OPTIONS.maxToolLabels, 0),
    parseErrorReasons: check.optionalStringList("parseErrorReasons", options.parseErrorReasons),
    parserRepairKinds: check.optionalStringList("parserRepairKinds", options.parserRepairKinds),
    maxReasonLabels: check.integer("maxReasonLabels", options.maxReasonLabels ?? DEFAULT_AGENT_METRICS_OPTIONS.maxReasonLabels, 0),
    durationBucketsSeconds: checkBuckets(
      "durationBucketsSeconds",
      options.durationBucketsSeconds ?? DEFAULT_AGENT_METRICS_OPTIONS.durationBucketsSeconds,
    ),
    observationCharBuckets: checkBuckets(
      "observationCharBuckets",
      options.observationCharBuckets ?? DEFAULT_AGENT_METRICS_OPTIONS.observationCharBuckets,
    ),
    now,
  });
}
