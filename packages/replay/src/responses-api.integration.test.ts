import { ChatOpenAI } from "@langchain/openai";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { startReplayServer, startToolCallReplayServer, type ReplayServer } from "./index";

function responsesClient(baseURL: string, streaming = false): ChatOpenAI {
  return new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "replay", maxRetries: 0, useResponsesApi: true, streaming, configuration: { baseURL } });
}

describe("the Responses API (POST /v1/responses)", () => {
  let server: ReplayServer;
  afterEach(async () => {
    await server?.close();
  });

  it("answers ChatOpenAI({ useResponsesApi: true }) with the scripted text and usage, not streaming", async () => {
    server = await startReplayServer({ outputs: ["Final Answer: 4"] });
    const reply = await responsesClient(server.baseURL).invoke("2 + 2?");
    expect(reply.text).toBe("Final Answer: 4");
    expect(reply.usage_metadata?.output_tokens).toBeGreaterThan(0);
    expect(server.requests[0]).toMatchObject({ api: "responses", stream: false, messages: [{ role: "user", content: "2 + 2?" }] });
  });

  it("streams the text as response.output_text.delta events that concatenate to it", async () => {
    const text = "Thought: done.\nFinal Answer: the replay server streamed this in pieces.";
    server = await startReplayServer({ outputs: [text], chunkChars: 5 });
    const chunks: string[] = [];
    for await (const chunk of await responsesClient(server.baseURL, true).stream("q")) chunks.push(chunk.text);
    expect(chunks.join("")).toBe(text);
    expect(chunks.filter((chunk) => chunk.length > 0).length).toBeGreaterThan(3);
    expect(server.requests[0].stream).toBe(true);
  });

  it("serves a tool-calling turn as function_call items ChatOpenAI reads as tool_calls, streamed and not", async () => {
    for (const streaming of [false, true]) {
      server = await startReplayServer({ outputs: [{ content: "", toolCalls: [{ name: "search", arguments: '{"query":"Paris"}', id: "call_a" }] }] });
      const llm = responsesClient(server.baseURL, streaming).bindTools([{ type: "function", function: { name: "search", description: "Looks up.", parameters: { type: "object", properties: { query: { type: "string" } } } } }]);
      const reply = await llm.invoke("Find Paris");
      expect(reply.tool_calls).toEqual([expect.objectContaining({ name: "search", args: { query: "Paris" }, id: "call_a" })]);
      expect(server.requests[0].tools).toEqual(["search"]);
      await server.close();
    }
  });

  it("gives a function responder the tool result of a Responses API input as a tool message", async () => {
    server = await startReplayServer({
      outputs: [(view) => `Final Answer: ${String(view.messages.find((message) => message.role === "tool")?.content)}`],
    });
    const history = [
      new HumanMessage("Find Paris"),
      new AIMessage({ content: "", tool_calls: [{ id: "call_a", name: "search", args: { query: "Paris" } }] }),
      new ToolMessage({ content: "Paris is in France.", tool_call_id: "call_a" }),
    ];
    const reply = await responsesClient(server.baseURL).invoke(history);
    expect(reply.text).toBe("Final Answer: Paris is in France.");
    expect(server.requests[0].messages.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("answers a request without input with HTTP 400 naming the field", async () => {
    server = await startReplayServer({ outputs: ["x"] });
    const response = await fetch(`${server.baseURL}/responses`, { method: "POST", body: JSON.stringify({ model: "m" }) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/'input' is required/);
    expect(server.pending).toBe(1);
  });
});

describe("startToolCallReplayServer", () => {
  it("serves the same turns through Chat Completions and the Responses API", async () => {
    const turn = { toolCalls: [{ name: "add", arguments: '{"a": 1, "b": 2,}' }] };
    const server = await startToolCallReplayServer({ turns: [turn, turn] });
    try {
      const tools = [{ type: "function" as const, function: { name: "add", description: "Adds.", parameters: { type: "object", properties: {} } } }];
      const chat = await new ChatOpenAI({ model: "m", apiKey: "replay", maxRetries: 0, configuration: { baseURL: server.baseURL } }).bindTools(tools).invoke("1 + 2");
      const responses = await responsesClient(server.baseURL).bindTools(tools).invoke("1 + 2");
      // The arguments are sent verbatim (a trailing comma here): both clients report the same broken call.
      const count = (message: typeof chat): number => (message.tool_calls?.length ?? 0) + (message.invalid_tool_calls?.length ?? 0);
      expect([count(chat), count(responses)]).toEqual([1, 1]);
      expect([...(chat.invalid_tool_calls ?? []), ...(chat.tool_calls ?? [])][0]).toMatchObject({ name: "add" });
      expect([...(responses.invalid_tool_calls ?? []), ...(responses.tool_calls ?? [])][0]).toMatchObject({ name: "add" });
      expect(server.requests.map((request) => request.tools)).toEqual([["add"], ["add"]]);
      expect(server.pending).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe("bad requests and options", () => {
  it("refuses a body over MAX_BODY_BYTES with HTTP 413 and keeps the script", async () => {
    const { MAX_BODY_BYTES } = await import("./index");
    const server = await startReplayServer({ outputs: ["x"] });
    try {
      const response = await fetch(`${server.baseURL}/chat/completions`, { method: "POST", body: "x".repeat(MAX_BODY_BYTES + 1) });
      expect(response.status).toBe(413);
      expect(((await response.json()) as { error: { message: string } }).error.message).toBe(`request body exceeds ${MAX_BODY_BYTES} bytes`);
      expect(server.pending).toBe(1);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it("throws ReplayOptionsError naming chunkChars for a chunk size that is not a positive integer", async () => {
    const { ReplayOptionsError } = await import("./index");
    await expect(startReplayServer({ chunkChars: 0 })).rejects.toThrow(ReplayOptionsError);
    await expect(startToolCallReplayServer({ chunkChars: 1.5 })).rejects.toThrow(/chunkChars: must be a positive integer, got 1.5/);
  });
});
