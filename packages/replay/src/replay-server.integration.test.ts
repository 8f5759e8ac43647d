import { ChatOpenAI } from "@langchain/openai";
import { applyStopSequences, startReplayServer, type ReplayServer } from "./index";

function clientFor(server: ReplayServer): ChatOpenAI {
  return new ChatOpenAI({
    model: "reins-replay",
    apiKey: "replay-not-a-key",
    maxRetries: 0,
    configuration: { baseURL: server.baseURL },
  });
}

describe("applyStopSequences", () => {
  describe("when several stop sequences occur", () => {
    it("cuts at the earliest one and excludes it", () => {
      expect(applyStopSequences("a\nObservation: x\nFinal", ["Final", "\nObservation:"])).toEqual({
        text: "a",
        stopped: true,
      });
    });
  });

  describe("when no stop sequence occurs", () => {
    it("returns the text unchanged", () => {
      expect(applyStopSequences("Final Answer: 4", ["\nObservation:"])).toEqual({
        text: "Final Answer: 4",
        stopped: false,
      });
    });
  });
});

describe("startReplayServer", () => {
  let server: ReplayServer;

  afterEach(async () => {
    await server?.close();
  });

  describe("with the real ChatOpenAI client, not streaming", () => {
    it("returns the scripted outputs in order", async () => {
      server = await startReplayServer({ outputs: ["first answer", "second answer"] });
      const llm = clientFor(server);
      expect((await llm.invoke("hi")).content).toBe("first answer");
      expect((await llm.invoke("again")).content).toBe("second answer");
      expect(server.requests.map((request) => request.stream)).toEqual([false, false]);
      expect(server.requests[1].messages).toEqual([{ role: "user", content: "again" }]);
    });

    it("applies stop sequences as the OpenAI API does (cut at the first, excluded)", async () => {
      server = await startReplayServer({
        outputs: ["Thought: look\nAction: search\nAction Input: x\nObservation: invented\nFinal Answer: y"],
      });
      const message = await clientFor(server).withConfig({ stop: ["\nObservation:"] }).invoke("q");
      expect(message.content).toBe("Thought: look\nAction: search\nAction Input: x");
      expect(server.requests[0].stop).toEqual(["\nObservation:"]);
    });

    it("answers a scripted HTTP error with its status and JSON body, as the client's APIError carries them", async () => {
      const body = { error: { code: 500, message: "Failed to parse input at pos 0: <tool_call>", type: "server_error" } };
      server = await startReplayServer({ outputs: [{ httpError: { status: 500, body } }, "recovered"] });
      const llm = clientFor(server);
      const thrown = await llm.invoke("hi").then(
        () => undefined,
        (error: unknown) => error as { status?: number; error?: unknown; message?: string },
      );
      expect(thrown?.status).toBe(500);
      expect(thrown?.error).toEqual(body.error);
      expect(thrown?.message).toBe("500 Failed to parse input at pos 0: <tool_call>");
      expect((await llm.invoke("again")).content).toBe("recovered");
      expect(server.requests.map((request) => request.status)).toEqual([500, 200]);
    });

    it("sends a string body of a scripted HTTP error as text", async () => {
      server = await startReplayServer({ outputs: [{ httpError: { status: 400, body: "plain failure" } }] });
      const thrown = await clientFor(server).invoke("hi").then(
        () => undefined,
        (error: unknown) => error as { status?: number; message?: string },
      );
      expect(thrown?.status).toBe(400);
      expect(thrown?.message).toBe("400 plain failure");
    });

    it("reports usage in the response", async () => {
      server = await startReplayServer({ outputs: ["twelve chars"] });
      const message = await clientFor(server).invoke("q");
      expect(message.usage_metadata?.output_tokens).toBeGreaterThan(0);
      expect(message.usage_metadata?.input_tokens).toBeGreaterThan(0);
    });
  });

  describe("scripted output forms", () => {
    it("plays a server that ignores stop for an output marked ignoreStop", async () => {
      server = await startReplayServer({ outputs: [{ text: "Action: a\nObservation: fake", ignoreStop: true }] });
      const message = await clientFor(server).withConfig({ stop: ["\nObservation:"] }).invoke("q");
      expect(message.content).toBe("Action: a\nObservation: fake");
    });

    it("computes an output from the request when given a function", async () => {
      server = await startReplayServer({ outputs: [({ messages }) => `saw ${String(messages[0].content)}`] });
      expect((await clientFor(server).invoke("ping")).content).toBe("saw ping");
    });
  });

  describe("with the real ChatOpenAI client, streaming", () => {
    it("streams the scripted output in several SSE chunks that concatenate to it", async () => {
      server = await startReplayServer({ outputs: ["Final Answer: streamed over several chunks"], chunkChars: 5 });
      const chunks: string[] = [];
      for await (const chunk of await clientFor(server).stream("q")) {
        if (typeof chunk.content === "string" && chunk.content.length > 0) chunks.push(chunk.content);
      }
      expect(chunks.length).toBeGreaterThan(3);
      expect(chunks.join("")).toBe("Final Answer: streamed over several chunks");
      expect(server.requests[0].stream).toBe(true);
    });

    it("applies stop sequences to the streamed text", async () => {
      server = await startReplayServer({ outputs: ["Action: a\nAction Input: b\nObservation: fake"] });
      // `.stream()`, not `streaming: true` + `invoke()`: the latter makes ChatOpenAI count tokens
      // with a tokenizer it downloads at run time, which hangs offline.
      const llm = clientFor(server).withConfig({ stop: ["\nObservation:"] });
      let text = "";
      for await (const chunk of await llm.stream("q")) text += String(chunk.content);
      expect(text).toBe("Action: a\nAction Input: b");
    });

    it("ends the stream with data: [DONE]", async () => {
      server = await startReplayServer({ outputs: ["hello"] });
      const response = await fetch(`${server.baseURL}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "q" }], stream: true }),
      });
      const text = await response.text();
      expect(response.headers.get("content-type")).toContain("text/event-stream");
      expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
      const first = JSON.parse(text.split("\n\n")[0].slice("data: ".length));
      expect(first.object).toBe("chat.completion.chunk");
      expect(first.choices[0].delta.role).toBe("assistant");
    });
  });

  describe("message and tool-call ids", () => {
    it("are random, so a second server (another process) never repeats the first one's ids", async () => {
      const idsOf = async (): Promise<string[]> => {
        const replay = await startReplayServer({ outputs: ["one", { toolCalls: [{ name: "search", arguments: "{}" }] }] });
        try {
          const llm = clientFor(replay);
          const first = await llm.invoke("q");
          const second = await llm.invoke("q");
          return [first.id ?? "", second.id ?? "", second.tool_calls?.[0]?.id ?? ""];
        } finally {
          await replay.close();
        }
      };
      const before = await idsOf();
      const after = await idsOf();
      for (const id of [...before.slice(0, 2), ...after.slice(0, 2)]) expect(id).toMatch(/^chatcmpl-replay-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      for (const id of [before[2], after[2]]) expect(id).toMatch(/^call_[0-9a-f]{32}_0$/);
      expect(new Set([...before, ...after]).size).toBe(6);
    });
  });

  describe("when the script is exhausted", () => {
    it("answers HTTP 400 naming the request, so the client fails without retrying", async () => {
      server = await startReplayServer({ outputs: [] });
      await expect(clientFor(server).invoke("q")).rejects.toThrow(/Replay script exhausted/);
    });

    it("asks the responder before failing", async () => {
      server = await startReplayServer({ respond: ({ messages }) => `echo ${String(messages.length)}` });
      expect((await clientFor(server).invoke("q")).content).toBe("echo 1");
    });
  });

  describe("GET /v1/models", () => {
    it("lists the served model", async () => {
      server = await startReplayServer({ model: "scripted-model" });
      const response = await fetch(`${server.baseURL}/models`);
      expect(await response.json()).toEqual({
        object: "list",
        data: [{ id: "scripted-model", object: "model", created: 0, owned_by: "reins-replay" }],
      });
    });
  });

  describe("bad requests", () => {
    it("rejects a non-JSON body with HTTP 400", async () => {
      server = await startReplayServer({ outputs: ["x"] });
      const response = await fetch(`${server.baseURL}/chat/completions`, { method: "POST", body: "{" });
      expect(response.status).toBe(400);
      expect(server.pending).toBe(1);
    });

    it("answers 404 for an unknown endpoint", async () => {
      server = await startReplayServer();
      expect((await fetch(`${server.baseURL}/embeddings`, { method: "POST", body: "{}" })).status).toBe(404);
    });
  });

  describe("close()", () => {
    it("binds 127.0.0.1 and closes with a kept-alive connection open", async () => {
      server = await startReplayServer({ outputs: ["a"] });
      expect(server.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      await clientFor(server).invoke("q");
      await server.close();
      await expect(fetch(`${server.baseURL}/models`)).rejects.toThrow();
    });

    it("is idempotent", async () => {
      server = await startReplayServer();
      await Promise.all([server.close(), server.close()]);
      await expect(server.close()).resolves.toBeUndefined();
    });
  });
});
