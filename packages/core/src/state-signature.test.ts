import { createStateSigner, MIN_STATE_KEY_CHARS, resolveStateKeys, STATE_KEY_ENV, StateKeyError } from "./state-signature";

const KEY_A = "a".repeat(MIN_STATE_KEY_CHARS);
const KEY_B = "b".repeat(MIN_STATE_KEY_CHARS + 8);

describe("resolveStateKeys", () => {
  describe("from the option", () => {
    it("uses one key as given, and a list in order", () => {
      expect(resolveStateKeys(` ${KEY_A} `, undefined)).toEqual([` ${KEY_A} `]);
      expect(resolveStateKeys([KEY_B, KEY_A], undefined)).toEqual([KEY_B, KEY_A]);
    });

    it("wins over the environment variable", () => {
      expect(resolveStateKeys(KEY_A, KEY_B)).toEqual([KEY_A]);
    });

    it("rejects a short key with an error naming the source and the minimum", () => {
      expect(() => resolveStateKeys("short-key", undefined)).toThrow(StateKeyError);
      expect(() => resolveStateKeys("short-key", undefined)).toThrow(/stateKey: must be at least 32 characters \(got 9\)/);
      expect(() => resolveStateKeys([KEY_A, "x"], undefined)).toThrow(/stateKey\[1\]/);
      expect(() => resolveStateKeys([], undefined)).toThrow(/at least one key/);
    });
  });

  describe("from REINS_STATE_KEY", () => {
    it("splits a comma-separated rotation list", () => {
      expect(resolveStateKeys(undefined, `${KEY_B}, ${KEY_A}`)).toEqual([KEY_B, KEY_A]);
    });

    it("is unset when empty, and names the variable and entry of a short key", () => {
      expect(resolveStateKeys(undefined, "")).toBeUndefined();
      expect(resolveStateKeys(undefined, undefined)).toBeUndefined();
      expect(() => resolveStateKeys(undefined, `${KEY_A},tooshort`)).toThrow(`${STATE_KEY_ENV} (entry 2)`);
    });
  });
});

describe("createStateSigner", () => {
  describe("signing and verifying", () => {
    it("verifies a value read back with another key order, and refuses any change", () => {
      const signer = createStateSigner([KEY_A]);
      const signature = signer.sign({ runId: "r1", modelCalls: 3, steps: [{ key: "k" }] });
      expect(signature).toMatch(/^hs256:[A-Za-z0-9_-]{43}$/);
      expect(signer.verify({ steps: [{ key: "k" }], modelCalls: 3, runId: "r1" }, signature)).toBe(true);
      expect(signer.verify({ steps: [], modelCalls: 3, runId: "r1" }, signature)).toBe(false);
      expect(signer.verify({ steps: [{ key: "k" }], modelCalls: 0, runId: "r1" }, signature)).toBe(false);
      expect(signer.verify({ steps: [{ key: "k" }], modelCalls: 3, runId: "r1" }, signature.slice(0, -2))).toBe(false);
      expect(signer.verify({ runId: "r1" }, undefined)).toBe(false);
      expect(signer.verify({ runId: "r1" }, 42)).toBe(false);
    });
  });

  describe("rotation", () => {
    it("signs with the first key and verifies with every key", () => {
      const old = createStateSigner([KEY_A]);
      const rotated = createStateSigner([KEY_B, KEY_A]);
      const value = { runId: "r2" };
      expect(rotated.verify(value, old.sign(value))).toBe(true);
      expect(rotated.sign(value)).not.toBe(old.sign(value));
      expect(old.verify(value, rotated.sign(value))).toBe(false);
      expect(createStateSigner([KEY_B]).verify(value, old.sign(value))).toBe(false);
    });
  });
});
