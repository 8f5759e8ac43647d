import { OutputParserException } from "@langchain/core/output_parsers";
import { neutralizeUntrustedText } from "@reins/core";
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
  it.each(table.filter(([, testCase]) => !("answer" in testCase.expected)))("makes %s unreadable as a call in tool output", (_name, testCase) => {
    const neutralized = neutralizeUntrustedText(testCase.text).text;
    expect(neutralized).not.toBe(testCase.text);
    const read = readWrittenToolCalls(neutralized, { toolNames: tools.map((item) => item.name) });
    expect(read.calls).toEqual([]);
    // Idempotent: neutralising twice changes nothing more.
    expect(neutralizeUntrustedText(neutralized).text).toBe(neutralized);
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
