import { resolveHardenedReActOutputParserOptions } from "./options";
import { RepairLog, type Work } from "./react-step";
import { findToolCallTag } from "./tool-call-tags";

function work(): Work {
  return { config: resolveHardenedReActOutputParserOptions({ toolNames: ["search", "read_file"] }).reader, repairs: new RepairLog(), thought: "", cutContinuation: false };
}

describe("findToolCallTag", () => {
  it.each([
    ["Hermes JSON", '<tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call>', { tool: "search", input: { q: "x" }, hasInput: true }],
    ["Qwen function= with parameters", "<function=read_file>\n<parameter=path>\n/a\n</parameter>\n<parameter=lines>\n3\n</parameter>\n</function>", { tool: "read_file", input: { path: "/a", lines: 3 }, hasInput: true }],
    ["invoke inside function_calls", '<function_calls><invoke name="search"><parameter name="q">x</parameter></invoke></function_calls>', { tool: "search", input: { q: "x" }, hasInput: true }],
    ["a name attribute and a text body", '<tool_call name="search">weather</tool_call>', { tool: "search", input: "weather", hasInput: true }],
    ["child tags", "<action><name>search</name><input>weather</input></action>", { tool: "search", input: "weather", hasInput: true }],
    ["an OpenAI function wrapper", '<tool_call>{"function": {"name": "search", "arguments": "{}"}}</tool_call>', { tool: "search", input: "{}", hasInput: true }],
  ])("reads %s", (_shape, text, expected) => {
    expect(findToolCallTag(work(), text)).toEqual(expected);
  });

  it("takes the first of several calls and reports the rest", () => {
    const state = work();
    expect(findToolCallTag(state, '<tool_call>{"name": "search", "arguments": {"q": 1}}</tool_call><tool_call>{"name": "search", "arguments": {"q": 2}}</tool_call>')).toMatchObject({ input: { q: 1 } });
    expect(state.repairs.items).toEqual(["tool_call_tag", "extra_actions_ignored"]);
  });

  it.each([["no tags", "just prose"], ["a tag with no call", "<tools>none</tools>"], ["a lone angle bracket", "a < b"]])("finds nothing in %s", (_shape, text) => {
    expect(findToolCallTag(work(), text)).toBeUndefined();
  });
});
