import { DEFAULT_REACT_LABELS } from "@reins/core";
import { cutPartialStopLabel, readHarmony, removeLeftoverTokens } from "./special-tokens";

describe("readHarmony", () => {
  it("reads analysis, the first call and counts the others", () => {
    const text = "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>commentary to=functions.a <|constrain|>json<|message|>{}<|call|><|start|>assistant<|channel|>commentary to=functions.b<|message|>{}<|call|>";
    expect(readHarmony(text)).toEqual({ analysis: "think", call: { name: "a", input: "{}" }, extraCalls: 1, final: undefined, rest: "" });
  });

  it("reads the final channel", () => {
    expect(readHarmony("<|start|>assistant<|channel|>final<|message|>Hi.<|return|>")).toMatchObject({ final: "Hi." });
  });

  it("reads fused text and leaves other text alone", () => {
    expect(readHarmony("analysisok.assistantfinalDone.")).toMatchObject({ analysis: "ok.", final: "Done." });
    expect(readHarmony("An analysis of the assistantfinal word")).toBeUndefined();
  });
});

describe("removeLeftoverTokens", () => {
  it("removes end tokens of other families", () => {
    expect(removeLeftoverTokens("search<|eot_id|> x</s>")).toEqual({ text: "search x", removed: true });
    expect(removeLeftoverTokens("a < b")).toEqual({ text: "a < b", removed: false });
  });
});

describe("cutPartialStopLabel", () => {
  it.each([["x\nObs", "x\n"], ["x\nObserv", "x\n"], ["x\nObservation  \n", "x\n"], ["x\nObtain", undefined], ["Obs", undefined], ["x\nOb", undefined]])("cuts %j", (text, expected) => {
    expect(cutPartialStopLabel(text, DEFAULT_REACT_LABELS)).toBe(expected);
  });
});
