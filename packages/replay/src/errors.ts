import { ReinsError, brandReinsError } from "@reins/core";

/** A replay server or `reins-replay` option is out of range or malformed; `field` names it. */
export class ReplayOptionsError extends ReinsError {
  static {
    brandReinsError(this, "replay", "ReplayOptionsError");
  }

  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = "ReplayOptionsError";
  }
}

/** Checks a positive-integer option. @throws {ReplayOptionsError} */
export function positiveInteger(field: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < 1) throw new ReplayOptionsError(field, `must be a positive integer, got ${String(value)}`);
  return chosen;
}
