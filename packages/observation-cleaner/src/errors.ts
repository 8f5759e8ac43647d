import { ReinsError, brandReinsError } from "@reins/core";

/** Options common to every `@reins/observation-cleaner` error. */
export interface ObservationCleanerErrorOptions {
  message?: string;
  cause?: unknown;
}

/**
 * Base class of every error `@reins/observation-cleaner` throws. Cleaning itself never throws on
 * any value; only invalid options do. Recognise one across package copies with
 * {@link ObservationCleanerError.isInstance} rather than `instanceof`.
 */
export class ObservationCleanerError extends ReinsError {
  static {
    brandReinsError(this, "observation-cleaner", "ObservationCleanerError");
  }

  constructor(options: ObservationCleanerErrorOptions & { message: string }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ObservationCleanerError";
  }
}

/**
 * An option passed to `cleanObservation`, `new ObservationCleaner` or a per-tool entry is invalid.
 *
 * @example
 * ```ts
 * try { new ObservationCleaner({ maxChars: 10 }); }
 * catch (error) { if (ObservationCleanerOptionsError.isInstance(error)) console.error(error.field); }
 * ```
 */
export class ObservationCleanerOptionsError extends ObservationCleanerError {
  static {
    brandReinsError(this, "observation-cleaner", "ObservationCleanerOptionsError");
  }

  /** The option field at fault, e.g. `maxChars` or `tools.search.style`. */
  readonly field: string;
  /** The value that was passed. */
  readonly value: unknown;

  constructor(options: ObservationCleanerErrorOptions & { field: string; value: unknown; reason?: string }) {
    super({
      message:
        options.message ??
        `Invalid observation cleaner option "${options.field}": ${options.reason ?? "the value is not allowed"}.`,
      cause: options.cause,
    });
    this.name = "ObservationCleanerOptionsError";
    this.field = options.field;
    this.value = options.value;
  }
}
