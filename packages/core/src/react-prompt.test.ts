import { PromptTemplate } from "@langchain/core/prompts";
import { matchReActLabel } from "./label-grammar";
import { REACT_PROMPT_TEMPLATE } from "./react-prompt";

describe("REACT_PROMPT_TEMPLATE", () => {
  describe("as a LangChain PromptTemplate", () => {
    it("has the variables the stock createReactAgent fills", () => {
      expect(PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE).inputVariables.sort()).toEqual(["agent_scratchpad", "input", "tool_names", "tools"]);
    });
  });

  describe("with the label grammar", () => {
    it("uses the labels the grammar reads, in the ReAct order", () => {
      const labels = REACT_PROMPT_TEMPLATE.split("\n")
        .map((line) => matchReActLabel(line)?.label)
        .filter((label) => label !== undefined);
      expect(labels.slice(0, 6)).toEqual(["question", "thought", "action", "action_input", "observation", "thought"]);
      expect(labels).toContain("final_answer");
    });
  });
});
