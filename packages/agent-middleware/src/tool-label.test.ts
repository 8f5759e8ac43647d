import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { Registry } from "prom-client";
import { z } from "zod/v4";
import type { ReinsEvent } from "@reins/core";
import { createAgentMetrics } from "@reins/metrics";
import { createReinsMiddleware } from "./index";

const search = tool(async ({ query }: { query: string }) => `Results for ${query}`, { name: "search", description: "Search the web", schema: z.object({ query: z.string() }) });
const weather = tool(async ({ city }: { city: string }) => `${city}: 4 °C`, { name: "weather", description: "Weather of a city", schema: z.object({ city: z.string() }) });

describe("createReinsMiddleware", () => {
  describe("when the model calls 60 invented tools before a real one", () => {
    it("counts the invented ones as unregistered and the real tool under its own name", async () => {
      const registry = new Registry();
      const metrics = createAgentMetrics({ registry });
      // One turn of 60 parallel calls of invented names (one step), then the real tool.
      const invented = Array.from({ length: 60 }, (_, index) => ({ name: `invented_${index}`, args: {}, id: `call_${index}` }));
      const model = fakeModel().respondWithTools(invented).respondWithTools([{ name: "search", args: { query: "Oslo" }, id: "call_real" }]).respond(new AIMessage("Done."));
      const seen: string[] = [];
      const onEvent = (event: ReinsEvent): void => {
        const toolName = (event as { toolName?: unknown }).toolName;
        if (typeof toolName === "string") seen.push(toolName);
      };
      const agent = createAgent({ model, tools: [search, weather], middleware: [createReinsMiddleware({ metrics, onEvent })] });
      const result = await agent.invoke({ messages: [new HumanMessage("Look it up")] });
      expect(result.stopReason).toBe("final_answer");
      const exposition = await registry.metrics();
      expect(exposition).toMatch(/react_agent_tool_calls_total\{tool="search",outcome="success"\} 1/);
      expect(exposition).not.toMatch(/tool="invented_/);
      // The invented names did reach the metrics (the cleaner's events of ToolNode's error messages).
      expect(seen.filter((name) => name.startsWith("invented_")).length).toBeGreaterThanOrEqual(60);
      expect(metrics.toolLabel("weather")).toBe("weather");
      expect(metrics.toolLabel("invented_3")).toBe("unregistered");
    });
  });

  describe("with one metrics object shared by two agents", () => {
    it("learns each agent's tools as it runs", async () => {
      const metrics = createAgentMetrics({ registry: new Registry() });
      const first = createAgent({ model: fakeModel().respond(new AIMessage("a")), tools: [search], middleware: [createReinsMiddleware({ metrics })] });
      const second = createAgent({ model: fakeModel().respond(new AIMessage("b")), tools: [weather], middleware: [createReinsMiddleware({ metrics })] });
      await first.invoke({ messages: [new HumanMessage("x")] });
      await second.invoke({ messages: [new HumanMessage("y")] });
      expect([metrics.toolLabel("search"), metrics.toolLabel("weather"), metrics.toolLabel("other")]).toEqual(["search", "weather", "unregistered"]);
    });
  });
});
