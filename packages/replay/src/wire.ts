/**
 * The two OpenAI wire formats a replay server speaks, for one assistant turn (text and/or tool
 * calls): Chat Completions (`POST /v1/chat/completions`, a `chat.completion` body or
 * `chat.completion.chunk` server-sent events ending in `data: [DONE]`) and the Responses API
 * (`POST /v1/responses`, a `response` body or the typed `response.*` events ending in
 * `response.completed`), following the OpenAI API reference. Requests of both are read into one
 * view: the model, the messages in Chat Completions roles, the `stop` strings, the tool names.
 */
import type { ServerResponse } from "node:http";
import { startEventStream } from "./http";

/** One tool call of an assistant turn; `arguments` is sent verbatim (it may be broken JSON). */
export interface WireToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** One assistant turn as the server sends it. */
export interface WireReply {
  readonly content: string;
  readonly toolCalls: readonly WireToolCall[];
}

/** A request message in Chat Completions roles (`system`, `user`, `assistant`, `tool`). */
export interface WireMessage {
  readonly role: string;
  readonly content: unknown;
  readonly tool_call_id?: string;
  readonly tool_calls?: ReadonlyArray<{ id: string; function: { name: string; arguments: string } }>;
}

/** Which API a request came through. */
export type WireApi = "chat.completions" | "responses";

/** A request of either API, read into one shape. */
export interface WireRequest {
  readonly api: WireApi;
  readonly model: string | undefined;
  readonly messages: readonly WireMessage[];
  /** `stop` strings (Chat Completions only; the Responses API has none). */
  readonly stop: readonly string[];
  readonly stream: boolean;
  /** `stream_options.include_usage` (Chat Completions; the Responses API always reports usage). */
  readonly includeUsage: boolean;
  /** The names of the function tools the request offers. */
  readonly tools: readonly string[];
}

/** What a request could not be read as: the message of the HTTP 400 reply. */
export class WireRequestError extends Error {}

function textOfParts(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  const parts = content as Array<{ type?: unknown; text?: unknown }>;
  if (parts.every((part) => typeof part?.text === "string")) return parts.map((part) => part.text).join("");
  return content;
}

function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return (tools as Array<{ name?: unknown; function?: { name?: unknown } }>).map((item) =>
    typeof item?.function?.name === "string" ? item.function.name : typeof item?.name === "string" ? item.name : "?",
  );
}

/** The Responses API `input` (a string or a list of items) as Chat Completions messages. */
function messagesOfInput(input: unknown, instructions: unknown): WireMessage[] {
  const messages: WireMessage[] = typeof instructions === "string" && instructions.length > 0 ? [{ role: "system", content: instructions }] : [];
  if (typeof input === "string") return [...messages, { role: "user", content: input }];
  if (!Array.isArray(input)) throw new WireRequestError("'input' is required and must be a string or an array.");
  for (const item of input as Array<Record<string, unknown>>) {
    if (item === null || typeof item !== "object") throw new WireRequestError("every 'input' item must be an object.");
    if (item.type === "function_call") {
      const call = { id: String(item.call_id ?? item.id ?? ""), function: { name: String(item.name ?? ""), arguments: String(item.arguments ?? "") } };
      const last = messages[messages.length - 1];
      // One assistant turn: its (often empty) message item and the function_call items after it.
      const emptyText = last !== undefined && (last.content === null || last.content === "" || (Array.isArray(last.content) && last.content.length === 0));
      if (last?.role === "assistant" && (last.tool_calls !== undefined || emptyText)) messages[messages.length - 1] = { ...last, tool_calls: [...(last.tool_calls ?? []), call] };
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
    } else if (item.type === "function_call_output") {
      messages.push({ role: "tool", content: textOfParts(item.output), tool_call_id: String(item.call_id ?? "") });
    } else if (typeof item.role === "string") {
      messages.push({ role: item.role === "developer" ? "system" : item.role, content: textOfParts(item.content) });
    }
    // Other items (reasoning, built-in tool calls) carry nothing a scripted reply reads.
  }
  return messages;
}

function normaliseStop(stop: unknown): string[] {
  if (stop === undefined || stop === null) return [];
  if (typeof stop === "string") return [stop];
  if (Array.isArray(stop) && stop.every((item) => typeof item === "string")) return stop as string[];
  throw new WireRequestError("'stop' must be a string or an array of strings.");
}

/**
 * Reads a request body of `api` into a {@link WireRequest}.
 * @throws {WireRequestError} when a required field is missing or mistyped
 */
export function readWireRequest(api: WireApi, body: Record<string, unknown>): WireRequest {
  const model = typeof body.model === "string" ? body.model : undefined;
  const stream = body.stream === true;
  if (api === "chat.completions") {
    if (!Array.isArray(body.messages)) throw new WireRequestError("'messages' is required and must be an array.");
    const messages = (body.messages as WireMessage[]).map((message) => ({ ...message, content: message.content }));
    const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    return { api, model, messages, stop: normaliseStop(body.stop), stream, includeUsage, tools: toolNames(body.tools) };
  }
  return { api, model, messages: messagesOfInput(body.input, body.instructions), stop: [], stream, includeUsage: true, tools: toolNames(body.tools) };
}

/** Rough token count for the `usage` block: about four characters per token, at least one. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** What a reply's rendering needs beside the reply. */
export interface WireContext {
  /**
   * The reply's unique part of its ids (`chatcmpl-replay-<replyId>`, `resp_replay_<replyId>`,
   * `msg_replay_<replyId>`): random, so that ids never repeat across processes or server restarts
   * (LangGraph's message reducer replaces a message that has the same id as an earlier one).
   */
  readonly replyId: string;
  readonly model: string;
  /** Characters per streamed content or arguments chunk. */
  readonly chunkChars: number;
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < text.length; offset += size) out.push(text.slice(offset, offset + size));
  return out;
}

function usageOf(request: WireRequest, reply: WireReply): { input: number; output: number } {
  return { input: estimateTokens(JSON.stringify(request.messages)), output: estimateTokens(reply.content + (reply.toolCalls.length > 0 ? JSON.stringify(reply.toolCalls) : "")) };
}

/** Answers `request` with `reply` in its API's format, streamed or not. */
export function sendReply(response: ServerResponse, request: WireRequest, reply: WireReply, context: WireContext): void {
  if (request.api === "chat.completions") sendChatCompletion(response, request, reply, context);
  else sendResponse(response, request, reply, context);
}

function sendChatCompletion(response: ServerResponse, request: WireRequest, reply: WireReply, context: WireContext): void {
  const id = `chatcmpl-replay-${context.replyId}`;
  const created = Math.floor(Date.now() / 1000);
  const tokens = usageOf(request, reply);
  const usage = { prompt_tokens: tokens.input, completion_tokens: tokens.output, total_tokens: tokens.input + tokens.output };
  const finishReason = reply.toolCalls.length > 0 ? "tool_calls" : "stop";
  const toolCalls = reply.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }));
  if (!request.stream) {
    const message = { role: "assistant", content: reply.content.length > 0 || toolCalls.length === 0 ? reply.content : null, refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
    const body = { id, object: "chat.completion", created, model: context.model, system_fingerprint: null, choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }], usage };
    const text = JSON.stringify(body);
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    response.end(text);
    return;
  }
  startEventStream(response);
  const event = (choices: readonly unknown[], extra: Record<string, unknown> = {}): void => {
    response.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: context.model, system_fingerprint: null, choices, ...(request.includeUsage ? { usage: null } : {}), ...extra })}\n\n`);
  };
  const delta = (fields: Record<string, unknown>, finish: string | null = null): void => event([{ index: 0, delta: fields, logprobs: null, finish_reason: finish }]);
  delta({ role: "assistant", content: "", refusal: null });
  for (const piece of pieces(reply.content, context.chunkChars)) delta({ content: piece });
  reply.toolCalls.forEach((call, index) => {
    // First delta: id, type and name with empty arguments; then the arguments in pieces (the API's shape).
    delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const piece of pieces(call.arguments, context.chunkChars)) delta({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  delta({}, finishReason);
  if (request.includeUsage) event([], { usage });
  response.end("data: [DONE]\n\n");
}

function sendResponse(response: ServerResponse, request: WireRequest, reply: WireReply, context: WireContext): void {
  const id = `resp_replay_${context.replyId}`;
  const createdAt = Math.floor(Date.now() / 1000);
  const tokens = usageOf(request, reply);
  const usage = { input_tokens: tokens.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: tokens.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: tokens.input + tokens.output };
  const messageId = `msg_replay_${context.replyId}`;
  const message = (text: string, status: string) => ({ type: "message", id: messageId, status, role: "assistant", content: text === "" && status === "in_progress" ? [] : [{ type: "output_text", text, annotations: [] }] });
  const functionCall = (call: WireToolCall, args: string, status: string) => ({ type: "function_call", id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: args, status });
  const hasText = reply.content.length > 0 || reply.toolCalls.length === 0;
  const output = [...(hasText ? [message(reply.content, "completed")] : []), ...reply.toolCalls.map((call) => functionCall(call, call.arguments, "completed"))];
  const envelope = (status: string, items: readonly unknown[]) => ({
    id, object: "response", created_at: createdAt, status, error: null, incomplete_details: null, instructions: null, model: context.model,
    output: items, parallel_tool_calls: true, tool_choice: "auto", tools: [], text: { format: { type: "text" } }, usage: status === "completed" ? usage : null,
  });
  if (!request.stream) {
    const text = JSON.stringify(envelope("completed", output));
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    response.end(text);
    return;
  }
  startEventStream(response);
  let sequenceNumber = 0;
  const event = (type: string, fields: Record<string, unknown>): void => {
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequenceNumber++, ...fields })}\n\n`);
  };
  event("response.created", { response: envelope("in_progress", []) });
  event("response.in_progress", { response: envelope("in_progress", []) });
  let outputIndex = 0;
  if (hasText) {
    const index = outputIndex++;
    event("response.output_item.added", { output_index: index, item: message("", "in_progress") });
    event("response.content_part.added", { item_id: messageId, output_index: index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
    for (const piece of pieces(reply.content, context.chunkChars)) event("response.output_text.delta", { item_id: messageId, output_index: index, content_index: 0, delta: piece, logprobs: [] });
    event("response.output_text.done", { item_id: messageId, output_index: index, content_index: 0, text: reply.content, logprobs: [] });
    event("response.content_part.done", { item_id: messageId, output_index: index, content_index: 0, part: { type: "output_text", text: reply.content, annotations: [] } });
    event("response.output_item.done", { output_index: index, item: message(reply.content, "completed") });
  }
  for (const call of reply.toolCalls) {
    const index = outputIndex++;
    const itemId = `fc_${call.id}`;
    event("response.output_item.added", { output_index: index, item: functionCall(call, "", "in_progress") });
    for (const piece of pieces(call.arguments, context.chunkChars)) event("response.function_call_arguments.delta", { item_id: itemId, output_index: index, delta: piece });
    event("response.function_call_arguments.done", { item_id: itemId, output_index: index, arguments: call.arguments });
    event("response.output_item.done", { output_index: index, item: functionCall(call, call.arguments, "completed") });
  }
  event("response.completed", { response: envelope("completed", output) });
  response.end();
}
