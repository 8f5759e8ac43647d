import { actionKey, fingerprintObservation, normalizeToolInput, stableStringify } from "./fingerprint";

describe("stableStringify", () => {
  it("sorts keys at every level", () => {
    expect(stableStringify({ b: { d: 1, c: 2 }, a: [1, { y: 1, x: 2 }] })).toBe('{"a":[1,{"x":2,"y":1}],"b":{"c":2,"d":1}}');
  });
  it("marks circular references instead of throwing", () => {
    const value: Record<string, unknown> = { a: 1 };
    value.self = value;
    expect(stableStringify(value)).toBe('{"a":1,"self":"[Circular]"}');
  });
  it("writes BigInt with an n suffix", () => {
    expect(stableStringify({ n: 10n })).toBe('{"n":"10n"}');
  });
});

describe("normalizeToolInput", () => {
  it("treats reordered JSON objects as the same input", () => {
    expect(normalizeToolInput('{"b": 2, "a": 1}')).toBe(normalizeToolInput({ a: 1, b: 2 }));
  });
  it("collapses whitespace and one pair of wrapping quotes", () => {
    expect(normalizeToolInput('  "weather   in Paris" ')).toBe("weather in Paris");
  });
  it("keeps letter case", () => {
    expect(normalizeToolInput("Paris")).not.toBe(normalizeToolInput("paris"));
  });
});

describe("actionKey", () => {
  it("distinguishes tools with the same input", () => {
    expect(actionKey("a", "x")).not.toBe(actionKey("b", "x"));
  });
});

describe("fingerprintObservation", () => {
  it("is 16 hex characters and ignores whitespace differences", () => {
    const fingerprint = fingerprintObservation("Paris  is\nthe capital");
    expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprintObservation("Paris is the capital")).toBe(fingerprint);
  });
  it("matches the published 64-bit FNV-1a test vectors", () => {
    // Landon Curt Noll's FNV test suite: FNV-1a 64 of "", "a" and "foobar".
    expect(fingerprintObservation("")).toBe("cbf29ce484222325");
    expect(fingerprintObservation("a")).toBe("af63dc4c8601ec8c");
    expect(fingerprintObservation("foobar")).toBe("85944171f73967e8");
  });
  it("differs for different observations", () => {
    expect(fingerprintObservation("22 °C")).not.toBe(fingerprintObservation("23 °C"));
  });
});
