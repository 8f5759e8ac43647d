import { ReinsError, brandReinsError } from "@reins/core";

/** Options common to every `@reins/agent-middleware` error. */
export interface AgentMiddlewareErrorOptions {
  message?: string;
  cause?: unknown;
}

/**
 * Base class of every error `@reins/agent-middleware` throws. Recognise one across package copies
 * with {@link AgentMiddlewareError.isInstance} rather than `instanceof`.
 */
export class AgentMiddlewareError extends ReinsError {
  static {
    brandReinsError(this, "agent-middleware", "AgentMiddlewareError");
  }

  constructor(options: AgentMiddlewareErrorOptions & { message: string }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AgentMiddlewareError";
  }
}

/** Options of {@link ReinsMiddlewareOptionsError}. */
export interface ReinsMiddlewareOptionsErrorOptions extends AgentMiddlewareErrorOptions {
  /** The option at fault, as a path (`metrics`, `toolExecutor`, `loopControl.maxSteps`). */
  field: string;
  /** Why it was rejected, a sentence fragment ("must be an options object"). */
  reason: string;
}

/**
 * An option of `createReinsMiddleware` is invalid. Thrown before anything is built; the message
 * names the field. A bad field inside a piece's own options is reported by that piece with its
 * own error (`ToolExecutorOptionsError`, `ObservationCleanerOptionsError`,
 * `LoopControlOptionsError`).
 */
export class ReinsMiddlewareOptionsError extends AgentMiddlewareError {
  static {
    brandReinsError(this, "agent-middleware", "ReinsMiddlewareOptionsError");
  }

  readonly field: string;
  readonly reason: string;

  constructor(options: ReinsMiddlewareOptionsErrorOptions) {
    super({
      message: options.message ?? `Invalid createReinsMiddleware option '${options.field}': ${options.reason}.`,
      cause: options.cause,
    });
    this.name = "ReinsMiddlewareOptionsError";
    this.field = options.field;
    this.reason = options.reason;
  }
}
