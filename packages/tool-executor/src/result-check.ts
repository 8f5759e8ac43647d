import type { ResultCheckLabel } from "./errors";

/**
 * Built-in checks for "ghost failures": results that arrive normally but say the call failed
 * (HTTP 200 whose body is `{"code":500,"msg":"system busy"}`, a GraphQL `errors` array, a
 * non-2xx response object, a body that is not valid JSON, a required field missing).
 * All checks look at the top level of the result (or of its parsed `body`/`data`) only.
 */
export interface ResultChecks {
  /**
   * An object result with a numeric `status` or `statusCode` (100–599) outside 2xx fails with
   * label `http_status`.
   * @default true
   */
  httpStatus: boolean;
  /**
   * A string `body` on an object result that is declared JSON (`content-type` header) or looks
   * like JSON (starts with `{` or `[`) must parse, else label `json_parse`; the parsed body is
   * then checked by the other checks. A string result starting with `{` is parsed for the other
   * checks too (it is not failed when it does not parse: it may be prose).
   * @default true
   */
  jsonBody: boolean;
  /**
   * Fields meaning failure, label `code_mismatch`: a numeric `code` other than 0 or 2xx; `status`
   * of `"error"`, `"fail"`, `"failed"` or `"failure"`; a numeric body `status` ≥ 400;
   * `success: false`; `ok: false`; a non-empty `error`; a non-empty `errors` array.
   * @default true
   */
  errorFields: boolean;
  /**
   * Dotted paths that must be present and not null (e.g. `"data.items"`), else label
   * `missing_field`.
   * @default []
   */
  requiredFields: readonly string[];
}

/** Default built-in checks. */
export const DEFAULT_RESULT_CHECKS: Readonly<ResultChecks> = Object.freeze({
  httpStatus: true,
  jsonBody: true,
  errorFields: true,
  requiredFields: Object.freeze([]) as readonly string[],
});

/** A failed check: what failed (label), a short detail, and the status when one was found. */
export interface ResultCheckFailure {
  readonly label: ResultCheckLabel;
  readonly detail: string;
  readonly status?: number;
}

const FAILURE_STATUS_WORDS = new Set(["error", "fail", "failed", "failure"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function numericOf(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

function messageOf(record: Record<string, unknown>): string | undefined {
  for (const key of ["message", "msg", "error_description", "detail", "error", "reason"]) {
    const value = record[key];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return undefined;
}

function isNonEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (typeof value === "string") return value.trim() !== "";
  if (Array.isArray(value)) return value.length > 0;
  if (isRecord(value)) return Object.keys(value).length > 0;
  return true;
}

function describeError(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    const first = value[0];
    const text = isRecord(first) ? messageOf(first) : typeof first === "string" ? first : undefined;
    return `${value.length} error(s)${text === undefined ? "" : `, first: ${text}`}`;
  }
  if (isRecord(value)) return messageOf(value) ?? JSON.stringify(value).slice(0, 200);
  return String(value);
}

function readPath(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split(".")) {
    if (Array.isArray(current) && /^\d+$/.test(part)) current = current[Number(part)];
    else if (isRecord(current)) current = current[part];
    else return undefined;
  }
  return current;
}

function checkErrorFields(payload: Record<string, unknown>): ResultCheckFailure | undefined {
  const code = numericOf(payload.code);
  if (code !== undefined && code !== 0 && !(code >= 200 && code <= 299)) {
    const message = messageOf(payload);
    return {
      label: "code_mismatch",
      detail: `code ${code}${message === undefined ? "" : `: ${message}`}`,
      status: code >= 100 && code <= 599 ? code : undefined,
    };
  }
  const status = payload.status;
  if (typeof status === "string" && FAILURE_STATUS_WORDS.has(status.trim().toLowerCase())) {
    const message = messageOf(payload);
    return { label: "code_mismatch", detail: `status "${status}"${message === undefined ? "" : `: ${message}`}` };
  }
  const numericStatus = typeof status === "number" ? status : undefined;
  if (numericStatus !== undefined && numericStatus >= 400 && numericStatus <= 599) {
    const message = messageOf(payload);
    return { label: "code_mismatch", detail: `status ${numericStatus}${message === undefined ? "" : `: ${message}`}`, status: numericStatus };
  }
  if (payload.success === false || payload.ok === false) {
    const message = messageOf(payload);
    return { label: "code_mismatch", detail: `${payload.success === false ? "success" : "ok"}: false${message === undefined ? "" : `: ${message}`}` };
  }
  if (isNonEmpty(payload.error)) return { label: "code_mismatch", detail: `error: ${describeError(payload.error)}` };
  if (Array.isArray(payload.errors) && payload.errors.length > 0) {
    return { label: "code_mismatch", detail: `errors: ${describeError(payload.errors)}` };
  }
  return undefined;
}

function headerOf(headers: unknown, name: string): string | undefined {
  if (!isRecord(headers)) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && typeof value === "string") return value;
  }
  return undefined;
}

/**
 * Runs the built-in checks on a tool result.
 *
 * @param result - the tool's raw result
 * @param checks - which checks to run
 * @returns the first failure found, or `undefined` when the result passes
 * @example
 * ```ts
 * checkResultShape({ code: 500, msg: "system busy" }, DEFAULT_RESULT_CHECKS);
 * // → { label: "code_mismatch", detail: "code 500: system busy", status: 500 }
 * ```
 */
export function checkResultShape(result: unknown, checks: Readonly<ResultChecks>): ResultCheckFailure | undefined {
  let payload: unknown = result;
  if (typeof result === "string" && checks.jsonBody) {
    const trimmed = result.trim();
    if (trimmed.startsWith("{")) {
      try {
        payload = JSON.parse(trimmed);
      } catch {
        payload = result;
      }
    }
  }
  if (isRecord(payload)) {
    const envelope = payload;
    const envelopeStatus = numericOf(envelope.status) ?? numericOf(envelope.statusCode);
    const isHttpEnvelope =
      envelopeStatus !== undefined &&
      envelopeStatus >= 100 &&
      envelopeStatus <= 599 &&
      ("body" in envelope || "data" in envelope || "headers" in envelope || "statusText" in envelope || "ok" in envelope);
    if (isHttpEnvelope) {
      if (checks.httpStatus && !(envelopeStatus >= 200 && envelopeStatus <= 299)) {
        const statusText = typeof envelope.statusText === "string" && envelope.statusText !== "" ? ` ${envelope.statusText}` : "";
        return { label: "http_status", detail: `status ${envelopeStatus}${statusText}`, status: envelopeStatus };
      }
      const body = "body" in envelope ? envelope.body : envelope.data;
      if (typeof body === "string" && checks.jsonBody) {
        const contentType = headerOf(envelope.headers, "content-type") ?? "";
        const trimmed = body.trim();
        if (contentType.includes("json") || trimmed.startsWith("{") || trimmed.startsWith("[")) {
          try {
            payload = JSON.parse(trimmed);
          } catch (error) {
            return { label: "json_parse", detail: `body is not valid JSON (${error instanceof Error ? error.message : "parse error"})` };
          }
        } else {
          payload = body;
        }
      } else if (body !== undefined) {
        payload = body;
      }
    }
  }
  if (checks.errorFields && isRecord(payload)) {
    const failure = checkErrorFields(payload);
    if (failure !== undefined) return failure;
  }
  for (const path of checks.requiredFields) {
    const value = readPath(payload, path);
    if (value === undefined || value === null) return { label: "missing_field", detail: `missing "${path}"` };
  }
  return undefined;
}

/**
 * Runs the built-in result checks, then the policy's `checkResult`, and normalises its verdict:
 * `undefined`/`null`/`true` accept; `false` or a string fail as `check_failed`; an object keeps its
 * own label, detail and status (blank ones fall back to `check_failed` and a default detail).
 *
 * @returns the failure, or `undefined` when the result is accepted
 * @throws whatever `checkResult` throws (the caller counts it as a failed call)
 */
export async function checkToolResult(
  policy: { readonly resultChecks: Readonly<ResultChecks> | undefined; readonly checkResult: ((value: unknown, context: { toolName: string; toolInput: unknown }) => unknown) | undefined },
  context: { toolName: string; toolInput: unknown },
  value: unknown,
): Promise<ResultCheckFailure | undefined> {
  if (policy.resultChecks !== undefined) {
    const failure = checkResultShape(value, policy.resultChecks);
    if (failure !== undefined) return failure;
  }
  if (policy.checkResult === undefined) return undefined;
  const verdict = await policy.checkResult(value, context);
  if (verdict === undefined || verdict === null || verdict === true) return undefined;
  if (verdict === false) return { label: "check_failed", detail: "checkResult rejected the result" };
  if (typeof verdict === "string") return { label: "check_failed", detail: verdict };
  const failure = verdict as Partial<ResultCheckFailure>;
  return {
    label: typeof failure.label === "string" && failure.label !== "" ? failure.label : "check_failed",
    detail: typeof failure.detail === "string" && failure.detail !== "" ? failure.detail : "checkResult rejected the result",
    status: typeof failure.status === "number" ? failure.status : undefined,
  };
}
