const OTEL_ERROR_MARKER = Symbol.for("reins.otel.error");

/** Options common to every `@reins/otel` error. */
export interface ReinsOtelErrorOptions {
  message?: string;
  cause?: unknown;
}

/**
 * Base class of every error `@reins/otel` throws. Recognise one across package copies with
 * {@link ReinsOtelError.isInstance} rather than `instanceof`.
 */
export class ReinsOtelError extends Error {
  private readonly [OTEL_ERROR_MARKER] = true;

  constructor(options: ReinsOtelErrorOptions & { message: string }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ReinsOtelError";
  }

  /** True when `error` is a `ReinsOtelError` (from any copy of this package). */
  static isInstance(error: unknown): error is ReinsOtelError {
    return typeof error === "object" && error !== null && OTEL_ERROR_MARKER in error;
  }
}

const OPTIONS_ERROR_MARKER = Symbol.for("reins.otel.options_error");

/** An option passed to `createOtelRecorder` is invalid. */
export class OtelRecorderOptionsError extends ReinsOtelError {
  private readonly [OPTIONS_ERROR_MARKER] = true;
  /** The option field at fault, e.g. `meterProvider` or `maxOpenRuns`. */
  readonly field: string;
  /** The value that was passed. */
  readonly value: unknown;

  constructor(options: ReinsOtelErrorOptions & { field: string; value: unknown; reason?: string }) {
    super({
      message: options.message ?? `Invalid OpenTelemetry recorder option "${options.field}": ${options.reason ?? "the value is not allowed"}.`,
      cause: options.cause,
    });
    this.name = "OtelRecorderOptionsError";
    this.field = options.field;
    this.value = options.value;
  }

  /** True when `error` is an `OtelRecorderOptionsError` (from any copy of this package). */
  static isInstance(error: unknown): error is OtelRecorderOptionsError {
    return typeof error === "object" && error !== null && OPTIONS_ERROR_MARKER in error;
  }
}

const EVENT_ERROR_MARKER = Symbol.for("reins.otel.event_error");

/** `record` was given something that is not a Reins event (not an object with a string `type`). */
export class OtelEventError extends ReinsOtelError {
  private readonly [EVENT_ERROR_MARKER] = true;
  /** What was passed. */
  readonly event: unknown;

  constructor(options: ReinsOtelErrorOptions & { event: unknown }) {
    super({
      message: options.message ?? `Expected a Reins event (an object with a string "type"), got ${options.event === null ? "null" : typeof options.event}.`,
      cause: options.cause,
    });
    this.name = "OtelEventError";
    this.event = options.event;
  }

  /** True when `error` is an `OtelEventError` (from any copy of this package). */
  static isInstance(error: unknown): error is OtelEventError {
    return typeof error === "object" && error !== null && EVENT_ERROR_MARKER in error;
  }
}
