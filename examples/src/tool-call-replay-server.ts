/**
 * An OpenAI-compatible replay server in the tool-calling format: `POST /v1/chat/completions`
 * answers with the next scripted assistant turn — text, or `tool_calls` whose `arguments` are the
 * raw text a model wrote (garbled JSON included) — streamed as server-sent events with
 * `tool_calls` deltas split across chunks as the OpenAI API sends them, or as one JSON body. It
 * lets the real `ChatOpenAI` client drive a LangChain v1 `createAgent` offline and
 * deterministically. (The ReAct demo's `replay-server.ts` serves text turns only.)
 */
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { closeServer, readBody } from "./replay-server";

/** One tool call of a scripted turn; `arguments` is sent verbatim (it may be broken JSON). */
export interface ScriptedToolCall {
  readonly name: string;
  readonly arguments: string;
  /** @default `call_<turn>_<index>` */
  readonly id?: string;
}

/** A message of a request, as the OpenAI API receives it. */
export interface ToolCallRequestMessage {
  readonly role: string;
  readonly content: unknown;
  readonly tool_call_id?: string;
  readonly tool_calls?: ReadonlyArray<{ id: string; function: { name: string; arguments: string } }>;
}

/** One scripted assistant turn, or a function of the request's messages (e.g. quoting a tool result). */
export type ScriptedTurn =
  | { readonly content?: string; readonly toolCalls?: readonly ScriptedToolCall[] }
  | ((messages: readonly ToolCallRequestMessage[]) => { readonly content?: string; readonly toolCalls?: readonly ScriptedToolCall[] });

/** Options of {@link startToolCallReplayServer}. */
export interface ToolCallReplayServerOptions {
  /** @default [] */
  turns?: readonly ScriptedTurn[];
  /** @default "reins-replay-tools" */
  model?: string;
  /**
   * Characters per streamed content or arguments chunk.
   * @default 7
   */
  chunkChars?: number;
}

/** A running tool-calling replay server. */
export interface ToolCallReplayServer {
  /** Base URL for an OpenAI client, ending in `/v1`. */
  readonly baseURL: string;
  /** The requests answered so far (their messages and the tool names they offered). */
  readonly requests: ReadonlyArray<{ readonly messages: readonly ToolCallRequestMessage[]; readonly tools: readonly string[]; readonly stream: boolean }>;
  /** Scripted turns not yet served. */
  readonly pending: number;
  enqueue(...turns: ScriptedTurn[]): void;
  clearQueue(): number;
  /** Stops listening and destroys open connections. Idempotent. */
  close(): Promise<void>;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < text.length; offset += size) out.push(text.slice(offset, offset + size));
  return out;
}

/**
 * Starts the server on 127.0.0.1 and a free port.
 * @throws {RangeError} when `chunkChars` is not a positive integer
 */
export async function startToolCallReplayServer(options: ToolCallReplayServerOptions = {}): Promise<ToolCallReplayServer> {
  const model = options.model ?? "reins-replay-tools";
  const chunkChars = options.chunkChars ?? 7;
  if (!Number.isInteger(chunkChars) || chunkChars < 1) throw new RangeError(`chunkChars must be a positive integer, got ${String(options.chunkChars)}`);
  const queue: ScriptedTurn[] = [...(options.turns ?? [])];
  const requests: Array<{ messages: ToolCallRequestMessage[]; tools: string[]; stream: boolean }> = [];
  const sockets = new Set<Socket>();
  let turnNumber = 0;

  const handleChat = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(request)) as Record<string, unknown>;
    } catch (error) {
      sendJson(response, 400, { error: { message: `Invalid JSON body: ${(error as Error).message}`, type: "invalid_request_error" } });
      return;
    }
    const messages = Array.isArray(body.messages) ? (body.messages as ToolCallRequestMessage[]) : [];
    const tools = Array.isArray(body.tools) ? (body.tools as Array<{ function?: { name?: string } }>).map((item) => item.function?.name ?? "?") : [];
    const stream = body.stream === true;
    const item = queue.shift();
    if (item === undefined) {
      // 400, not 5xx: the OpenAI client retries 5xx, and an exhausted script does not refill itself.
      sendJson(response, 400, { error: { message: `Replay script exhausted at request #${requests.length + 1}.`, type: "replay_exhausted" } });
      return;
    }
    requests.push({ messages, tools, stream });
    turnNumber += 1;
    const turn = typeof item === "function" ? item(messages) : item;
    const content = turn.content ?? "";
    const toolCalls = (turn.toolCalls ?? []).map((call, index) => ({ id: call.id ?? `call_${turnNumber}_${index}`, name: call.name, arguments: call.arguments }));
    const id = `chatcmpl-replay-tools-${turnNumber}`;
    const created = Math.floor(Date.now() / 1000);
    const promptTokens = Math.ceil(JSON.stringify(messages).length / 4);
    const completionTokens = Math.ceil((content.length + JSON.stringify(toolCalls).length) / 4);
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    const finishReason = toolCalls.length > 0 ? "tool_calls" : "stop";

    if (!stream) {
      sendJson(response, 200, {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: content.length > 0 ? content : null,
              ...(toolCalls.length > 0
                ? { tool_calls: toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } })) }
                : {}),
            },
            finish_reason: finishReason,
          },
        ],
        usage,
      });
      return;
    }

    const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
    const event = (choices: readonly unknown[], extra: Record<string, unknown> = {}): void => {
      response.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`);
    };
    const delta = (fields: Record<string, unknown>, finish: string | null = null): void => event([{ index: 0, delta: fields, finish_reason: finish }]);
    delta({ role: "assistant", content: "" });
    for (const piece of pieces(content, chunkChars)) delta({ content: piece });
    toolCalls.forEach((call, index) => {
      // First delta: id, type and name with empty arguments; then the arguments in pieces (the API's shape).
      delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
      for (const piece of pieces(call.arguments, chunkChars)) delta({ tool_calls: [{ index, function: { arguments: piece } }] });
    });
    delta({}, finishReason);
    if (includeUsage) event([], { usage });
    response.end("data: [DONE]\n\n");
  };

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://replay.local");
    if (request.method === "POST" && url.pathname === "/v1/chat/completions") {
      handleChat(request, response).catch((error: unknown) => {
        if (!response.headersSent) sendJson(response, 500, { error: { message: `Replay server error: ${(error as Error).message}`, type: "server_error" } });
        else response.destroy(error as Error);
      });
      return;
    }
    sendJson(response, 404, { error: { message: `Unknown endpoint ${request.method ?? "?"} ${url.pathname}.`, type: "invalid_request_error" } });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    baseURL: `http://${address.address}:${address.port}/v1`,
    requests,
    get pending() {
      return queue.length;
    },
    enqueue(...turns: ScriptedTurn[]) {
      queue.push(...turns);
    },
    clearQueue() {
      return queue.splice(0, queue.length).length;
    },
    close() {
      closing ??= closeServer(server, sockets);
      return closing;
    },
  };
}
