// Argument names a tool does not take (`city_name` for `city`) get a correction naming them and
// the expected ones, on both readers (the ReAct parser, the createAgent tool-call repair) and for
// every schema kind, also where the schema would strip them silently; open schemas take them.
import { OutputParserException } from "@langchain/core/output_parsers";
import { z } from "zod/v4";
import { z as z3 } from "zod/v3";
import { HardenedReActOutputParser } from "./hardened-react-output-parser";
import { repairToolCall } from "./tool-call-repair";
import { unknownArgumentNames, describeToolInput } from "./tool-schema";

/** `get_weather(city, days?)` declared in each schema kind the readers understand. */
const CLOSED_SCHEMAS: ReadonlyArray<readonly [string, unknown]> = [
  ["zod v4 object (strips unknown keys)", z.object({ city: z.string(), days: z.number().optional() })],
  ["zod v3 object (strips unknown keys)", z3.object({ city: z3.string(), days: z3.number().optional() })],
  ["zod v4 strictObject", z.strictObject({ city: z.string(), days: z.number().optional() })],
  ["JSON schema without additionalProperties", { type: "object", properties: { city: { type: "string" }, days: { type: "number" } }, required: ["city"] }],
  ["JSON schema with additionalProperties: false", { type: "object", properties: { city: { type: "string" }, days: { type: "number" } }, required: ["city"], additionalProperties: false }],
];

const OPEN_SCHEMAS: ReadonlyArray<readonly [string, unknown]> = [
  ["zod v4 looseObject", z.looseObject({ city: z.string(), days: z.number().optional() })],
  ["zod v4 .catchall()", z.object({ city: z.string(), days: z.number().optional() }).catchall(z.unknown())],
  ["zod v3 .passthrough()", z3.object({ city: z3.string(), days: z3.number().optional() }).passthrough()],
  ["JSON schema with additionalProperties: true", { type: "object", properties: { city: { type: "string" }, days: { type: "number" } }, required: ["city"], additionalProperties: true }],
  ["JSON schema with additionalProperties as a schema", { type: "object", properties: { city: { type: "string" }, days: { type: "number" } }, required: ["city"], additionalProperties: { type: "string" } }],
];

/** Arguments with a wrong name: standing in for the required field, or beside it (the schema would drop it). */
const WRONG_ARGUMENTS: ReadonlyArray<readonly [string, Record<string, unknown>, readonly string[]]> = [
  ["city_name for the required city", { city_name: "Oslo" }, ["city_name"]],
  ["day_count beside the required city", { city: "Oslo", day_count: "3" }, ["day_count"]],
  ["two wrong names", { location: "Oslo", num_days: "2" }, ["location", "num_days"]],
];

/** Every ReAct shape whose input is an object the parser checks against the tool's schema. */
const REACT_SHAPES: ReadonlyArray<readonly [string, (args: Record<string, unknown>) => string]> = [
  ["Action / Action Input", (args) => `Thought: check\nAction: get_weather\nAction Input: ${JSON.stringify(args)}`],
  ["a fenced Action Input", (args) => `Thought: check\nAction: get_weather\nAction Input: \`\`\`json\n${JSON.stringify(args)}\n\`\`\``],
  ["a JSON action blob", (args) => `\`\`\`json\n${JSON.stringify({ action: "get_weather", action_input: args })}\n\`\`\``],
  ["a blob on the Action line", (args) => `Action: ${JSON.stringify({ name: "get_weather", args })}`],
  ["a <tool_call> tag", (args) => `<tool_call>\n${JSON.stringify({ name: "get_weather", arguments: args })}\n</tool_call>`],
];

/** The tool as the parser reads it (`{ name, schema }`, as a LangChain tool exposes them). */
function toolWith(schema: unknown): { name: string; schema: unknown } {
  return { name: "get_weather", schema };
}

async function parseOutcome(parser: HardenedReActOutputParser, text: string): Promise<{ toolInput?: unknown; observation?: string }> {
  try {
    const result = await parser.parse(text);
    return "tool" in result ? { toolInput: result.toolInput } : { observation: `finish: ${String(result.returnValues.output)}` };
  } catch (error) {
    if (error instanceof OutputParserException) return { observation: String(error.observation) };
    throw error;
  }
}

describe("argument names a tool does not take", () => {
  describe.each(CLOSED_SCHEMAS)("with a %s", (_schemaKind, schema) => {
    describe.each(WRONG_ARGUMENTS)("%s", (_case, args, wrong) => {
      it.each(REACT_SHAPES)("the ReAct parser answers %s with a correction naming them and the expected ones", async (_shape, write) => {
        const parser = new HardenedReActOutputParser({ tools: [toolWith(schema)] });
        const outcome = await parseOutcome(parser, write(args));
        expect(outcome.toolInput).toBeUndefined();
        expect(outcome.observation).toContain("does not take");
        for (const name of wrong) expect(outcome.observation).toContain(JSON.stringify(name));
        expect(outcome.observation).toContain('"city" (required)');
        expect(outcome.observation).toContain('"days"');
      });

      it.each([
        ["native args (an object)", args],
        ["invalid_tool_calls args (a JSON string)", JSON.stringify(args)],
      ])("repairToolCall refuses %s with a correction naming them and the expected ones", (_shape, written) => {
        const result = repairToolCall({ name: "get_weather", args: written }, [{ name: "get_weather", schema }]);
        expect(result).toMatchObject({ ok: false, reason: "unknown_fields", name: "get_weather" });
        if (result.ok) return;
        for (const name of wrong) expect(result.correction).toContain(JSON.stringify(name));
        expect(result.correction).toContain('"city" (required)');
      });
    });

    it("still reads a call with the tool's own names on both readers", async () => {
      const parser = new HardenedReActOutputParser({ tools: [toolWith(schema)] });
      for (const [, write] of REACT_SHAPES) expect((await parseOutcome(parser, write({ city: "Oslo", days: 2 }))).toolInput).toEqual({ city: "Oslo", days: 2 });
      expect(repairToolCall({ name: "get_weather", args: { city: "Oslo", days: 2 } }, [{ name: "get_weather", schema }])).toMatchObject({ ok: true, args: { city: "Oslo", days: 2 } });
    });
  });

  describe.each(OPEN_SCHEMAS)("with a %s (it takes undeclared names)", (_schemaKind, schema) => {
    it("the ReAct parser and repairToolCall accept an extra name beside the required field", async () => {
      const args = { city: "Oslo", note: "x" };
      const parser = new HardenedReActOutputParser({ tools: [toolWith(schema)] });
      for (const [, write] of REACT_SHAPES) expect((await parseOutcome(parser, write(args))).toolInput).toEqual(args);
      expect(repairToolCall({ name: "get_weather", args }, [{ name: "get_weather", schema }])).toMatchObject({ ok: true, args });
    });
  });

  describe("unknownArgumentNames", () => {
    it("passes the ToolExecutor's confirm field and ignores string, no-argument and unreadable schemas", () => {
      const weather = describeToolInput({ name: "get_weather", schema: z.object({ city: z.string() }) });
      expect(unknownArgumentNames(weather, { city: "Oslo", confirm: "ok-12345678" })).toEqual([]);
      expect(unknownArgumentNames(describeToolInput({ name: "search" }), { q: "x" })).toEqual([]);
      expect(unknownArgumentNames(describeToolInput({ name: "now", schema: z.object({}) }), { tz: "UTC" })).toEqual([]);
      expect(unknownArgumentNames(describeToolInput({ name: "any", schema: z.record(z.string(), z.unknown()) }), { anything: 1 })).toEqual([]);
    });
  });
});
