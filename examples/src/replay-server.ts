/**
 * An OpenAI-compatible replay server: `POST /v1/chat/completions` answers with the next scripted
 * model output (streaming as server-sent events or not), applying the request's `stop` sequences
 * the way the OpenAI API does, and `GET /v1/models` lists the one model it serves. It lets the
 * real `ChatOpenAI` client drive an agent offline and deterministically.
 */
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { applyStopSequences } from "@reins/testing";

/** The stop rule the server applies (the one every Reins test double applies). */
export { applyStopSequences };

/** One chat completion request the server received. */
export interface RecordedChatRequest {
  readonly model: string;
  readonly messages: ReadonlyArray<{ role: string; content: unknown }>;
  readonly stop: readonly string[];
  readonly stream: boolean;
  /** The scripted output before `stop` was applied. */
  readonly scriptedOutput: string;
  /** What the server returned (after `stop`). */
  readonly returnedOutput: string;
}

/** What the server knows of a request when it picks an output. */
export interface ReplayRequestView {
  readonly model: string;
  readonly messages: ReadonlyArray<{ role: string; content: unknown }>;
}

/** Picks the model output for a request when the queue is empty; `undefined` means "no answer". */
export type ReplayResponder = (request: ReplayRequestView) => string | undefined;

/**
 * One scripted model output: the text; or the text with `ignoreStop: true`, playing a server
 * that ignores `stop` (some local servers do), so the agent's parser must cut the continuation;
 * or a function of the request (e.g. to quote a live tool result back).
 */
export type ScriptedOutput =
  | string
  | { readonly text: string; readonly ignoreStop?: boolean }
  | ((request: ReplayRequestView) => string);

/** Options for {@link startReplayServer}. */
export interface ReplayServerOptions {
  /**
   * Scripted model outputs, answered in order (one per chat completion request).
   * @default []
   */
  outputs?: readonly ScriptedOutput[];
  /** Called when the queue is empty; when absent (or it returns `undefined`) the server answers HTTP 400. */
  respond?: ReplayResponder;
  /**
   * Model id reported in responses and by `/v1/models`.
   * @default "reins-replay"
   */
  model?: string;
  /**
   * Characters per streamed content chunk.
   * @default 8
   */
  chunkChars?: number;
  /**
   * Host to bind. Keep it on the loopback interface.
   * @default "127.0.0.1"
   */
  host?: string;
  /**
   * Port to bind; 0 picks a free port.
   * @default 0
   */
  port?: number;
}

/** A running replay server. */
export interface ReplayServer {
  /** Base URL to give an OpenAI client, ending in `/v1` (e.g. `http://127.0.0.1:41234/v1`). */
  readonly baseURL: string;
  readonly port: number;
  /** Every chat completion request answered so far, oldest first. */
  readonly requests: readonly RecordedChatRequest[];
  /** Scripted outputs not yet served. */
  readonly pending: number;
  /** Appends scripted outputs to the queue. */
  enqueue(...outputs: ScriptedOutput[]): void;
  /** Drops every output still queued and returns how many were dropped. */
  clearQueue(): number;
  /** Stops listening and destroys every open connection. Idempotent. */
  close(): Promise<void>;
}

export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Rough token count for the `usage` block: about four characters per token, at least one. */
function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Stops `server` listening and destroys its open connections (both replay servers close with it). */
export function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  });
}

/** A request's body as UTF-8 text, refused past {@link MAX_BODY_BYTES} (both replay servers read with it). */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body exceeds ${MAX_BODY_BYTES} bytes`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

function sendError(response: ServerResponse, status: number, message: string, type: string): void {
  sendJson(response, status, { error: { message, type, param: null, code: null } });
}

function normaliseStop(stop: unknown): string[] | undefined {
  if (stop === undefined || stop === null) return [];
  if (typeof stop === "string") return [stop];
  if (Array.isArray(stop) && stop.every((item) => typeof item === "string")) return stop as string[];
  return undefined;
}

/**
 * Starts an OpenAI-compatible replay server on the loopback interface and a free port.
 *
 * @param options - scripted outputs, fallback responder, model id, bind address
 * @returns the running server; call `close()` when done
 * @example
 * ```ts
 * const server = await startReplayServer({ outputs: ["Final Answer: 4"] });
 * const llm = new ChatOpenAI({ model: "reins-replay", apiKey: "replay", configuration: { baseURL: server.baseURL } });
 * await llm.invoke("2 + 2?");
 * await server.close();
 * ```
 */
export async function startReplayServer(options: ReplayServerOptions = {}): Promise<ReplayServer> {
  const model = options.model ?? "reins-replay";
  const chunkChars = options.chunkChars ?? 8;
  if (!Number.isInteger(chunkChars) || chunkChars < 1) {
    throw new RangeError(`chunkChars must be a positive integer, got ${String(options.chunkChars)}`);
  }
  const queue: ScriptedOutput[] = [...(options.outputs ?? [])];
  const requests: RecordedChatRequest[] = [];
  const sockets = new Set<Socket>();
  let sequence = 0;

  const handleChat = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(await readBody(request));
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        sendError(response, 400, "The request body must be a JSON object.", "invalid_request_error");
        return;
      }
      body = parsed as Record<string, unknown>;
    } catch (error) {
      sendError(response, 400, `Invalid JSON body: ${(error as Error).message}`, "invalid_request_error");
      return;
    }
    const messages = Array.isArray(body.messages)
      ? (body.messages as Array<{ role: string; content: unknown }>)
      : undefined;
    if (messages === undefined) {
      sendError(response, 400, "'messages' is required and must be an array.", "invalid_request_error");
      return;
    }
    const stop = normaliseStop(body.stop);
    if (stop === undefined) {
      sendError(response, 400, "'stop' must be a string or an array of strings.", "invalid_request_error");
      return;
    }
    const requestModel = typeof body.model === "string" ? body.model : model;
    const view: ReplayRequestView = { model: requestModel, messages };
    const item = queue.length > 0 ? queue.shift() : options.respond?.(view);
    if (item === undefined) {
      // 400, not 5xx: the OpenAI client retries 5xx, and an exhausted script will not refill itself.
      sendError(
        response,
        400,
        `Replay script exhausted: no scripted output left for request #${requests.length + 1}.`,
        "replay_exhausted",
      );
      return;
    }
    const scripted = typeof item === "string" ? item : typeof item === "function" ? item(view) : item.text;
    const ignoreStop = typeof item === "object" && item.ignoreStop === true;
    const { text } = ignoreStop ? { text: scripted } : applyStopSequences(scripted, stop);
    const stream = body.stream === true;
    requests.push({ model: requestModel, messages, stop, stream, scriptedOutput: scripted, returnedOutput: text });

    sequence += 1;
    const id = `chatcmpl-replay-${sequence}`;
    const created = Math.floor(Date.now() / 1000);
    const promptTokens = estimateTokens(JSON.stringify(messages));
    const completionTokens = estimateTokens(text);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };

    if (!stream) {
      sendJson(response, 200, {
        id,
        object: "chat.completion",
        created,
        model: requestModel,
        system_fingerprint: null,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: text, refusal: null },
            logprobs: null,
            finish_reason: "stop",
          },
        ],
        usage,
      });
      return;
    }

    const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
    const includeUsage = streamOptions?.include_usage === true;
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    const event = (choices: readonly unknown[], usageField: Record<string, unknown>): string =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: requestModel, system_fingerprint: null, choices, ...usageField })}\n\n`;
    const chunk = (delta: Record<string, unknown>, finishReason: string | null): string =>
      event([{ index: 0, delta, logprobs: null, finish_reason: finishReason }], includeUsage ? { usage: null } : {});
    response.write(chunk({ role: "assistant", content: "", refusal: null }, null));
    for (let offset = 0; offset < text.length; offset += chunkChars) {
      response.write(chunk({ content: text.slice(offset, offset + chunkChars) }, null));
    }
    response.write(chunk({}, "stop"));
    if (includeUsage) {
      response.write(event([], { usage }));
    }
    response.end("data: [DONE]\n\n");
  };

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://replay.local");
    if (request.method === "POST" && url.pathname === "/v1/chat/completions") {
      handleChat(request, response).catch((error: unknown) => {
        if (!response.headersSent) {
          sendError(response, 500, `Replay server error: ${(error as Error).message}`, "server_error");
        } else {
          response.destroy(error as Error);
        }
      });
      return;
    }
    if (request.method === "GET" && url.pathname === "/v1/models") {
      sendJson(response, 200, {
        object: "list",
        data: [{ id: model, object: "model", created: 0, owned_by: "reins-replay" }],
      });
      return;
    }
    if (request.method === "GET" && url.pathname === `/v1/models/${model}`) {
      sendJson(response, 200, { id: model, object: "model", created: 0, owned_by: "reins-replay" });
      return;
    }
    sendError(response, 404, `Unknown endpoint ${request.method ?? "?"} ${url.pathname}.`, "invalid_request_error");
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    baseURL: `http://${address.address}:${address.port}/v1`,
    port: address.port,
    requests,
    get pending() {
      return queue.length;
    },
    enqueue(...outputs: ScriptedOutput[]) {
      queue.push(...outputs);
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
