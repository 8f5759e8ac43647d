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

/** Why an {@link ArtifactStoreError} was thrown. */
export type ArtifactStoreErrorReason = "options" | "unknown" | "expired" | "unreadable";

/**
 * An artifact could not be read (unknown id, expired, its write failed) or the store's options
 * are invalid.
 *
 * @example
 * ```ts
 * try { await artifacts.text(id); }
 * catch (error) { if (ArtifactStoreError.isInstance(error) && error.reason === "expired") rerunTheTool(); }
 * ```
 */
export class ArtifactStoreError extends ObservationCleanerError {
  static {
    brandReinsError(this, "observation-cleaner", "ArtifactStoreError");
  }

  /** What went wrong: bad `options`, an `unknown` id, an `expired` artifact, or an `unreadable` one. */
  readonly reason: ArtifactStoreErrorReason;
  /** The artifact asked for, when there is one. */
  readonly artifactId: string | undefined;

  constructor(options: ObservationCleanerErrorOptions & { reason: ArtifactStoreErrorReason; artifactId?: string }) {
    const defaults: Record<ArtifactStoreErrorReason, string> = {
      options: "Invalid artifact store options.",
      unknown: `No artifact ${options.artifactId ?? ""} in this store (never saved here, or forgotten past maxArtifacts).`,
      expired: `Artifact ${options.artifactId ?? ""} expired (past the store's ttlMs).`,
      unreadable: `Artifact ${options.artifactId ?? ""} could not be read back.`,
    };
    super({ message: options.message ?? defaults[options.reason], cause: options.cause });
    this.name = "ArtifactStoreError";
    this.reason = options.reason;
    this.artifactId = options.artifactId;
  }
}
