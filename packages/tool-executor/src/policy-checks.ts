import { ToolExecutorOptionsError } from "./errors";

/**
 * The field checks every policy section shares: each failure throws a `ToolExecutorOptionsError`
 * naming the field, the value and the rule.
 */

/** @throws {ToolExecutorOptionsError} always */
export function fail(field: string, value: unknown, reason: string): never {
  throw new ToolExecutorOptionsError({ field, value, reason });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The longest delay a Node/browser timer can wait (2^31 − 1 ms, about 24.8 days). `setTimeout`
 * fires after 1 ms for anything longer, so a larger finite timeout or backoff would expire at once.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** @throws {ToolExecutorOptionsError} when `value` is not a number within the bounds */
export function checkNumber(field: string, value: unknown, options: { min: number; max?: number; integer?: boolean; allowInfinity?: boolean }): number {
  if (typeof value !== "number" || Number.isNaN(value)) fail(field, value, "must be a number");
  if (!Number.isFinite(value) && !(options.allowInfinity === true && value === Number.POSITIVE_INFINITY)) {
    fail(field, value, "must be finite");
  }
  if (options.integer === true && Number.isFinite(value) && !Number.isInteger(value)) fail(field, value, "must be an integer");
  if (value < options.min) fail(field, value, `must be >= ${options.min}`);
  if (options.max !== undefined && Number.isFinite(value) && value > options.max) {
    fail(field, value, `must be <= ${options.max} (the longest timer delay)${options.allowInfinity === true ? " or Infinity" : ""}`);
  }
  return value;
}

/** @throws {ToolExecutorOptionsError} when `value` is neither undefined nor a function */
export function checkFunction<T>(field: string, value: unknown): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "function") fail(field, value, "must be a function");
  return value as T;
}

/** @throws {ToolExecutorOptionsError} naming the first key of `value` that is not `allowed` */
export function checkKeys(field: string, value: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) fail(`${field}.${key}`, value[key], `unknown option (known: ${allowed.join(", ")})`);
  }
}
