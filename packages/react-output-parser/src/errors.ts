import { OutputParserException } from "@langchain/core/output_parsers";
import type { ParserErrorReason } from "./parser-error-reasons";

const PACKAGE_MARKER = Symbol.for("reins.react-output-parser.error");
const FORMAT_ERROR_MARKER = Symbol.for("reins.react-output-parser.error.ReActFormatError");
const OPTIONS_ERROR_MARKER = Symbol.for("reins.react-output-parser.error.InvalidParserOptionsError");

function hasMarker(value: unknown, marker: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}

/**
 * Base class of every error this package throws. It is a LangChain `OutputParserException`, so
 * `AgentExecutor` (with `handleParsingErrors`) recognises parse failures with `instanceof`.
 */
export class ReActOutputParserError extends OutputParserException {
  readonly [PACKAGE_MARKER] = true;
  override readonly cause?: unknown;

  constructor(options: { message: string; llmOutput?: string; observation?: string; sendToLLM?: boolean; cause?: unknown }) {
    super(options.message, options.llmOutput, options.observation, options.sendToLLM ?? false);
    this.name = "ReActOutputParserError";
    // LangChain appends a troubleshooting URL to the message; keep the message about the model's
    // text only (handlers sometimes forward `message` to the model).
    this.message = options.message;
    if (options.cause !== undefined) this.cause = options.cause;
  }

  /** Whether `value` is an error from this package (works across copies of the package). */
  static isInstance(value: unknown): value is ReActOutputParserError {
    return hasMarker(value, PACKAGE_MARKER);
  }
}

/**
 * The model's reply could not be used. Carries the corrective `observation` the executor feeds back
 * to the model (`sendToLLM` is always true) and the reply itself as `llmOutput`.
 */
export class ReActFormatError extends ReActOutputParserError {
  readonly [FORMAT_ERROR_MARKER] = true;
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

  static override isInstance(value: unknown): value is ReActFormatError {
    return hasMarker(value, FORMAT_ERROR_MARKER);
  }
}

/** An option passed to the parser is invalid. Thrown by the constructor, never during parsing. */
export class InvalidParserOptionsError extends ReActOutputParserError {
  readonly [OPTIONS_ERROR_MARKER] = true;
  /** The option field at fault, e.g. `validators.maxThoughtChars`. */
  readonly field: string;

  constructor(options: { field: string; message?: string; cause?: unknown }) {
    super({ message: options.message ?? `Invalid parser option '${options.field}'.`, cause: options.cause });
    this.name = "InvalidParserOptionsError";
    this.field = options.field;
  }

  static override isInstance(value: unknown): value is InvalidParserOptionsError {
    return hasMarker(value, OPTIONS_ERROR_MARKER);
  }
}
