/**
 * Keeps an open label (tool name, parse reason, repair kind) to a bounded set of values, so a
 * hallucinated tool name or a free-text reason can never create unbounded time series
 * (Prometheus naming and instrumentation best practice: "do not use labels to store dimensions
 * with high cardinality").
 */

/** How an open label chooses its values. */
export interface BoundedLabelOptions {
  /** Values always allowed. When `strict` is true, the only ones allowed. */
  readonly allowed?: readonly string[];
  /** When true, only `allowed` values (and those added with `allow`) pass; others become `fallback`. */
  readonly strict: boolean;
  /** How many distinct values a non-strict label learns before mapping new ones to `fallback`. */
  readonly maxValues: number;
  /** The value used for anything not allowed: `unknown` for tools, `other` for reasons. */
  readonly fallback: string;
  /**
   * Values a non-strict label may learn must match this pattern (short identifiers), so error
   * text or user input never becomes a label.
   */
  readonly pattern?: RegExp;
}

/** A label whose values stay within a known, bounded set. */
export class BoundedLabel {
  private readonly values = new Set<string>();
  private learned = 0;

  constructor(private readonly options: BoundedLabelOptions) {
    for (const value of options.allowed ?? []) this.values.add(value);
  }

  /** Adds values that are always allowed (for example the agent's tool names). */
  allow(values: readonly string[]): void {
    for (const value of values) this.values.add(value);
  }

  /** The values currently allowed, in insertion order. */
  get allowedValues(): readonly string[] {
    return [...this.values];
  }

  /** The label value to record for `value`. */
  valueOf(value: string | undefined): string {
    if (value === undefined || value.length === 0) return this.options.fallback;
    if (this.values.has(value)) return value;
    if (this.options.strict) return this.options.fallback;
    if (this.learned >= this.options.maxValues) return this.options.fallback;
    if (this.options.pattern !== undefined && !this.options.pattern.test(value)) return this.options.fallback;
    this.values.add(value);
    this.learned += 1;
    return value;
  }
}
