import { tool } from "@langchain/core/tools";
import fc from "fast-check";
import { z } from "zod";
import { OutputParserException } from "@langchain/core/output_parsers";
import { ReActFormatError } from "./errors";
import { HardenedReActOutputParser } from "./hardened-react-output-parser";

/**
 * Inputs built to make backtracking parsers blow up (LangChain's own regex takes minutes on
 * "Action:" + 10 000 spaces). These tests assert what the parser returns on them; how fast it does
 * so is measured by examples/bench/parser-bench.ts, not here.
 */

const MEGABYTE = 1_000_000;
const objectTool = tool(async () => "ok", { name: "lookup", description: "lookup", schema: z.object({ key: z.string() }) });
const parser = new HardenedReActOutputParser({ toolNames: ["search"], tools: [objectTool] });

describe("HardenedReActOutputParser", () => {
  describe("on 1 MB hostile inputs", () => {
    it.each([
      ["whitespace after Action:", `Action:${" ".repeat(MEGABYTE)}`, "empty_tool_name"],
      ["whitespace after Action: then a word", `Action:${" ".repeat(MEGABYTE)}search`, "missing_action_input"],
      ["10^5 Action: lines", "Action: search\n".repeat(100_000), "missing_action_input"],
      ["10^5 empty Action: lines", "Action:\n".repeat(100_000), "empty_tool_name"],
      ["10^5 Thought: lines", "Thought: hmm\n".repeat(100_000), "too_many_labels"],
      ["10^5 echoed Observation: lines", "Observation: x\n".repeat(100_000), "too_many_labels"],
      ["unbalanced opening braces", `Action: lookup\nAction Input: ${"{".repeat(MEGABYTE)}`, "invalid_json_input"],
      ["unbalanced quotes in JSON", `Action: lookup\nAction Input: {"key": "${'"'.repeat(MEGABYTE)}`, "truncated_input"],
      ["an unterminated JSON string", `Action: lookup\nAction Input: {"key": "${"x".repeat(MEGABYTE)}`, "truncated_input"],
      ["only opening braces", "{".repeat(MEGABYTE), "missing_action"],
      ["only opening brackets", "[".repeat(MEGABYTE), "missing_action"],
      ["an unclosed reasoning tag", `<think>${"Action: search\n".repeat(50_000)}`, "reasoning_only"],
      ["a huge Action line", `Action: ${"x ".repeat(MEGABYTE / 2)}`, "unknown_tool"],
      ["a megabyte of unlabelled prose cut off mid-sentence", "I will search ".repeat(MEGABYTE / 14), "missing_action"],
      ["prose naming the labels mid-line", "Please give an Action and an Action Input. ".repeat(MEGABYTE / 44), "missing_action"],
      ["10^5 Final Answer: lines then an action", `${"Final Answer: x\n".repeat(100_000)}Action: search\nAction Input: y`, "too_many_labels"],
      ["10^5 unlabelled lines after a Thought", `Thought: x\n${"then some more text\n".repeat(50_000)}`, "missing_action"],
      ["10^5 unclosed <tool_call> tags", "<tool_call>".repeat(90_000), "missing_action"],
      ["tool-call tags with attributes and no >", '<tool_call name="lookup" '.repeat(40_000), "missing_action"],
      ["10^5 harmony analysis messages", "<|start|>assistant<|channel|>analysis<|message|>x<|end|>".repeat(18_000), "reasoning_only"],
      ["10^5 loose - Input: bullets", "- Input: x\n".repeat(100_000), "too_many_labels"],
      ["10^5 lines of unconfigured Chinese labels", "思考：x\n".repeat(150_000), "missing_action"],
      ["an input fence never closed", `Action: search\nAction Input:\n\`\`\`\n${"x\n".repeat(MEGABYTE / 2)}`, "truncated_input"],
      ["a JSON object cut off with an inner object open", `Action: lookup\nAction Input: {"key": {"a": ${"1, ".repeat(MEGABYTE / 3)}`, "truncated_input"],
    ])("rejects %s with a corrective message", (_shape, text, reason) => {
      const report = parser.parseDetailed(text);
      expect(report).toMatchObject({ ok: false, reason });
      if (!report.ok) expect(report.observation.length).toBeLessThan(2_000);
    });

    it("splits Action and Action Input written on one line a megabyte apart", () => {
      const report = parser.parseDetailed(`Action: search${" ".repeat(MEGABYTE)}Action Input: x`);
      expect(report).toMatchObject({ ok: true, result: { tool: "search", toolInput: "x" } });
    });

    it("accepts a huge well-formed string input", () => {
      const input = "y".repeat(MEGABYTE);
      const report = parser.parseDetailed(`Action: search\nAction Input: ${input}`);
      expect(report).toMatchObject({ ok: true, result: { tool: "search", toolInput: input } });
    });

    it("accepts a huge well-formed JSON input", () => {
      const value = "z".repeat(MEGABYTE);
      const report = parser.parseDetailed(`Action: lookup\nAction Input: {"key": "${value}"}`);
      expect(report).toMatchObject({ ok: true, result: { tool: "lookup", toolInput: { key: value } } });
    });

    it("keeps the first action when a million lines of invented continuation follow", () => {
      const text = `Action: search\nAction Input: x\n${"Observation: y\nThought: z\nAction: search\nAction Input: w\n".repeat(20_000)}`;
      expect(parser.parseDetailed(text)).toMatchObject({ ok: true, result: { tool: "search", toolInput: "x" } });
    });
  });

  describe("on values that are not text", () => {
    const throwingToString = { toString: (): string => { throw new Error("toString failed"); } };
    it.each([
      ["undefined", undefined],
      ["null", null],
      ["a number", 42],
      ["an object", { text: "Action: search" }],
      ["an array", ["Action: search"]],
      ["a symbol", Symbol("reply")],
      ["a bigint", 10n],
      ["a function", () => "Action: search"],
      ["an object whose toString throws", throwingToString],
      ["an object without a prototype", Object.create(null) as object],
    ])("rejects %s with a ReActFormatError (not_text), never another exception", async (_shape, value) => {
      const rejection = await parser.parse(value as unknown as string).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(ReActFormatError.isInstance(rejection)).toBe(true);
      expect(rejection).toBeInstanceOf(OutputParserException);
      expect(rejection).toMatchObject({ reason: "not_text", sendToLLM: true });
    });
  });

  describe("on text with lone surrogates and NUL bytes", () => {
    it.each([
      ["a lone high surrogate as the Action", "Action: \ud800\nAction Input: x"],
      ["lone surrogates only", "\udfff\ud800".repeat(50_000)],
      ["NUL bytes in the labels", "Act\u0000ion: search\nAction Input: x"],
      ["NUL bytes only", "\u0000".repeat(100_000)],
      ["a lone surrogate inside JSON", 'Action: lookup\nAction Input: {"key": "\ud83d"}'],
    ])("returns a result or a ReActFormatError for %s", async (_shape, text) => {
      const outcome = await parser.parse(text).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      if ("error" in outcome) expect(ReActFormatError.isInstance(outcome.error)).toBe(true);
      else expect(outcome.result).toHaveProperty("log", text);
    });

    it("keeps a lone surrogate in a string input as written", async () => {
      await expect(parser.parse("Action: search\nAction Input: caf\ud800")).resolves.toMatchObject({ tool: "search", toolInput: "caf\ud800" });
    });
  });

  describe("on arbitrary text", () => {
    const pieces = ["Thought:", "Action:", "Action Input:", "Observation:", "Final Answer:", "Question:", "search", "lookup", "{", "}", "[", "]", '"', "'", "```", "\n", " ", "<think>", "</think>", "None", "x", "：", "**"];

    it("returns a result or a corrective ReActFormatError, never anything else", () => {
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 60 }), (parts) => {
          const report = parser.parseDetailed(parts.join(""));
          if (report.ok) {
            if ("tool" in report.result) expect(["search", "lookup"]).toContain(report.result.tool);
            else expect(String(report.result.returnValues.output).trim().length).toBeGreaterThan(0);
          } else {
            expect(report.error.sendToLLM).toBe(true);
            expect(report.observation.length).toBeGreaterThan(20);
          }
        }),
        { numRuns: 500 },
      );
    });

    it("gives object-schema tools only objects and string tools only strings", () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 80 }), fc.constantFrom("search", "lookup"), (input, toolName) => {
          const report = parser.parseDetailed(`Action: ${toolName}\nAction Input: ${input}`);
          if (report.ok && "tool" in report.result) {
            if (report.result.tool === "lookup") expect(typeof report.result.toolInput).toBe("object");
            else expect(typeof report.result.toolInput).toBe("string");
          }
        }),
        { numRuns: 500 },
      );
    });
  });
});
