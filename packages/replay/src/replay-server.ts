/**
 * An OpenAI-compatible replay server: `POST /v1/chat/completions` and `POST /v1/responses` answer
 * with the next scripted model output — ReAct text or a tool-calling turn — streamed as
 * server-sent events or as one JSON body, applying a Chat Completions request's `stop` sequences
 * the way the OpenAI API does; `GET /v1/models` lists the one model it serves. It lets the real
 * `ChatOpenAI` client (`useResponsesApi` or not), `createAgent` or the classic `AgentExecutor`
 * run offline and deterministically.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { positiveInteger } from "./errors";
import { guard, listen, readJsonObject, sendError, sendJson } from "./http";
import { applyStopSequences } from "./stop";
import { WireRequestError, readWireRequest, sendReply, type WireApi, type WireMessage, type WireReply } from "./wire";

/** One tool call of a scripted turn; `arguments` is sent verbatim (it may be broken JSON). */
export interface ScriptedToolCall {
  readonly name: string;
  readonly arguments: string;
  /** @default `call_<request number>_<index>` */
  readonly id?: string;
}

/** A scripted tool-calling turn: optional text and the tool calls (none for a plain answer). */
export interface ScriptedToolTurn {
  readonly content?: string;
  readonly toolCalls: readonly ScriptedToolCall[];
}

/**
 * A scripted HTTP error: the server answers the request with `status` and `body` instead of a
 * reply, playing a server that failed (e.g. a local server that could not parse the model's tool
 * call: llama.cpp's 500 `{"error":{"code":500,"message":"Failed to parse input at pos 0: …"}}`,
 * Ollama's 500 `{"error":"error parsing tool call: raw='…', err=…"}`). A string `body` is sent
 * as-is (`text/plain`), anything else as JSON. The OpenAI client retries 5xx (and `ChatOpenAI`
 * retries up to its `maxRetries`): each retry takes the next scripted output.
 */
export interface ScriptedHttpError {
  readonly httpError: {
    /** HTTP status, 400–599. */
    readonly status: number;
    readonly body: unknown;
  };
}

/** One request the server answered. */
export interface RecordedChatRequest {
  readonly api: WireApi;
  readonly model: string;
  readonly messages: readonly WireMessage[];
  readonly stop: readonly string[];
  readonly stream: boolean;
  /** Names of the function tools the request offered. */
  readonly tools: readonly string[];
  /** The scripted text before `stop` was applied (a tool turn's `content`). */
  readonly scriptedOutput: string;
  /** The text returned (after `stop`). */
  readonly returnedOutput: string;
  /** The tool calls returned. */
  readonly toolCalls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: string }>;
  /** The HTTP status answered: 200, or a scripted error's status. */
  readonly status: number;
}

/** What the server knows of a request when it picks an output. */
export interface ReplayRequestView {
  readonly model: string;
  /** The messages in Chat Completions roles (a Responses API `input` is converted). */
  readonly messages: readonly WireMessage[];
}

/** Picks the model output for a request when the queue is empty; `undefined` means "no answer". */
export type ReplayResponder = (request: ReplayRequestView) => string | ScriptedToolTurn | undefined;

/**
 * One scripted model output: the text; the text with `ignoreStop: true`, playing a server that
 * ignores `stop` (some local servers do), so the agent's parser must cut the continuation; a
 * tool-calling turn (`{ toolCalls, content? }`); or a function of the request (e.g. to quote a
 * live tool result back).
 */
export type ScriptedOutput =
  | string
  | { readonly text: string; readonly ignoreStop?: boolean }
  | ScriptedToolTurn
  | ScriptedHttpError
  | ((request: ReplayRequestView) => string | ScriptedToolTurn | ScriptedHttpError);

/** Options for {@link startReplayServer}. */
export interface ReplayServerOptions {
  /**
   * Scripted model outputs, answered in order (one per model request, either API).
   * @default []
   */
  outputs?: readonly ScriptedOutput[];
  /** Called when the queue is empty; when absent (or it returns `undefined`) the server answers HTTP 400. */
  respond?: ReplayResponder;
  /**
   * Model id reported in responses and by `/v1/models` (requests may name any model).
   * @default "reins-replay"
   */
  model?: string;
  /**
   * Characters per streamed content or arguments chunk.
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
  /** Every model request answered so far, oldest first. */
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

const ENDPOINTS: Readonly<Record<string, WireApi>> = { "/v1/chat/completions": "chat.completions", "/v1/responses": "responses" };

function isToolTurn(item: unknown): item is ScriptedToolTurn {
  return typeof item === "object" && item !== null && Array.isArray((item as ScriptedToolTurn).toolCalls);
}

/** Whether `item` is a scripted HTTP error (status 400–599). */
export function isScriptedHttpError(item: unknown): item is ScriptedHttpError {
  const error = typeof item === "object" && item !== null ? (item as Partial<ScriptedHttpError>).httpError : undefined;
  return typeof error === "object" && error !== null && Number.isInteger(error.status) && error.status >= 400 && error.status <= 599;
}

function sendScriptedError(response: ServerResponse, error: ScriptedHttpError["httpError"]): void {
  if (typeof error.body !== "string") {
    sendJson(response, error.status, error.body ?? null);
    return;
  }
  response.writeHead(error.status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(error.body) });
  response.end(error.body);
}

/**
 * Starts an OpenAI-compatible replay server on the loopback interface and a free port.
 *
 * @param options - scripted outputs, fallback responder, model id, bind address
 * @returns the running server; call `close()` when done
 * @throws {ReplayOptionsError} when `chunkChars` is not a positive integer
 * @throws the listen error (e.g. `EADDRINUSE` for a taken `port`)
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
  const chunkChars = positiveInteger("chunkChars", options.chunkChars, 8);
  const queue: ScriptedOutput[] = [...(options.outputs ?? [])];
  const requests: RecordedChatRequest[] = [];

  const handleModelRequest = async (api: WireApi, request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = await readJsonObject(request, response);
    if (body === undefined) return;
    let wire;
    try {
      wire = readWireRequest(api, body);
    } catch (error) {
      if (!(error instanceof WireRequestError)) throw error;
      sendError(response, 400, error.message, "invalid_request_error");
      return;
    }
    const requestModel = wire.model ?? model;
    const view: ReplayRequestView = { model: requestModel, messages: wire.messages };
    const item = queue.length > 0 ? queue.shift() : options.respond?.(view);
    if (item === undefined) {
      // 400, not 5xx: the OpenAI client retries 5xx, and an exhausted script will not refill itself.
      sendError(response, 400, `Replay script exhausted: no scripted output left for request #${requests.length + 1}.`, "replay_exhausted");
      return;
    }
    const resolved = typeof item === "function" ? item(view) : item;
    if (isScriptedHttpError(resolved)) {
      requests.push({ api, model: requestModel, messages: wire.messages, stop: wire.stop, stream: wire.stream, tools: wire.tools, scriptedOutput: "", returnedOutput: "", toolCalls: [], status: resolved.httpError.status });
      sendScriptedError(response, resolved.httpError);
      return;
    }
    // Random, never a counter: a thread resumed against another server process must not meet its own ids again.
    const replyId = randomUUID();
    let reply: WireReply;
    let scripted: string;
    if (isToolTurn(resolved)) {
      scripted = resolved.content ?? "";
      const toolCalls = resolved.toolCalls.map((call, index) => ({ id: call.id ?? `call_${replyId.replace(/-/g, "")}_${index}`, name: call.name, arguments: call.arguments }));
      reply = { content: scripted, toolCalls };
    } else {
      scripted = typeof resolved === "string" ? resolved : resolved.text;
      const ignoreStop = typeof resolved === "object" && resolved.ignoreStop === true;
      reply = { content: ignoreStop ? scripted : applyStopSequences(scripted, wire.stop).text, toolCalls: [] };
    }
    requests.push({
      api, model: requestModel, messages: wire.messages, stop: wire.stop, stream: wire.stream, tools: wire.tools,
      scriptedOutput: scripted, returnedOutput: reply.content, toolCalls: reply.toolCalls, status: 200,
    });
    sendReply(response, wire, reply, { replyId, model: requestModel, chunkChars });
  };

  const server = await listen(
    (request, response) => {
      const url = new URL(request.url ?? "/", "http://replay.local");
      const api = ENDPOINTS[url.pathname];
      if (request.method === "POST" && api !== undefined) {
        guard(response, () => handleModelRequest(api, request, response));
      } else if (request.method === "GET" && url.pathname === "/v1/models") {
        sendJson(response, 200, { object: "list", data: [{ id: model, object: "model", created: 0, owned_by: "reins-replay" }] });
      } else if (request.method === "GET" && url.pathname === `/v1/models/${model}`) {
        sendJson(response, 200, { id: model, object: "model", created: 0, owned_by: "reins-replay" });
      } else {
        sendError(response, 404, `Unknown endpoint ${request.method ?? "?"} ${url.pathname}.`, "invalid_request_error");
      }
    },
    options.host ?? "127.0.0.1",
    options.port ?? 0,
  );

  return {
    baseURL: server.baseURL,
    port: server.port,
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
    close: server.close,
  };
}
