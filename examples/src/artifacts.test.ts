/**
 * Nothing the cleaner cuts is destroyed: a 3 000-row result is cut to the observation budget, and
 * its row 2 000 is still reachable on both agent paths — through the artifact store and
 * `read_artifact` (classic `AgentExecutor` + `createReactAgent`, and `createAgent`), and as the
 * `ToolMessage.artifact` (`createAgent` + `createReinsMiddleware`). The createAgent half needs
 * LangChain 1.x and is skipped on the 0.3 line, its modules never loaded there.
 */
import { AgentExecutor } from "@langchain/classic/agents";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicTool } from "@langchain/core/tools";
import { REACT_PROMPT_TEMPLATE } from "@reins/core";
import { ArtifactStore, createReadArtifactTool } from "@reins/observation-cleaner";
import { createReactAgent } from "@reins/react-agent";
import { ScriptedChatModel } from "@reins/testing";

const rows = Array.from({ length: 3000 }, (_, index) => ({ sku: `SKU-${String(index).padStart(5, "0")}`, price: index * 1.5, currency: "EUR", warehouse: `WH-${index % 7}` }));
const catalog = { rows };
/** The id the store gives this result (content-addressed), so the scripted model can ask for it. */
const artifactId = new ArtifactStore().save(catalog).id;

const describeLine1 = process.env.REINS_LANGCHAIN_LINE === "0.3" ? describe.skip : describe;

describe("a cut result reached in full", () => {
  describe("on the classic path (AgentExecutor + createReactAgent, ReAct text)", () => {
    it("names the artifact in the cut observation, and read_artifact returns row 2000", async () => {
      const store = new ArtifactStore();
      const catalogTool = new DynamicTool({ name: "catalog", description: "Lists the whole catalog.", func: async () => JSON.stringify(catalog) });
      const llm = new ScriptedChatModel({
        replies: [
          "Thought: I need the catalog.\nAction: catalog\nAction Input: all",
          `Thought: Row 2000 was cut; I read it from the artifact.\nAction: read_artifact\nAction Input: {"id": "${artifactId}", "find": "SKU-02000"}`,
          "Thought: I now know the final answer\nFinal Answer: SKU-02000 costs 3000 EUR.",
        ],
      });
      const agent = await createReactAgent({ llm, tools: [catalogTool, createReadArtifactTool(store)], prompt: PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE), observation: { artifacts: store } });
      const executor = new AgentExecutor({ agent, tools: agent.tools, returnIntermediateSteps: true, maxIterations: 5 });
      const result = await executor.invoke({ input: "What does SKU-02000 cost?" });
      const steps = result.intermediateSteps as Array<{ observation: string }>;
      expect(steps).toHaveLength(2);
      const [cut, read] = steps as [{ observation: string }, { observation: string }];
      expect(cut.observation).not.toContain("SKU-02000");
      expect(cut.observation).toContain(`The full result is kept as artifact ${artifactId}`);
      expect(cut.observation.length).toBeLessThanOrEqual(6000);
      expect(read.observation).toContain('"sku": "SKU-02000"');
      expect(read.observation).toContain('"price": 3000');
      expect(JSON.parse(await store.text(artifactId))).toEqual(catalog);
      expect(result.output).toBe("SKU-02000 costs 3000 EUR.");
    });
  });

  describeLine1("on createAgent with createReinsMiddleware (LangChain 1.x only)", () => {
    it("carries the whole result as the ToolMessage artifact, and read_artifact returns row 2000", async () => {
      const { createAgent } = await import("langchain");
      const { AIMessage, HumanMessage, ToolMessage } = await import("@langchain/core/messages");
      const { fakeModel } = await import("@langchain/core/testing");
      const { tool } = await import("@langchain/core/tools");
      const { z } = await import("zod/v4");
      const { createReinsMiddleware } = await import("@reins/agent-middleware");
      const store = new ArtifactStore();
      const catalogTool = tool(async () => catalog, { name: "catalog", description: "Lists the whole catalog.", schema: z.object({ page: z.number() }) });
      const model = fakeModel()
        .respondWithTools([{ name: "catalog", args: { page: 1 }, id: "call_1" }])
        .respondWithTools([{ name: "read_artifact", args: { id: artifactId, find: "SKU-02000" }, id: "call_2" }])
        .respond(new AIMessage("SKU-02000 costs 3000 EUR."));
      const agent = createAgent({ model, tools: [catalogTool, createReadArtifactTool(store)], middleware: [createReinsMiddleware({ observation: { artifacts: store } })] });
      const result = await agent.invoke({ messages: [new HumanMessage("What does SKU-02000 cost?")] });
      const messages = result.messages.filter((message) => ToolMessage.isInstance(message));
      expect(messages).toHaveLength(2);
      const [cut, read] = messages as [InstanceType<typeof ToolMessage>, InstanceType<typeof ToolMessage>];
      expect(String(cut.content)).not.toContain("SKU-02000");
      expect(String(cut.content)).toContain(`The full result is kept as artifact ${artifactId}`);
      expect(cut.artifact).toEqual(catalog);
      expect((cut.artifact as typeof catalog).rows[2000]).toEqual({ sku: "SKU-02000", price: 3000, currency: "EUR", warehouse: "WH-5" });
      expect(String(read.content)).toContain('"sku": "SKU-02000"');
      expect(JSON.parse(await store.text(artifactId))).toEqual(catalog);
    });
  });
});
