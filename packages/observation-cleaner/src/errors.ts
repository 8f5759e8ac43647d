const CLEANER_ERROR_MARKER = Symbol.for("reins.observation_cleaner.error");

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
export class ObservationCleanerError extends Error {
  private readonly [CLEANER_ERROR_MARKER] = true;

  constructor(options: ObservationCleanerErrorOptions & { message: string }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ObservationCleanerError";
  }

  /** True when `error` is an `ObservationCleanerError` (from any copy of this package). */
  static isInstance(error: unknown): error is ObservationCleanerError {
    return typeof error === "object" && error !== null && CLEANER_ERROR_MARKER in error;
  }
}

const OPTIONS_ERROR_MARKER = Symbol.for("reins.observation_cleaner.options_error");

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
  private readonly [OPTIONS_ERROR_MARKER] = true;
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

  /** True when `error` is an `ObservationCleanerOptionsError` (from any copy of this package). */
  static isInstance(error: unknown): error is ObservationCleanerOptionsError {
    return typeof error === "object" && error !== null && OPTIONS_ERROR_MARKER in error;
  }
}
