import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { z } from "zod/v4";
import { createReinsMiddleware } from "./index";
import { reasoningOfReply } from "./reply-reasoning";

const CALL = '<tool_call>\n{"name": "search", "arguments": {"query": "Oslo"}}\n</tool_call>';

describe("reasoningOfReply", () => {
  it.each<[string, AIMessage, string | undefined]>([
    ["reasoning_content (ChatOpenAI's mapping of vLLM, DeepSeek, llama.cpp)", new AIMessage({ content: "", additional_kwargs: { reasoning_content: CALL } }), CALL],
    ["a reasoning string in additional_kwargs", new AIMessage({ content: "", additional_kwargs: { reasoning: CALL } }), CALL],
    ["a standard reasoning content block", new AIMessage({ content: [{ type: "reasoning", reasoning: CALL }] as never }), CALL],
    ["a thinking content block", new AIMessage({ content: [{ type: "thinking", thinking: CALL, signature: "s" }] as never }), CALL],
    ["nothing", new AIMessage("Paris."), undefined],
    ["blank reasoning", new AIMessage({ content: "", additional_kwargs: { reasoning_content: "  " } }), undefined],
  ])("reads %s", (_name, message, expected) => {
    expect(reasoningOfReply(message)).toBe(expected);
  });
});

describe("createReinsMiddleware with a call written only inside the reply's reasoning", () => {
  const search = tool(async ({ query }: { query: string }) => `Results for ${query}`, { name: "search", description: "Search", schema: z.object({ query: z.string() }) });

  it.each<[string, AIMessage]>([
    ["a reasoning content block", new AIMessage({ content: [{ type: "reasoning", reasoning: `I need to search.\n${CALL}` }] as never })],
    ["a thinking content block", new AIMessage({ content: [{ type: "thinking", thinking: `I need to search.\n${CALL}`, signature: "s" }] as never })],
    ["a reasoning string in additional_kwargs, content blank", new AIMessage({ content: "\n\n", additional_kwargs: { reasoning: CALL } })],
  ])("runs the call from %s", async (_name, reply) => {
    const model = fakeModel().respond(reply).respond(new AIMessage("Found it."));
    const agent = createAgent({ model, tools: [search], middleware: [createReinsMiddleware()] });
    const result = await agent.invoke({ messages: [new HumanMessage("Find Oslo")] });
    const observations = result.messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
    expect(observations.map((message) => message.content)).toEqual(["Results for Oslo"]);
  });

  it("does not read the reasoning when the reply has an answer outside it", async () => {
    const model = fakeModel().respond(new AIMessage({ content: "Paris is the capital.", additional_kwargs: { reasoning: CALL } }));
    const agent = createAgent({ model, tools: [search], middleware: [createReinsMiddleware()] });
    const result = await agent.invoke({ messages: [new HumanMessage("Capital?")] });
    expect(result.messages.some((message) => ToolMessage.isInstance(message))).toBe(false);
    expect(result.messages.at(-1)?.content).toBe("Paris is the capital.");
  });
});
