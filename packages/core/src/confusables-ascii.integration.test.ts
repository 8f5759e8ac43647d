import { execFileSync } from "node:child_process";
import path from "node:path";
import { asciiConfusableOf } from "./confusables-ascii";

const REPO_ROOT = path.resolve(__dirname, "../../..");

describe("asciiConfusableOf", () => {
  describe("the committed table", () => {
    it("is what scripts/generate-confusables.mjs makes from unhomoglyph's data", () => {
      expect(() => execFileSync(process.execPath, [path.join(REPO_ROOT, "scripts/generate-confusables.mjs"), "--check"], { cwd: REPO_ROOT, stdio: "pipe" })).not.toThrow();
    });

    it.each([
      ["Cyrillic a", 0x0430, "a"],
      ["Greek capital alpha", 0x0391, "A"],
      ["Cyrillic capital Byelorussian-Ukrainian I", 0x0406, "I"],
      ["ratio", 0x2236, ":"],
    ])("maps %s to its ASCII prototype", (_what, codePoint, prototype) => {
      expect(asciiConfusableOf(codePoint)).toBe(prototype);
    });

    it("leaves Reins' marks and characters without an ASCII prototype unmapped", () => {
      for (const codePoint of [0x00ab, 0x00bb, 0x2039, 0x203a, 0x6771]) expect(asciiConfusableOf(codePoint)).toBeUndefined();
    });
  });
});
