import { ToolResultCheckError, ToolTimeoutError, ToolValidationError } from "./errors";

/**
 * Turns anything a tool throws (an `Error`, a string, a plain object, `undefined`, …) into an
 * `Error`, once, at the boundary. An `Error` is returned as is. A plain object keeps its fields
 * (`status`, `code`, `response`, …) on the returned error, so retry classification still sees them;
 * its `message` (or `error`/`msg` field) becomes the message.
 *
 * @param thrown - the thrown value
 * @returns an `Error` whose `message` is never empty
 */
export function toError(thrown: unknown): Error {
  if (thrown instanceof Error) {
    if (thrown.message.trim() === "") {
      const named = new Error(`${thrown.name || "Error"} with no message`, { cause: thrown });
      copyFacts(thrown, named);
      return named;
    }
    return thrown;
  }
  if (thrown === undefined) return new Error("The tool threw without an error value (no error details)");
  if (thrown === null) return new Error("The tool threw null (no error details)");
  if (typeof thrown === "string") {
    return new Error(thrown.trim() === "" ? "The tool threw an empty string" : thrown);
  }
  if (typeof thrown === "object") {
    const record = thrown as Record<string, unknown>;
    const text = firstText(record.message, record.error, record.msg, record.detail, record.reason);
    const error = new Error(text ?? `The tool threw an object: ${safeJson(thrown)}`, { cause: thrown });
    copyFacts(record, error);
    return error;
  }
  return new Error(`The tool threw ${typeof thrown} ${String(thrown)}.`);
}

const FACT_KEYS = ["status", "statusCode", "code", "response", "errno", "syscall"] as const;

function copyFacts(source: object, target: Error): void {
  const from = source as Record<string, unknown>;
  const to = target as unknown as Record<string, unknown>;
  for (const key of FACT_KEYS) {
    if (from[key] !== undefined) to[key] = from[key];
  }
}

function firstText(...values: unknown[]): string | undefined {
  for (const value of values) {
    if (typeof value === "string" && value.trim() !== "") return value;
    if (value instanceof Error && value.message.trim() !== "") return value.message;
  }
  return undefined;
}

function safeJson(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return "(unserialisable)";
  }
}

/** Error codes of transient network failures (Node `errno` codes and undici's). */
export const RETRYABLE_NETWORK_CODES: readonly string[] = Object.freeze([
  "ECONNRESET",
  "ETIMEDOUT",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "EAI_AGAIN",
  "ENETUNREACH",
  "ENETDOWN",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/**
 * Reads an HTTP status from a thrown value: `status`, `statusCode` or `response.status`
 * (fetch, axios, got, OpenAI SDK shapes), on the error or on its `cause`.
 *
 * @returns the status (100–599) or `undefined`
 */
export function httpStatusOf(error: unknown): number | undefined {
  for (let current: unknown = error, depth = 0; current !== null && typeof current === "object" && depth < 4; depth += 1) {
    const record = current as Record<string, unknown>;
    const response = record.response as Record<string, unknown> | undefined;
    for (const candidate of [record.status, record.statusCode, typeof response === "object" && response !== null ? response.status : undefined]) {
      const status = typeof candidate === "string" && /^\d{3}$/.test(candidate) ? Number(candidate) : candidate;
      if (typeof status === "number" && Number.isInteger(status) && status >= 100 && status <= 599) return status;
    }
    current = record.cause;
  }
  return undefined;
}

/** The network error code (`ECONNRESET`, …) of a thrown value or its causes, if any. */
export function networkCodeOf(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current !== null && typeof current === "object" && depth < 4; depth += 1) {
    const code = (current as Record<string, unknown>).code;
    if (typeof code === "string" && RETRYABLE_NETWORK_CODES.includes(code)) return code;
    current = (current as Record<string, unknown>).cause;
  }
  return undefined;
}

/**
 * The default retry classification: timeouts, transient network errors
 * (`RETRYABLE_NETWORK_CODES`), HTTP 429 and 5xx (from the `status`/`statusCode` field, also on a
 * failed result check) are retryable; validation errors and every other 4xx are not, nor is
 * anything else.
 *
 * @param error - a normalised error (an `Error`; the executor normalises every thrown value first)
 */
export function isRetryableError(error: Error): boolean {
  if (ToolValidationError.isInstance(error)) return false;
  if (ToolTimeoutError.isInstance(error)) return true;
  const status = ToolResultCheckError.isInstance(error) ? error.status : httpStatusOf(error);
  if (status !== undefined) return status === 429 || status >= 500;
  if (networkCodeOf(error) !== undefined) return true;
  const causeOfExecution = (error as { cause?: unknown }).cause;
  if (causeOfExecution instanceof Error && causeOfExecution !== error && ToolTimeoutError.isInstance(causeOfExecution)) return true;
  return false;
}
