import { ReinsError, brandReinsError } from "@reins/core";

/** Options common to every `@reins/react-agent` error. */
export interface ReactAgentErrorOptions {
  message?: string;
  cause?: unknown;
}

/**
 * Base class of every error `@reins/react-agent` throws. Recognise one across package copies with
 * {@link ReactAgentError.isInstance} rather than `instanceof`.
 */
export class ReactAgentError extends ReinsError {
  static {
    brandReinsError(this, "react-agent", "ReactAgentError");
  }


  constructor(options: ReactAgentErrorOptions & { message: string }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ReactAgentError";
  }
}

/** Options of {@link ReactAgentOptionsError}. */
export interface ReactAgentOptionsErrorOptions extends ReactAgentErrorOptions {
  /** The option at fault, as a path (`prompt`, `tools[2]`, `loopControl.maxSteps`). */
  field: string;
  /** Why it was rejected, a sentence fragment ("must be a prompt template"). */
  reason: string;
}

/**
 * An option of `createReactAgent` is invalid. Thrown before anything is built; the message names
 * the field (a path such as `tools[1]`, `toolExecutor.policies.send_email`, `loopFinish.maxFindings`).
 * A bad field inside the pieces' own options (`parser`, `toolExecutor`, `observation`,
 * `loopControl`) is reported by that piece's constructor with its own error
 * (`InvalidParserOptionsError`, `ToolExecutorOptionsError`, `ObservationCleanerOptionsError`,
 * `LoopControlOptionsError`), whose field is relative to that option.
 */
export class ReactAgentOptionsError extends ReactAgentError {
  static {
    brandReinsError(this, "react-agent", "ReactAgentOptionsError");
  }

  readonly field: string;
  readonly reason: string;

  constructor(options: ReactAgentOptionsErrorOptions) {
    super({
      message: options.message ?? `Invalid createReactAgent option '${options.field}': ${options.reason}.`,
      cause: options.cause,
    });
    this.name = "ReactAgentOptionsError";
    this.field = options.field;
    this.reason = options.reason;
  }
}


/** Options of {@link ReactAgentToolsError}. */
export interface ReactAgentToolsErrorOptions extends ReactAgentErrorOptions {
  /** The tool whose call showed that the executor has the original tools. */
  toolName: string;
}

/**
 * The `AgentExecutor` runs the tools given to `createReactAgent` instead of `agent.tools`: its
 * calls bypass the ToolExecutor and the observation cleaner (a throwing tool then shows the
 * model `""`). Thrown from the agent's next planning call, so the run fails at its first step.
 */
export class ReactAgentToolsError extends ReactAgentError {
  static {
    brandReinsError(this, "react-agent", "ReactAgentToolsError");
  }

  readonly toolName: string;

  constructor(options: ReactAgentToolsErrorOptions) {
    super({
      message:
        options.message ??
        `The AgentExecutor called tool "${options.toolName}" without Reins' wrapper: it was given the tools passed to createReactAgent. ` +
          "Build it with new AgentExecutor({ agent, tools: agent.tools }).",
      cause: options.cause,
    });
    this.name = "ReactAgentToolsError";
    this.toolName = options.toolName;
  }
}
