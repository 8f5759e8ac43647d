/**
 * The one option-checking vocabulary of the Reins packages. Each package binds it to its own
 * options error once (`createOptionChecks(fail)`); every check then fails fast with that error,
 * naming the field, the value and the rule.
 */

/** Throws the package's options error for `field` (never returns). */
export type OptionFail = (field: string, value: unknown, reason: string) => never;

/** True for a non-null object that is not an array (an options object, a JSON object). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Bounds of {@link OptionChecks.number}. */
export interface NumberBounds {
  /** Smallest allowed value. */
  readonly min: number;
  /** Largest allowed finite value. @default no upper bound */
  readonly max?: number;
  /** Only integers (Infinity is still allowed when `allowInfinity`). @default false */
  readonly integer?: boolean;
  /** `Infinity` is allowed ("no limit"). @default false */
  readonly allowInfinity?: boolean;
  /** What `max` is, for the message (e.g. `the longest timer delay`). @default none */
  readonly maxMeaning?: string;
}

/** The checks, each throwing through the bound `fail`. */
export interface OptionChecks {
  /** Throws the package's options error. */
  readonly fail: OptionFail;
  /** `value` when it is a number within `bounds`. */
  number(field: string, value: unknown, bounds: NumberBounds): number;
  /** `value` when it is an integer ≥ `min`; the reason is `expected an integer ≥ <min>`. */
  integer(field: string, value: unknown, min: number): number;
  /** `value` when it is `true` or `false`. */
  boolean(field: string, value: unknown): boolean;
  /** `undefined`, or `value` when it is a function. */
  optionalFunction<T>(field: string, value: unknown): T | undefined;
  /** `undefined`, or `value` when it is a non-empty string (not only spaces). */
  optionalString(field: string, value: unknown): string | undefined;
  /** `undefined`, or a frozen copy of `value` when it is an array of non-empty strings. */
  optionalStringList(field: string, value: unknown): readonly string[] | undefined;
  /** Throws naming the first key of `value` that is not `allowed` (as `<field>.<key>`). */
  knownKeys(field: string, value: Record<string, unknown>, allowed: readonly string[]): void;
}

/**
 * Binds the checks to a package's options error.
 *
 * @param fail - throws the package's options error, e.g.
 *   `(field, value, reason) => { throw new MetricsOptionsError({ field, value, reason }); }`
 * @returns the checks
 * @example
 * ```ts
 * const check = createOptionChecks((field, value, reason) => {
 *   throw new MetricsOptionsError({ field, value, reason });
 * });
 * const maxToolLabels = check.integer("maxToolLabels", options.maxToolLabels ?? 50, 0);
 * ```
 */
export function createOptionChecks(fail: OptionFail): OptionChecks {
  return Object.freeze({
    fail,
    number(field: string, value: unknown, bounds: NumberBounds): number {
      if (typeof value !== "number" || Number.isNaN(value)) fail(field, value, "must be a number");
      if (!Number.isFinite(value) && !(bounds.allowInfinity === true && value === Number.POSITIVE_INFINITY)) {
        fail(field, value, "must be finite");
      }
      if (bounds.integer === true && Number.isFinite(value) && !Number.isInteger(value)) fail(field, value, "must be an integer");
      if (value < bounds.min) fail(field, value, `must be >= ${bounds.min}`);
      if (bounds.max !== undefined && Number.isFinite(value) && value > bounds.max) {
        const meaning = bounds.maxMeaning === undefined ? "" : ` (${bounds.maxMeaning})`;
        fail(field, value, `must be <= ${bounds.max}${meaning}${bounds.allowInfinity === true ? " or Infinity" : ""}`);
      }
      return value;
    },
    integer(field: string, value: unknown, min: number): number {
      if (typeof value !== "number" || !Number.isInteger(value) || value < min) fail(field, value, `expected an integer ≥ ${min}`);
      return value;
    },
    boolean(field: string, value: unknown): boolean {
      if (typeof value !== "boolean") fail(field, value, "expected true or false");
      return value;
    },
    optionalFunction<T>(field: string, value: unknown): T | undefined {
      if (value === undefined) return undefined;
      if (typeof value !== "function") fail(field, value, "must be a function");
      return value as T;
    },
    optionalString(field: string, value: unknown): string | undefined {
      if (value === undefined) return undefined;
      if (typeof value !== "string" || value.trim() === "") fail(field, value, "expected a non-empty string");
      return value;
    },
    optionalStringList(field: string, value: unknown): readonly string[] | undefined {
      if (value === undefined) return undefined;
      if (!Array.isArray(value) || value.some((entry) => typeof entry !== "string" || entry.length === 0)) {
        fail(field, value, "expected an array of non-empty strings");
      }
      return Object.freeze([...(value as string[])]);
    },
    knownKeys(field: string, value: Record<string, unknown>, allowed: readonly string[]): void {
      for (const key of Object.keys(value)) {
        if (!allowed.includes(key)) fail(`${field}.${key}`, value[key], `unknown option (known: ${allowed.join(", ")})`);
      }
    },
  });
}
