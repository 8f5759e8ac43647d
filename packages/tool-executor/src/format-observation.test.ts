import { DEFAULT_MAX_OBSERVATION_CHARS, InMemoryToolResultStore, defaultFormatObservation } from "./index";
import { ensureReadableObservation } from "./format-observation";

const context = { toolName: "t", toolInput: "x" };

describe("defaultFormatObservation", () => {
  describe("with any result", () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    const shared = { city: "Oslo" };
    const deep: { list: Array<Record<string, unknown>> } = { list: [] };
    deep.list.push({ parent: deep, n: 1 });
    it.each([
      ["a string", "hello", "hello"],
      ["undefined", undefined, 'Tool "t" returned no data.'],
      ["null", null, 'Tool "t" returned no data.'],
      ["a blank string", "   ", 'Tool "t" returned no data.'],
      ["the text undefined", "undefined", 'Tool "t" returned no data.'],
      ["[object Object]", "[object Object]", 'Tool "t" returned a value that could not be turned into text. Try a different input or another tool.'],
      ["a number", 199.5, "199.5"],
      ["a BigInt", 10n, "10"],
      ["a Date", new Date("2026-01-02T03:04:05.000Z"), "2026-01-02T03:04:05.000Z"],
      ["bytes", new TextEncoder().encode("héllo"), "héllo"],
      ["an object with a BigInt", { n: 5n }, '{"n":"5"}'],
      ["a circular object", circular, '{"a":1,"self":"[Circular]"}'],
      ["an object shared by two keys (not circular)", { from: shared, to: shared }, '{"from":{"city":"Oslo"},"to":{"city":"Oslo"}}'],
      ["an array repeating one object", [shared, shared], '[{"city":"Oslo"},{"city":"Oslo"}]'],
      ["a cycle deeper down", deep, '{"list":[{"parent":"[Circular]","n":1}]}'],
    ])("formats %s", (_label, result, expected) => {
      expect(defaultFormatObservation(result, context)).toBe(expected);
    });
  });
});

describe("defaultFormatObservation", () => {
  describe("with a huge result", () => {
    it("cuts it at DEFAULT_MAX_OBSERVATION_CHARS with a marker saying how much was left out", () => {
      const rows = Array.from({ length: 20_000 }, (_unused, index) => ({ id: index, name: `item ${index}` }));
      const full = JSON.stringify(rows);
      const text = defaultFormatObservation(rows, context);
      expect(text.startsWith(full.slice(0, DEFAULT_MAX_OBSERVATION_CHARS))).toBe(true);
      expect(text.endsWith(`[output truncated: ${full.length - DEFAULT_MAX_OBSERVATION_CHARS} more characters not shown]`)).toBe(true);
      expect(text.length).toBeLessThan(DEFAULT_MAX_OBSERVATION_CHARS + 100);
    });

    it("never splits a surrogate pair", () => {
      const text = defaultFormatObservation(`${"a".repeat(DEFAULT_MAX_OBSERVATION_CHARS - 1)}😀tail`, context);
      expect(text.startsWith(`${"a".repeat(DEFAULT_MAX_OBSERVATION_CHARS - 1)}\n…`)).toBe(true);
      expect(text).toMatch(/\[output truncated: 6 more characters not shown\]$/);
    });

    it("leaves a result of exactly the limit untouched", () => {
      const exact = "b".repeat(DEFAULT_MAX_OBSERVATION_CHARS);
      expect(defaultFormatObservation(exact, context)).toBe(exact);
    });
  });
});

describe("ensureReadableObservation", () => {
  describe("with a non-string", () => {
    it("answers the unreadable message", () => {
      expect(ensureReadableObservation(42, "t")).toMatch(/could not be turned into text/);
    });
  });
});

describe("InMemoryToolResultStore", () => {
  describe("when full or expired", () => {
    it("evicts the least recently used entry and drops expired ones", () => {
      let now = 0;
      const store = new InMemoryToolResultStore({ maxEntries: 2, now: () => now });
      store.set("a", { value: 1, storedAtMs: 0 }, 100);
      store.set("b", { value: 2, storedAtMs: 0 }, 100);
      expect(store.get("a")?.value).toBe(1);
      store.set("c", { value: 3, storedAtMs: 0 }, 100);
      expect(store.get("b")).toBeUndefined();
      expect(store.get("a")?.value).toBe(1);
      now = 100;
      expect(store.get("a")).toBeUndefined();
      expect(store.size).toBe(1);
    });
  });
});
