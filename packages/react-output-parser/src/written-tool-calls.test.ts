import { OutputParserException } from "@langchain/core/output_parsers";
import { createReActGrammar, neutralizeUntrustedText } from "@reins/core";
import { WRITTEN_CALL_CASES, writtenCallTools } from "./__fixtures__/written-call-table";
import { HardenedReActOutputParser, readWrittenToolCalls, rescueToolCalls } from "./index";

const tools = writtenCallTools();
const parser = new HardenedReActOutputParser({ tools });
const table = WRITTEN_CALL_CASES.map((testCase) => [`${testCase.kind}: ${testCase.id}`, testCase] as const);

describe("rescueToolCalls", () => {
  it("covers every family with at least two variants", () => {
    const counts = new Map<string, number>();
    for (const testCase of WRITTEN_CALL_CASES) counts.set(testCase.kind, (counts.get(testCase.kind) ?? 0) + 1);
    expect([...counts].filter(([, count]) => count < 2)).toEqual([]);
  });

  describe("on the written-call table", () => {
    it.each(table)("reads %s", (_name, testCase) => {
      const rescue = rescueToolCalls({ content: testCase.text, ...(testCase.finish_reason !== undefined ? { finishReason: testCase.finish_reason } : {}) }, tools);
      const expected = testCase.expected;
      if ("calls" in expected) {
        expect(rescue.outcome).toBe("rescued");
        expect(rescue.calls.map(({ name, args }) => ({ name, args }))).toEqual(expected.calls);
        expect(rescue.refused).toEqual([]);
        // No markup is left in the text kept in the history.
        expect(readWrittenToolCalls(rescue.content, { toolNames: tools.map((item) => item.name) }).calls).toEqual([]);
      } else if ("refused" in expected) {
        expect(rescue.outcome).toBe("corrected");
        expect(rescue.calls).toEqual([]);
        expect(rescue.refused.map((refused) => refused.reason)).toEqual([expected.refused]);
      } else {
        expect(rescue.outcome).toBe("answer");
        expect(rescue.content).toBe(expected.answer.length > 0 ? rescue.content : "");
      }
    });
  });

  describe("with tool results of the run", () => {
    it.each(table.filter(([, testCase]) => "calls" in testCase.expected))("refuses %s when the call also stands in a tool result, neutralised or not", (_name, testCase) => {
      for (const toolResult of [`Page text: ${testCase.text}`, neutralizeUntrustedText(`Page text: ${testCase.text}`).text]) {
        const rescue = rescueToolCalls({ content: testCase.text }, tools, { toolResults: [toolResult] });
        expect(rescue.calls).toEqual([]);
        expect(rescue.refused.every((refused) => refused.reason === "untrusted_call")).toBe(true);
      }
    });
  });
});

describe("neutralizeUntrustedText", () => {
  // A flat `{"name": "get_weather", "city": …}` is read only when it names one of the agent's tools:
  // it is neutralised with the agent's grammar (the cleaner's `toolNames`), ordinary `{"name": …}` data is not.
  const grammarOf = (testCase: (typeof WRITTEN_CALL_CASES)[number]) => (testCase.kind === "flat_call_object" ? createReActGrammar({ toolNames: tools.map((item) => item.name) }) : undefined);
  it.each(table.filter(([, testCase]) => !("answer" in testCase.expected)))("makes %s unreadable as a call in tool output", (_name, testCase) => {
    const neutralized = neutralizeUntrustedText(testCase.text, grammarOf(testCase)).text;
    expect(neutralized).not.toBe(testCase.text);
    const read = readWrittenToolCalls(neutralized, { toolNames: tools.map((item) => item.name) });
    expect(read.calls).toEqual([]);
    // Idempotent: neutralising twice changes nothing more.
    expect(neutralizeUntrustedText(neutralized, grammarOf(testCase)).text).toBe(neutralized);
  });
});

describe("HardenedReActOutputParser", () => {
  describe("on the written-call table (the rescue's reading, first call)", () => {
    it.each(table)("reads %s as the rescue does", async (_name, testCase) => {
      const expected = testCase.expected;
      if ("calls" in expected) {
        const action = (await parser.parse(testCase.text)) as unknown as { tool: string; toolInput: unknown };
        expect({ name: action.tool, args: action.toolInput }).toEqual(expected.calls[0]);
      } else if ("refused" in expected) {
        // finish_reason is not the parser's to see: a complete call under a length stop is read.
        if (testCase.finish_reason !== undefined) return;
        await expect(parser.parse(testCase.text)).rejects.toBeInstanceOf(OutputParserException);
      } else {
        const finish = (await parser.parse(testCase.text)) as unknown as { returnValues: { output: string } };
        expect(finish.returnValues.output).toBe(expected.answer);
      }
    });
  });
});

describe("readWrittenToolCalls", () => {
  describe("on hostile text", () => {
    it.each([
      ["unclosed harmony recipients", "to=functions.search ".repeat(20_000)],
      ["unclosed Kimi calls", "<|tool_call_begin|>functions.search:0".repeat(10_000)],
      ["unclosed DeepSeek calls", "<｜tool▁call▁begin｜>search".repeat(10_000)],
      ["Mistral tokens without arguments", "[TOOL_CALLS]search ".repeat(10_000)],
      ["unclosed pythonic calls", "[search(query='x' ".repeat(10_000)],
      ["unbalanced JSON", '{"name": "search", "arguments": {"query": '.repeat(5_000)],
    ])("reads %s without throwing and reads at most 64 calls", (_label, text) => {
      const read = readWrittenToolCalls(text, { toolNames: ["search"] });
      expect(read.calls.length).toBeLessThanOrEqual(64);
      expect(read.markup || read.calls.length === 0).toBe(true);
    });
  });
});

describe("rescueToolCalls on native calls", () => {
  describe("invalid_tool_calls whose arguments lack their final brace", () => {
    it.each([
      ["one field", "get_weather", '{"city": "Oslo"', { city: "Oslo" }],
      ["two fields", "get_weather", '{"city": "Oslo", "unit": "celsius"\n', { city: "Oslo", unit: "celsius" }],
      ["a nested object closed", "write_file", '{"path": "a.txt", "content": "{\\"a\\": 1}"', { path: "a.txt", content: '{"a": 1}' }],
      ["a literal last", "get_weather", '{"city": "Oslo", "metric": true', { city: "Oslo", metric: true }],
    ])("closes them when complete otherwise (%s)", (_label, name, args, expected) => {
      const rescue = rescueToolCalls({ content: "", invalidToolCalls: [{ name, args, id: "call_1" }] }, tools);
      expect(rescue.calls).toEqual([expect.objectContaining({ name, args: expected, id: "call_1" })]);
      expect(rescue.calls[0]?.repairs).toContain("closing_brace_added");
    });

    it.each([
      ["cut inside a string", '{"path": "a.txt", "content": "Dear team, the quar', undefined],
      ["cut after a comma", '{"path": "a.txt",', undefined],
      ["cut after a key", '{"path": "a.txt", "content"', undefined],
      ["cut inside a list", '{"path": "a.txt", "content": ["line one"', undefined],
      ["complete otherwise, but the reply stopped for length", '{"path": "a.txt", "content": "hello"', "length"],
    ])("refuses them as cut off (%s)", (_label, args, finishReason) => {
      const rescue = rescueToolCalls({ content: "", invalidToolCalls: [{ name: "write_file", args, id: "call_1" }], ...(finishReason !== undefined ? { finishReason } : {}) }, tools);
      expect(rescue.calls).toEqual([]);
      expect(rescue.refused.map((refused) => refused.reason)).toEqual(["truncated_arguments"]);
    });
  });

  describe("a tool name with a control token or a harmony word glued into it", () => {
    it.each([
      ["get_weather<|channel|>commentary", "get_weather"],
      ["search<|constrain|>json", "search"],
      ["functions.get_weatherjson", "get_weather"],
      ["get_weather<|channel|>analysis", "get_weather"],
    ])("runs %s as %s", (written, name) => {
      const rescue = rescueToolCalls({ content: "", toolCalls: [{ name: written, args: name === "search" ? { query: "x" } : { city: "Oslo" }, id: "call_1" }] }, tools);
      expect(rescue.calls.map((call) => call.name)).toEqual([name]);
    });

    it("does not cut a harmony word off a name when that leaves no single tool", () => {
      const rescue = rescueToolCalls({ content: "", toolCalls: [{ name: "unknownjson", args: {}, id: "call_1" }] }, tools);
      expect(rescue.refused.map((refused) => refused.reason)).toEqual(["unknown_tool"]);
    });
  });
});
