import { createOptionChecks, type OptionChecks, isRecord, type NumberBounds, type OptionFail } from "@reins/core";
import { ToolExecutorOptionsError } from "./errors";

/**
 * The field checks every policy section shares: `@reins/core`'s option vocabulary bound to
 * `ToolExecutorOptionsError`, so each failure names the field, the value and the rule.
 */
const check: OptionChecks = createOptionChecks((field, value, reason) => {
  throw new ToolExecutorOptionsError({ field, value, reason });
});

/** @throws {ToolExecutorOptionsError} always */
export const fail: OptionFail = check.fail;

/** A non-null, non-array object (`@reins/core`'s `isRecord`). */
export const isPlainObject = isRecord;

/**
 * The longest delay a Node/browser timer can wait (2^31 − 1 ms, about 24.8 days). `setTimeout`
 * fires after 1 ms for anything longer, so a larger finite timeout or backoff would expire at once.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** @throws {ToolExecutorOptionsError} when `value` is not a number within the bounds */
export function checkNumber(field: string, value: unknown, bounds: Omit<NumberBounds, "maxMeaning">): number {
  return check.number(field, value, { ...bounds, maxMeaning: "the longest timer delay" });
}

/** @throws {ToolExecutorOptionsError} when `value` is neither undefined nor a function */
export function checkFunction<T>(field: string, value: unknown): T | undefined {
  return check.optionalFunction<T>(field, value);
}

/** @throws {ToolExecutorOptionsError} naming the first key of `value` that is not `allowed` */
export function checkKeys(field: string, value: Record<string, unknown>, allowed: readonly string[]): void {
  check.knownKeys(field, value, allowed);
}
