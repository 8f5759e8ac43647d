import { shortenString } from "./render";

describe("shortenString", () => {
  describe("when the cut would save less than its marker costs", () => {
    it("keeps a 66-character title whole at a 40-character limit", () => {
      const title = "fix(core): handle empty tool_calls array in AIMessageChunk concat";
      expect(shortenString(title, 40)).toBe(title);
    });
  });

  describe("when the cut saves characters", () => {
    it("keeps head and tail around the marker and is shorter than the text", () => {
      const text = `${"a".repeat(300)}END`;
      const shortened = shortenString(text, 40);
      expect(shortened).toMatch(/^a+ \[\d+ characters omitted\] a*END$/);
      expect(shortened.length).toBeLessThan(text.length);
    });

    it("never returns more than the limit plus the marker and its spaces", () => {
      for (let length = 1; length < 400; length += 7) {
        const text = "x".repeat(length);
        const bound = 40 + `[${length} characters omitted]`.length + 2;
        expect(shortenString(text, 40).length).toBeLessThanOrEqual(Math.max(bound, 40));
      }
    });
  });
});
