const AGENT_MIDDLEWARE_ERROR_MARKER = Symbol.for("reins.agent_middleware.error");
const AGENT_MIDDLEWARE_OPTIONS_ERROR_MARKER = Symbol.for("reins.agent_middleware.options_error");

/** Options common to every `@reins/agent-middleware` error. */
export interface AgentMiddlewareErrorOptions {
  message?: string;
  cause?: unknown;
}

/**
 * Base class of every error `@reins/agent-middleware` throws. Recognise one across package copies
 * with {@link AgentMiddlewareError.isInstance} rather than `instanceof`.
 */
export class AgentMiddlewareError extends Error {
  private readonly [AGENT_MIDDLEWARE_ERROR_MARKER] = true;

  constructor(options: AgentMiddlewareErrorOptions & { message: string }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AgentMiddlewareError";
  }

  /** True when `error` is an `AgentMiddlewareError` (from any copy of this package). */
  static isInstance(error: unknown): error is AgentMiddlewareError {
    return typeof error === "object" && error !== null && AGENT_MIDDLEWARE_ERROR_MARKER in error;
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
  private readonly [AGENT_MIDDLEWARE_OPTIONS_ERROR_MARKER] = true;
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

  /** True when `error` is a `ReinsMiddlewareOptionsError` (from any copy of this package). */
  static isInstance(error: unknown): error is ReinsMiddlewareOptionsError {
    return typeof error === "object" && error !== null && AGENT_MIDDLEWARE_OPTIONS_ERROR_MARKER in error;
  }
}
