/**
 * Kinds of ReAct replies the parser reads (issue 36), each with several variants written from the
 * kind's description: a fence closed on the input's last line, a Python repr of the tool's schema
 * pasted as the input, a bare list for a tool with one list field.
 */
import { OutputParserException } from "@langchain/core/output_parsers";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { HardenedReActOutputParser } from "./index";

const tools = [
  tool(async () => "", { name: "search", description: "Search the web", schema: z.object({ query: z.string() }) }),
  tool(async () => "", { name: "get_weather", description: "Weather of a city", schema: z.object({ city: z.string(), unit: z.string().optional() }) }),
  tool(async () => "", { name: "batch_lookup", description: "Look up records", schema: z.object({ ids: z.array(z.string()) }) }),
  tool(async (input: string) => input, { name: "calculator", description: "Evaluates an expression" }),
];
const parser = new HardenedReActOutputParser({ tools });

async function parsed(text: string): Promise<{ tool?: string; toolInput?: unknown; reason?: string }> {
  try {
    const result = (await parser.parse(text)) as { tool?: string; toolInput?: unknown };
    return { tool: result.tool, toolInput: result.toolInput };
  } catch (error) {
    if (!(error instanceof OutputParserException)) throw error;
    return { reason: (error as OutputParserException & { reason?: string }).reason ?? String((error as { observation?: unknown }).observation) };
  }
}

describe("HardenedReActOutputParser", () => {
  describe("with a code fence closed on the input's last line", () => {
    it.each([
      ["json, one line", 'Thought: s\nAction: search\nAction Input: ```json\n{"query": "tides"}```', "search", { query: "tides" }],
      ["json, several lines, then a hallucinated observation", 'Thought: s\nAction: search\nAction Input:\n```json\n{\n  "query": "tides"\n}```\nObservation: high at 6', "search", { query: "tides" }],
      ["a string tool", "Thought: c\nAction: calculator\nAction Input: ```\n2+2```", "calculator", "2+2"],
      ["tildes, trailing blanks", 'Thought: s\nAction: search\nAction Input: ~~~json\n{"query": "tides"} ~~~  ', "search", { query: "tides" }],
    ])("reads the input (%s), not a cut-off one", async (_label, text, name, input) => {
      expect(await parsed(text)).toEqual({ tool: name, toolInput: input });
    });

    it("still refuses a fence cut off inside its value", async () => {
      expect((await parsed('Thought: s\nAction: search\nAction Input: ```json\n{"query": "hello wor')).reason).toMatch(/cut off|truncated/);
    });
  });

  describe("with a Python repr of the tool's schema as the input", () => {
    it.each([
      ["a signature", "Action: search\nAction Input: query: str"],
      ["a class signature with a default", "Action: get_weather\nAction Input: WeatherInput(city: str, unit: Optional[str] = None)"],
      ["pydantic field objects", "Action: search\nAction Input: {'query': FieldInfo(annotation=str, required=True, description='The query')}"],
      ["classes as values", "Action: search\nAction Input: {'query': <class 'str'>}"],
      ["typing names as values", "Action: get_weather\nAction Input: {'city': str, 'unit': typing.Optional[str]}"],
      ["the args_schema", "Action: search\nAction Input: args_schema=<class '__main__.SearchInput'>"],
      ["an optional field as pydantic writes it", "Action: get_weather\nAction Input: {'city': {'title': 'City', 'type': 'string'}, 'unit': {'anyOf': [{'type': 'string'}, {'type': 'null'}], 'default': None, 'title': 'Unit'}}"],
    ])("answers %s with a schema_echo correction, never runs it", async (_label, text) => {
      const result = await parsed(`Thought: I will call it.\n${text}`);
      expect(result.tool).toBeUndefined();
      expect(result.reason).toMatch(/schema_echo|argument schema/);
    });

    it.each([
      ["a query that mentions a type", 'Action: search\nAction Input: {"query": "python typing: Optional[str]"}', { query: "python typing: Optional[str]" }],
      ["a query with a colon", "Action: search\nAction Input: query: best list of things", { query: "query: best list of things" }],
      ["a value that is not a type", "Action: get_weather\nAction Input: city: Paris", undefined],
    ])("does not mistake %s for a schema", async (_label, text, input) => {
      const result = await parsed(`Thought: go\n${text}`);
      if (input !== undefined) expect(result.toolInput).toEqual(input);
      else expect(result.reason ?? "").not.toMatch(/schema_echo|argument schema/);
    });
  });

  describe("with a bare list for a tool with one required list field", () => {
    it.each([
      ["alone", 'Action: batch_lookup\nAction Input: ["a", "b"]'],
      ["with prose around it", 'Action: batch_lookup\nAction Input: The ids are ["a", "b"], both needed.'],
      ["single-quoted", "Action: batch_lookup\nAction Input: ['a', 'b']"],
    ])("reads it as that field (%s)", async (_label, text) => {
      expect(await parsed(`Thought: look up\n${text}`)).toEqual({ tool: "batch_lookup", toolInput: { ids: ["a", "b"] } });
    });

    it("does not give a list to a tool without a list field", async () => {
      expect((await parsed('Thought: s\nAction: get_weather\nAction Input: ["Oslo"]')).tool).toBeUndefined();
    });
  });
});
