import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { writtenCallTools } from "../../react-output-parser/src/__fixtures__/written-call-table";
import { createReinsMiddleware } from "./index";

/**
 * Providers that number calls per reply (`call_0`, `call_1` …: local servers, some gateways) reuse
 * ids across turns. A refused call's correction belongs to the reply that made it: a later valid
 * call with the same id runs, as stock LangChain runs it.
 */
describe("createReinsMiddleware", () => {
  describe("a valid tool call that reuses the id of a call refused in an earlier turn", () => {
    const refusedFirst: ReadonlyArray<readonly [string, AIMessage]> = [
      ["an unknown tool", new AIMessage({ content: "", tool_calls: [{ name: "get_wether", args: { city: "Paris" }, id: "call_0", type: "tool_call" }] })],
      ["unknown fields", new AIMessage({ content: "", tool_calls: [{ name: "get_weather", args: { town: "Paris", color: "red" }, id: "call_0", type: "tool_call" }] })],
    ];

    it.each(refusedFirst)("runs after %s was refused under that id", async (_what, first) => {
      const ran: string[] = [];
      const tools = writtenCallTools((name, input) => {
        ran.push(`${name} ${JSON.stringify(input)}`);
        return `ran ${name}`;
      });
      const model = fakeModel()
        .respond(first)
        .respond(new AIMessage({ content: "", tool_calls: [{ name: "get_weather", args: { city: "Rome" }, id: "call_0", type: "tool_call" }] }))
        .respond(new AIMessage("done"));
      const agent = createAgent({ model, tools, checkpointer: new MemorySaver(), middleware: [createReinsMiddleware()] });
      const { messages } = (await agent.invoke({ messages: [new HumanMessage("weather?")] }, { configurable: { thread_id: "t1" } })) as { messages: BaseMessage[] };
      expect(ran).toEqual(['get_weather {"city":"Rome"}']);
      const toolMessages = messages.filter((message) => ToolMessage.isInstance(message)) as ToolMessage[];
      expect(toolMessages.at(-1)?.content).toBe("ran get_weather");
      expect(toolMessages.at(-1)?.status).not.toBe("error");
    });
  });
});
