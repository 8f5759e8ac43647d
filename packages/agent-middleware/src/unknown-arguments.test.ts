// createAgent: a call whose argument names are not its tool's gets a correction naming them and
// the expected ones, whatever shape the call came in, instead of running with them dropped.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { z } from "zod/v4";
import { createReinsMiddleware } from "./index";
import { recordingWeatherTool, UNKNOWN_ARGUMENT_CASES, type Args } from "../../react-output-parser/src/__fixtures__/unknown-argument-cases";


/** Every shape a call reaches the middleware in: native, unparsed by the provider, written in the text. */
const CALL_SHAPES: ReadonlyArray<readonly [string, (args: Args) => AIMessage]> = [
  ["a native tool call", (args) => new AIMessage({ content: "", tool_calls: [{ name: "get_weather", args, id: "call_1", type: "tool_call" }] })],
  ["an invalid_tool_calls entry", (args) => new AIMessage({ content: "", invalid_tool_calls: [{ name: "get_weather", args: JSON.stringify(args), id: "call_1", type: "invalid_tool_call", error: "bad json" }] })],
  ["a <tool_call> tag written in the text", (args) => new AIMessage(`<tool_call>\n${JSON.stringify({ name: "get_weather", arguments: args })}\n</tool_call>`)],
  ["a fenced JSON call written in the text", (args) => new AIMessage(`\`\`\`json\n${JSON.stringify({ name: "get_weather", arguments: args })}\n\`\`\``)],
];

const WRONG = UNKNOWN_ARGUMENT_CASES;

async function runOn(path: "invoke" | "stream", agent: ReturnType<typeof createAgent>): Promise<BaseMessage[]> {
  const input = { messages: [new HumanMessage("Weather in Oslo?")] };
  if (path === "invoke") return (await agent.invoke(input)).messages;
  let last: { messages: BaseMessage[] } | undefined;
  for await (const chunk of await agent.stream(input, { streamMode: "values" })) last = chunk as { messages: BaseMessage[] };
  return last?.messages ?? [];
}

describe("createReinsMiddleware: argument names the tool does not take", () => {
  describe.each(["invoke", "stream"] as const)("on %s", (path) => {
    describe.each(WRONG)("%s", (_case, args, wrong) => {
      it.each(CALL_SHAPES)("answers %s with a correction naming the wrong and the expected names; the tool never runs", async (_shape, reply) => {
        const ran: unknown[] = [];
        const weather = recordingWeatherTool(ran);
        const agent = createAgent({ model: fakeModel().respond(reply(args)).respond(new AIMessage("I will ask again.")), tools: [weather], middleware: [createReinsMiddleware()] });
        const messages = await runOn(path, agent);
        expect(ran).toEqual([]);
        const [correction] = messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
        expect(correction?.status).toBe("error");
        expect(correction?.metadata?.reinsOutcome).toBe("invalid_input");
        expect(String(correction?.content)).toContain(JSON.stringify(wrong));
        expect(String(correction?.content)).toContain('"city" (required)');
        expect(String(correction?.content)).toContain('"days"');
      });
    });

    it.each(CALL_SHAPES)("runs %s with an extra name when the tool's schema takes undeclared names (passthrough)", async (_shape, reply) => {
      const ran: unknown[] = [];
      const weather = tool(
        async (input: Args) => {
          ran.push(input);
          return "sunny";
        },
        { name: "get_weather", description: "Weather of a city", schema: z.looseObject({ city: z.string() }) },
      );
      const agent = createAgent({ model: fakeModel().respond(reply({ city: "Oslo", note: "x" })).respond(new AIMessage("Sunny.")), tools: [weather], middleware: [createReinsMiddleware()] });
      await runOn(path, agent);
      expect(ran).toEqual([{ city: "Oslo", note: "x" }]);
    });
  });
});
