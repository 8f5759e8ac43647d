import { Tiktoken } from "js-tiktoken/lite";
import cl100kBase from "js-tiktoken/ranks/cl100k_base";
import { countTokensCl100k } from "./tokens";

const reference = new Tiktoken(cl100kBase);

describe("countTokensCl100k", () => {
  describe("on ordinary text", () => {
    it("gives exactly js-tiktoken's count, also for text longer than one chunk", () => {
      const text = Array.from({ length: 600 }, (_, index) => `Paragraph ${index}: São Paulo had 19.28 °C, "broken clouds".`).join("\n");
      expect(text.length).toBeGreaterThan(20_000);
      expect(countTokensCl100k(text)).toBe(reference.encode(text, [], []).length);
    });

    it("counts special-token text as plain text instead of throwing", () => {
      expect(countTokensCl100k("<|endoftext|>")).toBeGreaterThan(1);
    });
  });

  describe("on long unbroken runs (where js-tiktoken is quadratic)", () => {
    it("counts a 200 000-character run in slices, close to one token per few characters", () => {
      const run = "Zm9vYmFy".repeat(25_000);
      const count = countTokensCl100k(run);
      expect(count).toBeGreaterThan(run.length / 8);
      expect(count).toBeLessThanOrEqual(run.length);
    });
  });
});
