const METRICS_ERROR_MARKER = Symbol.for("reins.metrics.error");

/** Options common to every `@reins/metrics` error. */
export interface ReinsMetricsErrorOptions {
  message?: string;
  cause?: unknown;
}

/**
 * Base class of every error `@reins/metrics` throws. Recognise one across package copies with
 * {@link ReinsMetricsError.isInstance} rather than `instanceof`.
 */
export class ReinsMetricsError extends Error {
  private readonly [METRICS_ERROR_MARKER] = true;

  constructor(options: ReinsMetricsErrorOptions & { message: string }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ReinsMetricsError";
  }

  /** True when `error` is a `ReinsMetricsError` (from any copy of this package). */
  static isInstance(error: unknown): error is ReinsMetricsError {
    return typeof error === "object" && error !== null && METRICS_ERROR_MARKER in error;
  }
}

const OPTIONS_ERROR_MARKER = Symbol.for("reins.metrics.options_error");

/** An option passed to `createAgentMetrics` is invalid. */
export class MetricsOptionsError extends ReinsMetricsError {
  private readonly [OPTIONS_ERROR_MARKER] = true;
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

  /** True when `error` is a `MetricsOptionsError` (from any copy of this package). */
  static isInstance(error: unknown): error is MetricsOptionsError {
    return typeof error === "object" && error !== null && OPTIONS_ERROR_MARKER in error;
  }
}

const CONFLICT_ERROR_MARKER = Symbol.for("reins.metrics.metric_conflict_error");

/**
 * The registry already holds a metric with one of the catalog's names that `createAgentMetrics`
 * did not create (another library, or a different configuration under the same prefix).
 */
export class MetricConflictError extends ReinsMetricsError {
  private readonly [CONFLICT_ERROR_MARKER] = true;
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

  /** True when `error` is a `MetricConflictError` (from any copy of this package). */
  static isInstance(error: unknown): error is MetricConflictError {
    return typeof error === "object" && error !== null && CONFLICT_ERROR_MARKER in error;
  }
}

const EVENT_ERROR_MARKER = Symbol.for("reins.metrics.event_error");

/**
 * `record(event)` was given something that is not a Reins event (not an object with a string
 * `type`). Reins pieces deliver events through `emitEvent`, which reports this error to their
 * `onError` hook instead of letting it reach the agent.
 */
export class MetricsEventError extends ReinsMetricsError {
  private readonly [EVENT_ERROR_MARKER] = true;
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

  /** True when `error` is a `MetricsEventError` (from any copy of this package). */
  static isInstance(error: unknown): error is MetricsEventError {
    return typeof error === "object" && error !== null && EVENT_ERROR_MARKER in error;
  }
}
