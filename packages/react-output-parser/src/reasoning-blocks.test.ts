import { stripReasoningBlocks } from "./reasoning-blocks";

describe("stripReasoningBlocks", () => {
  it.each([
    ["a complete block", "<think>plan</think>\nAction: x", "\nAction: x", "plan", false, true],
    ["an empty block", "<think>\n\n</think>Final Answer: 1", "Final Answer: 1", "\n\n", false, true],
    ["a closing tag only (the template opened the block)", "plan it\n</think>\nAction: x", "\nAction: x", "plan it\n", false, true],
    ["an unclosed block", "<thinking>plan\nAction: x", "", "plan\nAction: x", true, false],
    ["Kimi's marks", "\u25c1think\u25b7plan\u25c1/think\u25b7Action: x", "Action: x", "plan", false, true],
    ["tags written inside a sentence", "Final Answer: wrap it in <think> and </think> tags", "Final Answer: wrap it in <think> and </think> tags", "", false, false],
  ])("reads %s", (_shape, text, outside, inner, unclosed, removed) => {
    expect(stripReasoningBlocks(text)).toEqual({ text: outside, inner, unclosed, removed });
  });
});
