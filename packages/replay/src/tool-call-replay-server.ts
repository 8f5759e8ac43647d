/**
 * The replay server in tool-calling form: each scripted assistant turn is text or `tool_calls`
 * whose `arguments` are the raw text a model wrote (garbled JSON included), served through Chat
 * Completions (`tool_calls` deltas split across chunks as the OpenAI API sends them) and the
 * Responses API (`function_call` items). It lets the real `ChatOpenAI` client drive a LangChain v1
 * `createAgent` offline and deterministically. Built on {@link startReplayServer}.
 */
import { startReplayServer, type ScriptedToolCall } from "./replay-server";
import type { WireMessage } from "./wire";

export type { ScriptedToolCall };

/** A message of a request, as the OpenAI Chat Completions API receives it. */
export type ToolCallRequestMessage = WireMessage;

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

const asOutput = (turn: ScriptedTurn) => (view: { messages: readonly ToolCallRequestMessage[] }) => {
  const resolved = typeof turn === "function" ? turn(view.messages) : turn;
  return { content: resolved.content ?? "", toolCalls: resolved.toolCalls ?? [] };
};

/**
 * Starts the server on 127.0.0.1 and a free port.
 * @throws {ReplayOptionsError} when `chunkChars` is not a positive integer
 */
export async function startToolCallReplayServer(options: ToolCallReplayServerOptions = {}): Promise<ToolCallReplayServer> {
  const server = await startReplayServer({
    model: options.model ?? "reins-replay-tools",
    chunkChars: options.chunkChars ?? 7,
    outputs: (options.turns ?? []).map(asOutput),
  });
  return {
    baseURL: server.baseURL,
    get requests() {
      return server.requests.map((request) => ({ messages: request.messages, tools: request.tools, stream: request.stream }));
    },
    get pending() {
      return server.pending;
    },
    enqueue(...turns: ScriptedTurn[]) {
      server.enqueue(...turns.map(asOutput));
    },
    clearQueue: () => server.clearQueue(),
    close: () => server.close(),
  };
}
