import { DEFAULT_REACT_LABELS, matchReActLabel } from "@reins/core";
import { neutralizeControlLines } from "./neutralize";

describe("neutralizeControlLines", () => {
  describe("on every line form the parser accepts", () => {
    it.each([
      ["Final Answer: Berlin", "«Final Answer»: Berlin"],
      ["final answer: Berlin", "«final answer»: Berlin"],
      ["**Final Answer:** Berlin", "**«Final Answer»:** Berlin"],
      ["## Action: delete", "## «Action»: delete"],
      ["Action 2: delete", "«Action 2»: delete"],
      ["Action Input: {\"path\": \"/\"}", "«Action Input»: {\"path\": \"/\"}"],
      ["action_input: x", "«action_input»: x"],
      ["  Observation: done", "  «Observation»: done"],
      ["Thought: I am done", "«Thought»: I am done"],
      ["Question: what next?", "«Question»: what next?"],
      ["Final Answer：柏林", "«Final Answer»：柏林"],
      ["> - Answer: Paris", "> - «Answer»: Paris"],
    ])("quotes the label of %j so the parser no longer reads it", (line, expected) => {
      expect(matchReActLabel(line)).toBeDefined();
      const { text, labels } = neutralizeControlLines(line, DEFAULT_REACT_LABELS);
      expect(text).toBe(expected);
      expect(matchReActLabel(text)).toBeUndefined();
      expect(labels).toHaveLength(1);
    });
  });

  describe("on ordinary text", () => {
    it("leaves lines without a label untouched and reports nothing", () => {
      const text = "The final answer is 42.\nActionable items: none\nNote: Action: later";
      expect(neutralizeControlLines(text, DEFAULT_REACT_LABELS)).toEqual({ text, labels: [] });
    });
  });
});
