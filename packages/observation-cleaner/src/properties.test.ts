import fc from "fast-check";
import { cleanObservation } from "./clean-observation";

const BUDGET = { maxChars: 800 } as const;

function expectWellFormed(result: ReturnType<typeof cleanObservation>, maxChars: number, maxTokens?: number): void {
  expect(typeof result.text).toBe("string");
  expect(result.text.trim().length).toBeGreaterThan(0);
  expect(result.text.length).toBeLessThanOrEqual(maxChars);
  expect(result.cleanChars).toBe(result.text.length);
  expect(result.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  if (maxTokens !== undefined) expect(result.tokens).toBeLessThanOrEqual(maxTokens);
}

function nestedObject(depth: number): unknown {
  let value: unknown = { leaf: "bottom" };
  for (let level = 0; level < depth; level += 1) value = { child: value };
  return value;
}

function nestedArray(depth: number): unknown {
  let value: unknown = ["bottom"];
  for (let level = 0; level < depth; level += 1) value = [value];
  return value;
}

describe("cleanObservation", () => {
  describe("on arbitrary JSON values", () => {
    it("never throws, never returns empty text and stays within the budget", () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          expectWellFormed(cleanObservation(value, BUDGET), BUDGET.maxChars);
        }),
        { numRuns: 300 },
      );
    });

    it("does the same for the JSON text of those values", () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          expectWellFormed(cleanObservation(JSON.stringify(value), BUDGET), BUDGET.maxChars);
        }),
        { numRuns: 300 },
      );
    });

    it("keeps within a token budget too", () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          expectWellFormed(cleanObservation(value, { maxChars: 2000, maxTokens: 60 }), 2000, 60);
        }),
        { numRuns: 100 },
      );
    });
  });

  describe("on strings with control characters", () => {
    it("never throws, never returns empty text and stays within the budget", () => {
      fc.assert(
        fc.property(fc.string({ unit: "binary", maxLength: 3000 }), (value) => {
          const result = cleanObservation(value, BUDGET);
          expectWellFormed(result, BUDGET.maxChars);
          expect(result.text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe("on huge arrays", () => {
    it("keeps head and tail of 200 000 numbers within the budget and counts the rest", () => {
      const values = Array.from({ length: 200_000 }, (_, index) => index);
      const result = cleanObservation(values, BUDGET);
      expectWellFormed(result, BUDGET.maxChars);
      expect(result.truncated).toBe(true);
      expect(result.text).toContain("0, 1");
      expect(result.text).toContain("199999");
      expect(result.text).toMatch(/… \d+ more/);
    });

    it("stays within the budget for arbitrary long arrays of records", () => {
      fc.assert(
        fc.property(fc.array(fc.record({ id: fc.integer(), name: fc.string(), tags: fc.array(fc.string()) }), { minLength: 500, maxLength: 3000 }), (value) => {
          expectWellFormed(cleanObservation(value, BUDGET), BUDGET.maxChars);
        }),
        { numRuns: 10 },
      );
    });
  });

  describe("on 10 000-deep nesting", () => {
    it.each([
      ["objects", () => nestedObject(10_000)],
      ["arrays", () => nestedArray(10_000)],
      ["JSON object text", () => `${'{"child":'.repeat(10_000)}1${"}".repeat(10_000)}`],
      ["JSON array text", () => `${"[".repeat(10_000)}1${"]".repeat(10_000)}`],
      ["unbalanced JSON text", () => "[".repeat(10_000)],
      ["XML text", () => `<?xml version="1.0"?>${"<a>".repeat(10_000)}x${"</a>".repeat(10_000)}`],
      ["HTML text", () => `<html><body>${"<div>".repeat(10_000)}deep text${"</div>".repeat(10_000)}</body></html>`],
    ])("does not overflow the stack on %s", (_name, make) => {
      const result = cleanObservation(make(), BUDGET);
      expectWellFormed(result, BUDGET.maxChars);
    });

    it("says that nesting was cut", () => {
      const result = cleanObservation(nestedObject(10_000), BUDGET);
      expect(result.notes.join(" ")).toMatch(/nesting deeper than 64 levels/);
    });
  });

  describe("on circular objects", () => {
    it("marks the cycle and keeps the other fields", () => {
      const value: Record<string, unknown> = { name: "loop", list: [1, 2] };
      value.self = value;
      (value.list as unknown[]).push(value);
      const result = cleanObservation(value, BUDGET);
      expectWellFormed(result, BUDGET.maxChars);
      expect(result.text).toContain("name: loop");
      expect(result.text).toContain("[circular reference]");
    });

    it("never throws on arbitrary objects with cycles added", () => {
      fc.assert(
        fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (record, key) => {
          const value: Record<string, unknown> = { ...record };
          Object.defineProperty(value, key, { value, enumerable: true, configurable: true, writable: true });
          expectWellFormed(cleanObservation(value, BUDGET), BUDGET.maxChars);
        }),
        { numRuns: 100 },
      );
    });
  });

  describe("on any JavaScript value", () => {
    it("never throws and never returns empty text", () => {
      fc.assert(
        fc.property(fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true, withBoxedValues: true }), (value) => {
          expectWellFormed(cleanObservation(value, BUDGET), BUDGET.maxChars);
        }),
        { numRuns: 300 },
      );
    });
  });
});
