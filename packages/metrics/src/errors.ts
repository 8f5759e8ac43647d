import { ReinsError, brandReinsError } from "@reins/core";

/** Options common to every `@reins/metrics` error. */
export interface ReinsMetricsErrorOptions {
  message?: string;
  cause?: unknown;
}

/**
 * Base class of every error `@reins/metrics` throws. Recognise one across package copies with
 * {@link ReinsMetricsError.isInstance} rather than `instanceof`.
 */
export class ReinsMetricsError extends ReinsError {
  static {
    brandReinsError(this, "metrics", "ReinsMetricsError");
  }

  constructor(options: ReinsMetricsErrorOptions & { message: string }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ReinsMetricsError";
  }
}

/** An option passed to `createAgentMetrics` is invalid. */
export class MetricsOptionsError extends ReinsMetricsError {
  static {
    brandReinsError(this, "metrics", "MetricsOptionsError");
  }

  /** The option field at fault, e.g. `prefix` or `durationBucketsSeconds`. */
  readonly field: string;
  /** The value that was passed. */
  readonly value: unknown;

  constructor(options: ReinsMetricsErrorOptions & { field: string; value: unknown; reason?: string }) {
    super({
      message:
        options.message ??
        `Invalid metrics option "${options.field}": ${options.reason ?? "the value is not allowed"}.`,
      cause: options.cause,
    });
    this.name = "MetricsOptionsError";
    this.field = options.field;
    this.value = options.value;
  }
}

/**
 * The registry already holds a metric with one of the catalog's names that `createAgentMetrics`
 * did not create (another library, or a different configuration under the same prefix).
 */
export class MetricConflictError extends ReinsMetricsError {
  static {
    brandReinsError(this, "metrics", "MetricConflictError");
  }

  /** The full metric name that collides, e.g. `react_agent_runs_total`. */
  readonly metricName: string;

  constructor(options: ReinsMetricsErrorOptions & { metricName: string; reason?: string }) {
    super({
      message:
        options.message ??
        `Cannot register metric "${options.metricName}": ${options.reason ?? "the registry already holds a metric with that name"}. Use another prefix or another Registry.`,
      cause: options.cause,
    });
    this.name = "MetricConflictError";
    this.metricName = options.metricName;
  }
}

/**
 * `record(event)` was given something that is not a Reins event (not an object with a string
 * `type`). Reins pieces deliver events through `emitEvent`, which reports this error to their
 * `onError` hook instead of letting it reach the agent.
 */
export class MetricsEventError extends ReinsMetricsError {
  static {
    brandReinsError(this, "metrics", "MetricsEventError");
  }

  /** The value that was passed to `record`. */
  readonly event: unknown;

  constructor(options: ReinsMetricsErrorOptions & { event: unknown }) {
    const shown = options.event === null ? "null" : Array.isArray(options.event) ? "an array" : typeof options.event;
    super({
      message: options.message ?? `Cannot record a metrics event: expected an object with a string "type", got ${shown}.`,
      cause: options.cause,
    });
    this.name = "MetricsEventError";
    this.event = options.event;
  }
}
