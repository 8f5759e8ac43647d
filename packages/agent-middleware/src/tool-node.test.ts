import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { ObservationCleaner } from "@reins/observation-cleaner";
import { ToolExecutor } from "@reins/tool-executor";
import { z } from "zod/v4";
import { createReinsMiddleware } from "./index";

const hanging = tool(
  async (_input: { city: string }, config) =>
    new Promise<string>((_resolve, reject) => {
      config?.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
    }),
  { name: "weather", description: "Weather of a city", schema: z.object({ city: z.string() }) },
);
const throwing = tool(
  async () => {
    throw new Error("connect ECONNREFUSED 10.0.0.7:5432");
  },
  { name: "orders", description: "Orders of a customer", schema: z.object({ customerId: z.string() }) },
);
const huge = tool(async () => "row ".repeat(60_000), { name: "dump", description: "Dump a table", schema: z.object({ table: z.string() }) });

function toolMessagesOf(messages: readonly BaseMessage[]): ToolMessage[] {
  return messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
}

describe("Reins tools in a LangGraph ToolNode", () => {
  describe("one ToolExecutor shared by createReinsMiddleware and a hand-built StateGraph", () => {
    it("answers every call with a ToolMessage (timeout, error with cause, cleaned result) without handleToolErrors", async () => {
      const cleaner = new ObservationCleaner({ maxChars: 2000 });
      const executor = new ToolExecutor({ formatObservation: cleaner.format, defaults: { retry: false }, policies: { weather: { timeoutMs: 50 } } });
      // The same instance drives createAgent through the middleware.
      expect(() => createReinsMiddleware({ toolExecutor: executor, observation: cleaner })).not.toThrow();

      const toolNode = new ToolNode(executor.wrap([hanging, throwing, huge]), { handleToolErrors: false });
      const graph = new StateGraph(MessagesAnnotation).addNode("tools", toolNode).addEdge(START, "tools").addEdge("tools", END).compile();
      const call = new AIMessage({
        content: "",
        tool_calls: [
          { name: "weather", args: { city: "Oslo" }, id: "call_weather", type: "tool_call" },
          { name: "orders", args: { customerId: "c-1" }, id: "call_orders", type: "tool_call" },
          { name: "dump", args: { table: "t" }, id: "call_dump", type: "tool_call" },
        ],
      });
      const result = await graph.invoke({ messages: [call] });
      const byId = new Map(toolMessagesOf(result.messages).map((message) => [message.tool_call_id, message]));
      expect(byId.size).toBe(3);
      expect(byId.get("call_weather")?.status).toBe("error");
      expect(String(byId.get("call_weather")?.content)).toContain("did not answer within 50 ms");
      expect(byId.get("call_orders")?.status).toBe("error");
      expect(String(byId.get("call_orders")?.content)).toContain("ECONNREFUSED");
      expect(byId.get("call_dump")?.status).toBe("success");
      expect(String(byId.get("call_dump")?.content).length).toBeLessThanOrEqual(2000);
    });
  });
});
