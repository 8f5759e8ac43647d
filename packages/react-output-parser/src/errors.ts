import { OutputParserException } from "@langchain/core/output_parsers";
import { ReinsError, brandReinsError, reinsErrorMarker, type ReinsErrorClass } from "@reins/core";
import type { ParserErrorReason } from "./parser-error-reasons";

/**
 * Base class of every error this package throws. It is a LangChain `OutputParserException`, so
 * `AgentExecutor` (with `handleParsingErrors`) recognises parse failures with `instanceof`. It
 * cannot also extend `ReinsError`, so it carries `ReinsError`'s marker on its prototype instead:
 * `ReinsError.isInstance(error)` is true for it, and each class's `isInstance` follows the one
 * error scheme (`Symbol.for("reins.react-output-parser.<Name>")`).
 */
export class ReActOutputParserError extends OutputParserException {
  static {
    brandReinsError(this, "react-output-parser", "ReActOutputParserError");
    Object.defineProperty(this.prototype, reinsErrorMarker("core", "ReinsError"), { value: true, enumerable: false });
  }

  /**
   * True when `error` is an instance of this class (or a subclass), from any copy of this package.
   *
   * @throws {TypeError} when called on a class that was not branded
   */
  static isInstance<Instance>(this: ReinsErrorClass<Instance>, error: unknown): error is Instance {
    return ReinsError.isInstance.call(this, error) as boolean;
  }

  override readonly cause?: unknown;

  constructor(options: { message: string; llmOutput?: string; observation?: string; sendToLLM?: boolean; cause?: unknown }) {
    super(options.message, options.llmOutput, options.observation, options.sendToLLM ?? false);
    this.name = "ReActOutputParserError";
    // LangChain appends a troubleshooting URL to the message; keep the message about the model's
    // text only (handlers sometimes forward `message` to the model).
    this.message = options.message;
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * The model's reply could not be used. Carries the corrective `observation` the executor feeds back
 * to the model (`sendToLLM` is always true) and the reply itself as `llmOutput`.
 */
export class ReActFormatError extends ReActOutputParserError {
  static {
    brandReinsError(this, "react-output-parser", "ReActFormatError");
  }

  /** Why the reply was rejected (bounded identifier, also the `parser_error` event's reason). */
  readonly reason: ParserErrorReason;
  /** Repairs applied before the reply was rejected. */
  readonly repairs: readonly string[];
  declare readonly observation: string;
  declare readonly llmOutput: string;

  constructor(options: { reason: ParserErrorReason; observation: string; llmOutput: string; repairs?: readonly string[]; message?: string; cause?: unknown }) {
    super({
      message: options.message ?? `Could not use the model's reply (${options.reason}): ${options.observation}`,
      llmOutput: options.llmOutput,
      observation: options.observation,
      sendToLLM: true,
      cause: options.cause,
    });
    this.name = "ReActFormatError";
    this.reason = options.reason;
    this.repairs = Object.freeze([...(options.repairs ?? [])]);
  }
}

/** An option passed to the parser is invalid. Thrown by the constructor, never during parsing. */
export class InvalidParserOptionsError extends ReActOutputParserError {
  static {
    brandReinsError(this, "react-output-parser", "InvalidParserOptionsError");
  }

  /** The option field at fault, e.g. `validators.maxThoughtChars`. */
  readonly field: string;

  constructor(options: { field: string; message?: string; cause?: unknown }) {
    super({ message: options.message ?? `Invalid parser option '${options.field}'.`, cause: options.cause });
    this.name = "InvalidParserOptionsError";
    this.field = options.field;
  }
}
