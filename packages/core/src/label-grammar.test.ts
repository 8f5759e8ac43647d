import { createReActLabelSet, matchReActLabel } from "./label-grammar";

describe("matchReActLabel", () => {
  describe("with the default labels", () => {
    it.each([
      ["Action: search", "action", " search"],
      ["action input: Paris", "action_input", " Paris"],
      ["**Action:** search", "action", " search"],
      ["**Action**: search", "action", " search"],
      ["## Thought", undefined, undefined],
      ["Action 2: lookup", "action", " lookup"],
      ["Final Answer：42", "final_answer", "42"],
      ["  > Observation: done", "observation", " done"],
      ["Action_Input: x", "action_input", " x"],
      ["Actions are great: yes", undefined, undefined],
      ["Action 1 Input: \"tallest\"", "action_input", " \"tallest\""],
      ["FinalAnswer: 10:00", "final_answer", " 10:00"],
      ["1. Thought: first", "thought", " first"],
      ["## action input:", "action_input", ""],
      ["Action：get_weather", "action", "get_weather"],
      ["12345", undefined, undefined],
      ["The Action: x", undefined, undefined],
      ["**Action Input: moose facts**", "action_input", " moose facts"],
      ["__Thought: hmm__  ", "thought", " hmm"],
      ["*Action: search*", "action", " search"],
      ["Action Input: ** bold-looking words", "action_input", " ** bold-looking words"],
      ["**Action Input: a ** b", "action_input", " a ** b"],
    ])("reads %j", (line, label, value) => {
      const match = matchReActLabel(line);
      expect(match?.label).toBe(label);
      expect(match?.value).toBe(value);
    });

    it("reports the step number written inside or after the label", () => {
      expect(matchReActLabel("Action 1 Input: x")?.stepNumber).toBe(1);
      expect(matchReActLabel("Thought 3: x")?.stepNumber).toBe(3);
    });

    it("prefers the longest label word", () => {
      expect(matchReActLabel("Action Input: 3")?.label).toBe("action_input");
    });

    it("scans a hostile line in linear time without matching", () => {
      expect(matchReActLabel(`Action${" ".repeat(100000)}x`)).toBeUndefined();
    });
  });

  describe("with custom labels", () => {
    it("accepts Chinese labels", () => {
      const labels = createReActLabelSet({ thought: ["思考"], action: ["行动"], final_answer: ["最终答案"] });
      expect(matchReActLabel("行动：搜索", labels)).toMatchObject({ label: "action", value: "搜索" });
      expect(matchReActLabel("最终答案: 好", labels)).toMatchObject({ label: "final_answer", value: " 好" });
    });
  });
});
