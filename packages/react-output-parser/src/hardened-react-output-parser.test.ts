import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import { OutputParserException } from "@langchain/core/output_parsers";
import { DynamicStructuredTool, DynamicTool, tool } from "@langchain/core/tools";
import type { ReinsEvent } from "@reins/core";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { InvalidParserOptionsError, ReActFormatError, ReActOutputParserError } from "./errors";
import { HardenedReActOutputParser } from "./hardened-react-output-parser";
import type { HardenedReActOutputParserOptions } from "./options";

const search = new DynamicTool({ name: "search", description: "web search", func: async (query) => query });
const calculator = new DynamicTool({ name: "Calculator", description: "math", func: async (expression) => expression });
const weather = tool(async () => "sunny", {
  name: "get_weather",
  description: "weather",
  schema: z.object({ city: z.string(), days: z.number().optional() }),
});
const currentTime = tool(async () => "10:00", { name: "current_time", description: "time", schema: z.object({}) });
const lookup = tool(async () => "x", { name: "lookup_order", description: "orders", schema: z.object({ orderId: z.string() }) });

function parserWith(options: HardenedReActOutputParserOptions = {}): HardenedReActOutputParser {
  return new HardenedReActOutputParser({ tools: [search, calculator, weather, currentTime, lookup], ...options });
}

async function parseAction(text: string, options?: HardenedReActOutputParserOptions): Promise<AgentAction> {
  const result = await parserWith(options).parse(text);
  if (!("tool" in result)) throw new Error(`expected an action, got ${JSON.stringify(result)}`);
  return result;
}

async function parseFinish(text: string, options?: HardenedReActOutputParserOptions): Promise<AgentFinish> {
  const result = await parserWith(options).parse(text);
  if ("tool" in result) throw new Error(`expected a finish, got ${JSON.stringify(result)}`);
  return result;
}

async function parseError(text: string, options?: HardenedReActOutputParserOptions): Promise<ReActFormatError> {
  try {
    const result = await parserWith(options).parse(text);
    throw new Error(`expected a rejection, got ${JSON.stringify(result)}`);
  } catch (error) {
    if (!(error instanceof ReActFormatError)) throw error;
    return error;
  }
}

describe("HardenedReActOutputParser", () => {
  describe("accepted action shapes", () => {
    it.each([
      ["canonical labels", "Thought: look\nAction: search\nAction Input: Oslo weather", "search", "Oslo weather"],
      ["no Thought label", "I should look it up.\nAction: search\nAction Input: Oslo weather", "search", "Oslo weather"],
      ["lower-case labels", "thought: x\naction: search\naction input: Oslo weather", "search", "Oslo weather"],
      ["bold labels", "**Thought:** x\n**Action:** search\n**Action Input:** Oslo weather", "search", "Oslo weather"],
      ["heading labels with values on the next line", "## Action\n## action:\nsearch\n\n## action input:\nOslo weather", "search", "Oslo weather"],
      ["full-width colons", "Thought：想一想\nAction：search\nAction Input：奥斯陆天气", "search", "奥斯陆天气"],
      ["numbered labels", "Thought 2: x\nAction 2: search\nAction 2 Input: Oslo weather", "search", "Oslo weather"],
      ["blank lines between labels", "Thought: x\n\n\nAction: search\n\nAction Input: Oslo weather\n", "search", "Oslo weather"],
      ["indented labels", "   Thought: x\n    Action: search\n    Action Input: Oslo weather   ", "search", "Oslo weather"],
      ["Action Input on the Action line", "Action: search Action Input: Oslo weather", "search", "Oslo weather"],
      ["a bare paper-style call after a Thought", "Thought 1: I should search.\nThe weather matters.\nsearch[Oslo weather]", "search", "Oslo weather"],
      ["a stray line between Action and Action Input", "Action: search\nI will look this up.\nAction Input: Oslo weather", "search", "Oslo weather"],
      ["input value on the next line", "Action: search\nAction Input:\n   Oslo weather", "search", "Oslo weather"],
      ["multi-line input", "Action: search\nAction Input: line one\nline two", "search", "line one\nline two"],
      ["fenced input", "Action: search\nAction Input:\n```\nprint(1)\n\nprint(2)\n```", "search", "print(1)\n\nprint(2)"],
      ["whole reply fenced", "```\nThought: x\nAction: search\nAction Input: Oslo weather\n```", "search", "Oslo weather"],
      ["trailing prose after a blank line", "Action: search\nAction Input: Oslo weather\n\nI will wait for the result.", "search", "Oslo weather"],
      ["a wrapping quote pair", 'Action: search\nAction Input: "what\'s the \'best\' route?"', "search", "what's the 'best' route?"],
      ["a lone leading quote", 'Action: search\nAction Input: "Oslo weather', "search", "Oslo weather"],
      ["a lone trailing quote kept", 'Action: search\nAction Input: SELECT "Name"', "search", 'SELECT "Name"'],
      ["paper style", "Thought 1: x\nAction 1: search[capital of [Norway]]", "search", "capital of [Norway]"],
      ["paper style in backticks", "Action: `search[Oslo weather]`", "search", "Oslo weather"],
      ["a bare paper-style line", "search[Oslo weather]", "search", "Oslo weather"],
      ["function-call style", "Action: search(Oslo weather)", "search", "Oslo weather"],
      ["tool name in a different case", "Action: SEARCH\nAction Input: Oslo weather", "search", "Oslo weather"],
      ["tool name with a leading Use", "Action: Use Calculator\nAction Input: 2+2", "Calculator", "2+2"],
      ["tool name in backticks and bold", "Action: **`search`**\nAction Input: Oslo weather", "search", "Oslo weather"],
      ["tool name with the word tool", "Action: the Calculator tool\nAction Input: 2+2", "Calculator", "2+2"],
      ["tool name with markdown escapes", "Action: get\\_weather\nAction Input: {\"city\": \"Oslo\"}", "get_weather", { city: "Oslo" }],
      ["tool name with spaces for underscores", "Action: Get Weather\nAction Input: {\"city\": \"Oslo\"}", "get_weather", { city: "Oslo" }],
      ["a reasoning block before the reply", "<think>Action: Calculator\nAction Input: 1/0</think>\nAction: search\nAction Input: Oslo weather", "search", "Oslo weather"],
      ["an echoed Observation first", "Observation: earlier result\nThought: x\nAction: search\nAction Input: Oslo weather", "search", "Oslo weather"],
      ["a hallucinated Observation cut", "Action: search\nAction Input: Oslo weather\nObservation: 20C\nFinal Answer: warm", "search", "Oslo weather"],
      ["an action then a Final Answer", "Action: search\nAction Input: Oslo weather\nFinal Answer: warm", "search", "Oslo weather"],
      ["two actions (the first wins)", "Action: search\nAction Input: first\nAction: Calculator\nAction Input: 2+2", "search", "first"],
      ["a deliberately empty input (written quotes) for a string tool", 'Action: search\nAction Input: ""', "search", ""],
      ["{input} for a string tool", "Action: search\nAction Input: {'input': 'Oslo weather'}", "search", "Oslo weather"],
      ["XML agent format", "<tool>search</tool>\n<tool_input>Oslo weather", "search", "Oslo weather"],
      ["an accidental Answer: line before the action", "Thought: hmm\nAnswer: not known yet, so I look.\nAction: search\nAction Input: Oslo weather", "search", "Oslo weather"],
      ["a keyword argument in a function call", 'Action: search(query="Oslo weather")', "search", "Oslo weather"],
      ["a step written only inside an unclosed reasoning block", "<think>Action: search\nAction Input: Oslo weather", "search", "Oslo weather"],
    ])("reads %s", async (_shape, text, toolName, toolInput) => {
      const action = await parseAction(text);
      expect(action.tool).toBe(toolName);
      expect(action.toolInput).toEqual(toolInput);
      expect(action.log).toBe(text);
    });
  });

  describe("JSON action blobs", () => {
    it.each([
      ["a fenced blob", '```json\n{"action": "search", "action_input": "Oslo weather"}\n```', "search", "Oslo weather"],
      ["a blob after Action:", 'Action:\n```\n{"action": "search", "action_input": "Oslo weather"}\n```', "search", "Oslo weather"],
      ["a blob on the Action line", 'Action: {"name": "get_weather", "args": {"city": "Oslo"}}', "get_weather", { city: "Oslo" }],
      ["a blob glued to prose with trailing prose", 'Sure```json\n{"action": "search", "action_input": "Oslo"}\n``` done', "search", "Oslo"],
      ["a list of blobs", '[{"action": "search", "action_input": "a"}, {"action": "Calculator", "action_input": "1+1"}]', "search", "a"],
      ["an object input for a string tool (stringified)", '{"action": "search", "action_input": {"q": "Oslo"}}', "search", '{"q":"Oslo"}'],
      ["a no-argument tool without action_input", '{"action": "current_time"}', "current_time", {}],
    ])("reads %s", async (_shape, text, toolName, toolInput) => {
      const action = await parseAction(text);
      expect(action.tool).toBe(toolName);
      expect(action.toolInput).toEqual(toolInput);
    });

    it("reads a Final Answer blob as the answer", async () => {
      const finish = await parseFinish('```json\n{"action": "Final Answer", "action_input": "It is 20C."}\n```');
      expect(finish.returnValues.output).toBe("It is 20C.");
    });

    it("reads a Final Answer blob behind a role prefix", async () => {
      const finish = await parseFinish('AI: \nAssistant: ```json\n{"action": "Final Answer", "action_input": "42"}\n```');
      expect(finish.returnValues.output).toBe("42");
    });
  });

  describe("object-schema tools", () => {
    it.each([
      ["strict JSON", '{"city": "Oslo", "days": 3}', { city: "Oslo", days: 3 }],
      ["single quotes and Python literals", "{'city': 'Oslo', 'days': 3}", { city: "Oslo", days: 3 }],
      ["a smart closing quote", '{"city": "Porto\u201d, "days": 3}', { city: "Porto", days: 3 }],
      ["smart quotes everywhere", "{\u201ccity\u201d: \u201cPorto\u201d}", { city: "Porto" }],
      ["a trailing comma", '{"city": "Oslo",}', { city: "Oslo" }],
      ["a comment", '{"city": "Oslo" // the capital\n}', { city: "Oslo" }],
      ["a missing closing brace", '{"city": "Oslo"', { city: "Oslo" }],
      ["double encoding", '"{\\"city\\": \\"Oslo\\"}"', { city: "Oslo" }],
      ["a wrapper call", 'WeatherTool({"city": "Oslo"})', { city: "Oslo" }],
      ["trailing prose", '{"city": "Oslo"} should do it', { city: "Oslo" }],
      ["a fence", '```json\n{"city": "Oslo"}\n```', { city: "Oslo" }],
      ["keyword arguments", 'city="Oslo", days=2', { city: "Oslo", days: 2 }],
      ["non-ASCII values kept", '{"city": "杭州 – Hángzhōu"}', { city: "杭州 – Hángzhōu" }],
    ])("parses %s", async (_shape, input, expected) => {
      const action = await parseAction(`Action: get_weather\nAction Input: ${input}`);
      expect(action.toolInput).toEqual(expected);
    });

    it("wraps plain text for a tool with a single string argument", async () => {
      const action = await parseAction("Action: lookup_order\nAction Input: A-10293");
      expect(action.toolInput).toEqual({ orderId: "A-10293" });
    });

    it("sends field errors back when the input does not fit the schema", async () => {
      const error = await parseError('Action: get_weather\nAction Input: {"days": "three"}');
      expect(error.reason).toBe("invalid_tool_input");
      expect(error.observation).toContain("city");
      expect(error.observation).toContain("days");
    });

    it.each([
      ["inside a string", '{"city": "Oslo", "units": "met'],
      ["after a colon", '{"city": "Oslo", "days":'],
      ["after a comma", '{"city": "Oslo",'],
    ])("rejects an object cut off %s instead of inventing the rest", async (_where, input) => {
      const error = await parseError(`Action: get_weather\nAction Input: ${input}`);
      expect(error.reason).toBe("truncated_input");
      expect(error.observation).toContain("cut off");
    });

    it("rejects input that is not JSON even after repair", async () => {
      const error = await parseError("Action: get_weather\nAction Input: [1, 2");
      expect(error.reason).toBe("invalid_json_input");
      expect(error.observation).toContain('"city"');
    });

    it("validates zod v3 schemas too", async () => {
      const legacy = new DynamicStructuredTool({ name: "legacy", description: "v3", schema: z3.object({ n: z3.number() }), func: async () => "ok" });
      const parser = new HardenedReActOutputParser({ tools: [legacy] });
      await expect(parser.parse("Action: legacy\nAction Input: {'n': 2}")).resolves.toMatchObject({ toolInput: { n: 2 } });
      await expect(parser.parse('Action: legacy\nAction Input: {"n": "x"}')).rejects.toMatchObject({ reason: "invalid_tool_input" });
    });

    it("validates JSON-schema tools", async () => {
      const jsonTool = { name: "json_tool", schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } };
      const parser = new HardenedReActOutputParser({ tools: [jsonTool] });
      await expect(parser.parse('Action: json_tool\nAction Input: {"q": "x"}')).resolves.toMatchObject({ toolInput: { q: "x" } });
      await expect(parser.parse('Action: json_tool\nAction Input: {"r": "x"}')).rejects.toMatchObject({ reason: "invalid_tool_input" });
    });
  });

  describe("no-argument tools", () => {
    it.each([
      ["no Action Input line", "Action: current_time"],
      ["an empty Action Input", "Action: current_time\nAction Input:"],
      ["an empty object", "Action: current_time\nAction Input: {}"],
    ])("calls the tool with %s", async (_shape, text) => {
      const action = await parseAction(text);
      expect(action).toMatchObject({ tool: "current_time", toolInput: {} });
    });

    it("rejects the argument schema echoed as input", async () => {
      const error = await parseError("Action: current_time\nAction Input: {'type': 'object', 'properties': {}}");
      expect(error.reason).toBe("schema_echo");
      expect(error.observation).toContain("{}");
    });
  });

  describe("accepted final answers", () => {
    it.each([
      ["canonical", "Thought: done\nFinal Answer: 42", "42"],
      ["value on the next line", "Final Answer:\n42", "42"],
      ["multi-line", "Final Answer: line one\nline two", "line one\nline two"],
      ["glued label", "FinalAnswer: 42", "42"],
      ["LlamaIndex Answer:", "Thought: I can answer.\nAnswer: 42", "42"],
      ["LlamaIndex Response:", "Response: 42", "42"],
      ["conversational AI:", "Thought: Do I need to use a tool? No\nAI: Hello there!", "Hello there!"],
      ["conversational without labels", "Do I need to use a tool? No\nHello there!", "Hello there!"],
      ["paper-style Finish", "Action: Finish[the answer is [42]]", "the answer is [42]"],
      ["a Thought saying no tool is needed, then the reply", "Thought: No tool is needed for a greeting.\nHello! How can I help?", "Hello! How can I help?"],
      ["a plain reply with no label", "Hello! What would you like to know?", "Hello! What would you like to know?"],
      ["a plain reply ending in a name", "The capital of Norway is Oslo", "The capital of Norway is Oslo"],
      ["a reply after a reasoning block", "<think>just a greeting</think>\nHello!", "Hello!"],
      ["an answer cut at a new Question", "Final Answer: 15\n\nQuestion: next one?\nAction: search\nAction Input: x", "15"],
      ["fenced answer", "```\nThought: done\nFinal Answer: 42\n```", "42"],
      ["XML final answer", "<final_answer>42</final_answer>", "42"],
      ["non-ASCII kept", "最终: 好\nFinal Answer: 杭州明天晴 ☀️", "杭州明天晴 ☀️"],
    ])("reads %s", async (_shape, text, output) => {
      const finish = await parseFinish(text);
      expect(finish.returnValues.output).toBe(output);
      expect(finish.log).toBe(text);
    });
  });

  describe("rejected shapes", () => {
    it.each([
      ["an empty reply", "", "empty_output"],
      ["only a reasoning block", "<think>I am not sure yet what to do", "reasoning_only"],
      ["a plan without an action", "I will use `search` to find it.", "missing_action"],
      ["a cut-off Thought", "Thought: To answer this I will first need to", "missing_action"],
      ["a plain reply cut off mid-sentence", "The tallest building in the city is the", "missing_action"],
      ["prose talking about the format", "Please provide a valid Action in the format specified above.", "missing_action"],
      ["Action Input without Action", "Thought: x\nAction Input: Oslo", "missing_action_label"],
      ["an empty Action", "Action:\nAction Input: Oslo", "empty_tool_name"],
      ["a sentence as the Action", "Action: Look it up on the web\nAction Input: Oslo", "unknown_tool"],
      ["an unregistered tool", "Action: Fetch\nAction Input: Oslo", "unknown_tool"],
      ["a Thought naming an unregistered bracket call", "Thought: I should try it.\nFetch[Oslo]", "missing_action"],
      ["Action: None", "Thought: nothing to do\nAction: None", "no_op_action"],
      ["Action: N/A with a reason", "Action: N/A - answering directly", "no_op_action"],
      ["the prompt echoed", "Action: one of [search, Calculator]\nAction Input: the input to the action", "prompt_echo"],
      ["the input placeholder echoed", "Action: search\nAction Input: the input to the action", "prompt_echo"],
      ["an action without input", "Action: search", "missing_action_input"],
      ["a bare empty input for a string tool", "Action: search\nAction Input:", "missing_action_input"],
      ["a Final Answer followed by an action", "Final Answer: done\nAction: search\nAction Input: x", "final_answer_then_action"],
      ["an empty Final Answer", "Thought: done\nFinal Answer:", "empty_final_answer"],
      ["schema echoed for a string tool", "Action: search\nAction Input: {'query': {'type': 'string', 'description': 'the query'}}", "schema_echo"],
    ])("rejects %s", async (_shape, text, reason) => {
      const error = await parseError(text);
      expect(error.reason).toBe(reason);
      expect(error.sendToLLM).toBe(true);
      expect(error.llmOutput).toBe(text);
      expect(error.observation.length).toBeGreaterThan(30);
    });

    it("lists the valid tools and suggests the one named in a sentence", async () => {
      const error = await parseError("Action: Look it up with search\nAction Input: Oslo");
      expect(error.observation).toContain("search, Calculator, get_weather, current_time, lookup_order");
      expect(error.observation).toContain("Did you mean 'search'?");
    });

    it("asks for the Action Input line when the tool name is unknown and no input was written", async () => {
      const error = await parseError("Action: duckduck");
      expect(error.observation).toContain("Action Input:");
    });

    it("tells the model to wait for the real Observation after cutting an invented one", async () => {
      const error = await parseError("Action: search\nAction Input: {'q': {'type': 'str', 'description': 'x'}}\nObservation: done\nFinal Answer: ok");
      expect(error.observation).toContain("Never write 'Observation:' yourself");
    });

    it("is LangChain's OutputParserException without a troubleshooting URL", async () => {
      const error = await parseError("Action: Fetch\nAction Input: Oslo");
      expect(error).toBeInstanceOf(OutputParserException);
      expect(error).toBeInstanceOf(ReActOutputParserError);
      expect(ReActFormatError.isInstance(error)).toBe(true);
      expect(error.observation).not.toMatch(/https?:/);
      expect(error.message).not.toMatch(/https?:/);
    });

    it("rejects text that is not a string", async () => {
      const parser = parserWith();
      const report = parser.parseDetailed(42 as unknown as string);
      expect(report).toMatchObject({ ok: false, reason: "not_text" });
    });

    it("treats an ambiguous normalised name as ambiguous", async () => {
      const parser = new HardenedReActOutputParser({ toolNames: ["web-search", "web_search"] });
      await expect(parser.parse("Action: Web Search\nAction Input: x")).rejects.toMatchObject({ reason: "ambiguous_tool" });
    });

    it("knows no tool when constructed without tools", async () => {
      const parser = new HardenedReActOutputParser();
      await expect(parser.parse("Action: search\nAction Input: x")).rejects.toMatchObject({ reason: "unknown_tool" });
    });
  });

  describe("with option onConflict", () => {
    const actionThenAnswer = "Action: search\nAction Input: Oslo\nFinal Answer: warm";
    const answerThenAction = "Final Answer: warm\nAction: search\nAction Input: Oslo";

    it.each([
      ["first", actionThenAnswer, "action"],
      ["first", answerThenAction, "final_answer_then_action"],
      ["action", answerThenAction, "action"],
      ["final", actionThenAnswer, "finish"],
      ["error", actionThenAnswer, "action_and_final_answer"],
    ] as const)("%s gives the expected outcome", async (onConflict, text, expected) => {
      const report = parserWith({ onConflict }).parseDetailed(text);
      if (expected === "action") expect(report).toMatchObject({ ok: true, result: { tool: "search", toolInput: "Oslo" } });
      else if (expected === "finish") expect(report).toMatchObject({ ok: true, result: { returnValues: { output: "warm" } } });
      else expect(report).toMatchObject({ ok: false, reason: expected });
    });
  });

  describe("with option fuzzyToolNames", () => {
    it("leaves near misses unknown by default", async () => {
      await expect(parserWith().parse("Action: serch\nAction Input: x")).rejects.toMatchObject({ reason: "unknown_tool" });
    });

    it("matches the single closest tool when enabled", async () => {
      await expect(parserWith({ fuzzyToolNames: true }).parse("Action: serch\nAction Input: x")).resolves.toMatchObject({ tool: "search" });
    });
  });

  describe("with custom labels", () => {
    it("reads Chinese labels and writes them in messages when they replace the defaults", async () => {
      const parser = new HardenedReActOutputParser({
        tools: [search],
        labels: { thought: ["思考"], action: ["行动"], action_input: ["行动输入"], final_answer: ["最终答案"] },
        replaceLabels: true,
      });
      await expect(parser.parse("思考：查一下\n行动：search\n行动输入：奥斯陆")).resolves.toMatchObject({ tool: "search", toolInput: "奥斯陆" });
      await expect(parser.parse("最终答案：晴")).resolves.toMatchObject({ returnValues: { output: "晴" } });
      const report = parser.parseDetailed("行动：search");
      expect(report).toMatchObject({ ok: false, reason: "missing_action_input" });
      if (!report.ok) expect(report.observation).toContain("行动输入");
    });

    it("reads upper-case custom words alongside the defaults", async () => {
      const parser = new HardenedReActOutputParser({ tools: [search], labels: { action: ["ACT"] } });
      await expect(parser.parse("THOUGHT: x\nACT: search\nACTION INPUT: y")).resolves.toMatchObject({ tool: "search", toolInput: "y" });
    });
  });

  describe("with validators", () => {
    it("rejects a Thought shorter than minThoughtChars", async () => {
      const error = await parseError("Thought: ok\nAction: search\nAction Input: x", { validators: { minThoughtChars: 10 } });
      expect(error.reason).toBe("thought_too_short");
    });

    it("rejects a Thought longer than maxThoughtChars", async () => {
      const error = await parseError(`Thought: ${"a".repeat(50)}\nAction: search\nAction Input: x`, { validators: { maxThoughtChars: 20 } });
      expect(error.reason).toBe("thought_too_long");
    });

    it("rejects banned hedging phrases in the answer", async () => {
      const error = await parseError("Final Answer: It is probably 20C.", { validators: { bannedPhrases: ["probably"] } });
      expect(error.reason).toBe("banned_phrase");
      expect(error.observation).toContain("probably");
    });

    it("rejects a reply missing a required pattern", async () => {
      const options = { validators: { requiredPatterns: [{ pattern: /\[\d+\]/, description: "a citation like [1]", appliesTo: "final_answer" as const }] } };
      await expect(parserWith(options).parse("Final Answer: 20C [1]")).resolves.toMatchObject({ returnValues: { output: "20C [1]" } });
      const error = await parseError("Final Answer: 20C", options);
      expect(error.reason).toBe("required_pattern");
      expect(error.observation).toContain("a citation like [1]");
    });

    it("rejects a Final Answer before the first Observation when the context says so", async () => {
      const parser = parserWith({ validators: { requireObservationBeforeFinalAnswer: true } });
      await expect(parser.parseWithContext("Final Answer: 20C", { observationCount: 0 })).rejects.toMatchObject({ reason: "final_answer_before_observation" });
      await expect(parser.parseWithContext("Final Answer: 20C", { observationCount: 1 })).resolves.toMatchObject({ returnValues: { output: "20C" } });
    });

    it("asks the final-answer predicate and sends its reason back", async () => {
      const parser = parserWith({ validators: { finalAnswerPredicate: (output) => (output.includes("C") ? true : "give the temperature in Celsius") } });
      await expect(parser.parse("Final Answer: 20C")).resolves.toBeDefined();
      await expect(parser.parse("Final Answer: 68F")).rejects.toMatchObject({ reason: "final_answer_rejected", observation: expect.stringContaining("Celsius") });
    });
  });

  describe("reporting", () => {
    it("emits parser_repair and parser_error events to metrics and onEvent", async () => {
      const recorded: ReinsEvent[] = [];
      const listened: ReinsEvent[] = [];
      const parser = parserWith({ metrics: { record: (event) => recorded.push(event) }, onEvent: (event) => listened.push(event) });
      await parser.parse("**Action:** SEARCH\nAction Input: \"x\"");
      expect(recorded).toEqual([
        { type: "parser_repair", repair: "label_markdown" },
        { type: "parser_repair", repair: "tool_name_normalized" },
        { type: "parser_repair", repair: "wrapping_quotes_removed" },
      ]);
      await expect(parser.parse("Action: Fetch\nAction Input: x")).rejects.toBeInstanceOf(ReActFormatError);
      expect(listened.at(-1)).toMatchObject({ type: "parser_error", reason: "unknown_tool" });
    });

    it("keeps parsing when an event sink throws", async () => {
      const parser = parserWith({ onEvent: () => { throw new Error("sink down"); } });
      await expect(parser.parse("**Action:** search\nAction Input: x")).resolves.toMatchObject({ tool: "search" });
    });

    it("returns repairs and the thought from parseDetailed", () => {
      const report = parserWith().parseDetailed("Thought: check\nAction: search\nAction Input: 'x'");
      expect(report).toMatchObject({ ok: true, thought: "check", repairs: ["wrapping_quotes_removed"] });
    });
  });

  describe("as a LangChain runnable", () => {
    it("parses through invoke", async () => {
      await expect(parserWith().invoke("Action: search\nAction Input: x")).resolves.toMatchObject({ tool: "search", toolInput: "x" });
    });

    it("gives format instructions with the tool names", () => {
      const instructions = parserWith().getFormatInstructions();
      expect(instructions).toContain("[search, Calculator, get_weather, current_time, lookup_order]");
      expect(instructions).toContain("Final Answer:");
    });
  });

  describe("options", () => {
    it.each([
      [{ onConflict: "later" }, "onConflict"],
      [{ fuzzyToolNames: -1 }, "fuzzyToolNames"],
      [{ maxRepairChars: 1.5 }, "maxRepairChars"],
      [{ toolNames: ["ok", ""] }, "toolNames[1]"],
      [{ tools: [{ name: "a" }, { name: "a" }] }, "tools[1]"],
      [{ labels: { verdict: ["x"] } }, "labels.verdict"],
      [{ validators: { minThoughtChars: 5, maxThoughtChars: 2 } }, "validators.minThoughtChars"],
      [{ validators: { requiredPatterns: ["x"] } }, "validators.requiredPatterns"],
      [{ metrics: {} }, "metrics"],
    ])("rejects %j naming the field", (options, field) => {
      expect(() => new HardenedReActOutputParser(options as unknown as HardenedReActOutputParserOptions)).toThrow(InvalidParserOptionsError);
      try {
        new HardenedReActOutputParser(options as unknown as HardenedReActOutputParserOptions);
      } catch (error) {
        expect((error as InvalidParserOptionsError).field).toBe(field);
      }
    });
  });
});
