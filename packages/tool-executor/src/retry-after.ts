import { httpStatusOf } from "./normalize-error";

/** Longest `Retry-After` honoured, in milliseconds (a day): a larger value is read as "a day". */
const MAX_RETRY_AFTER_MS = 86_400_000;

/** Reads one header from a plain object (any case) or a WHATWG `Headers`-like value. */
function headerOf(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== "object") return undefined;
  const getter = (headers as { get?: unknown }).get;
  if (typeof getter === "function") {
    try {
      const value: unknown = (getter as (this: unknown, key: string) => unknown).call(headers, name);
      if (typeof value === "string") return value;
    } catch {
      // A get() that throws (a foreign Map-like) is read as a plain object below.
    }
  }
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === "string") return value;
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
    if (Array.isArray(value) && typeof value[0] === "string") return value[0];
  }
  return undefined;
}

/**
 * Parses a `Retry-After` value (RFC 9110 §10.2.3): delay-seconds (`"120"`) or an HTTP-date
 * (`"Wed, 21 Oct 2015 07:28:00 GMT"`), relative to `nowMs`.
 *
 * @returns the wait in milliseconds (0 for a date in the past, at most a day), or `undefined` when the value is neither form
 */
export function parseRetryAfter(value: string, nowMs: number): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  // An HTTP-date names a weekday and a GMT time; anything else (e.g. "soon", "1.5") is not one.
  if (!/^[A-Za-z]{3},\s/.test(text) && !/GMT$/.test(text)) return undefined;
  const atMs = Date.parse(text);
  if (!Number.isFinite(atMs)) return undefined;
  return Math.min(Math.max(0, atMs - nowMs), MAX_RETRY_AFTER_MS);
}

/**
 * How long the service asked to wait before the next attempt: a failure with HTTP status 429 or
 * 503 and a `retry-after` header, read from `error.headers` or `error.response.headers` (a plain
 * object in any case, or a `Headers`), on the error or on one of its `cause`s (fetch, axios, got,
 * OpenAI SDK shapes).
 *
 * @param error - the failure (any thrown value)
 * @param nowMs - the clock an HTTP-date is measured against, in epoch milliseconds
 * @returns the wait in milliseconds, or `undefined` when the failure carries none
 */
export function retryAfterMsOf(error: unknown, nowMs: number): number | undefined {
  for (let current: unknown = error, depth = 0; current !== null && typeof current === "object" && depth < 4; depth += 1) {
    const record = current as Record<string, unknown>;
    const status = httpStatusOf(record);
    if (status === 429 || status === 503) {
      const response = record.response;
      const responseHeaders = response !== null && typeof response === "object" ? (response as Record<string, unknown>).headers : undefined;
      const value = headerOf(record.headers, "retry-after") ?? headerOf(responseHeaders, "retry-after");
      if (value !== undefined) {
        const waitMs = parseRetryAfter(value, nowMs);
        if (waitMs !== undefined) return waitMs;
      }
    }
    current = record.cause;
  }
  return undefined;
}

/**
 * Waits `ms` milliseconds unless `signal` aborts first; leaves no timer or listener behind.
 *
 * @returns `true` when the wait ran out, `false` when the signal aborted
 */
export function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted === true) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const finish = (value: boolean): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(value);
    };
    const onAbort = (): void => finish(false);
    const timer = setTimeout(() => finish(true), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
