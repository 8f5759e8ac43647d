import { ReinsError, brandReinsError } from "@reins/core";

/** Options common to every `@reins/otel` error. */
export interface ReinsOtelErrorOptions {
  message?: string;
  cause?: unknown;
}

/**
 * Base class of every error `@reins/otel` throws. Recognise one across package copies with
 * {@link ReinsOtelError.isInstance} rather than `instanceof`.
 */
export class ReinsOtelError extends ReinsError {
  static {
    brandReinsError(this, "otel", "ReinsOtelError");
  }

  constructor(options: ReinsOtelErrorOptions & { message: string }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ReinsOtelError";
  }
}

/** An option passed to `createOtelRecorder` is invalid. */
export class OtelRecorderOptionsError extends ReinsOtelError {
  static {
    brandReinsError(this, "otel", "OtelRecorderOptionsError");
  }

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
}

/** `record` was given something that is not a Reins event (not an object with a string `type`). */
export class OtelEventError extends ReinsOtelError {
  static {
    brandReinsError(this, "otel", "OtelEventError");
  }

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
}
