/**
 * Every chat-model test double of the Reins tests, examples and benches: one scripted model
 * (`SimpleChatModel`: text or prompt-dependent replies, optional cycling, streaming), one replay
 * model (`BaseChatModel`: recorded replies with optional token usage), one scripted plain LLM
 * (`LLM`: string completions), and one stop-sequence rule for all (cut at the earliest stop string, excluded, as the OpenAI API does). Written against
 * `@langchain/core`'s base classes, not `@langchain/core/testing`, so they also run on the 0.3 line.
 *
 * Every reply carries a random message id (`reins-scripted-<uuid>`, `reins-replay-<uuid>`), never a
 * counter: LangGraph's message reducer replaces a message that has the same id, so a thread resumed
 * in another process must never meet its earlier replies' ids again.
 */
import { randomUUID } from "node:crypto";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, SimpleChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { LLM, type BaseLLMParams } from "@langchain/core/language_models/llms";
import { ReinsError, brandReinsError } from "@reins/core";
import { applyStopSequences } from "@reins/replay";

/** One stop-sequence rule for the scripted models and the replay server (`@reins/replay`). */
export { applyStopSequences };

/**
 * A fresh message id for a reply of a Reins test model: `<prefix>-<uuid>`, unique across processes.
 * @param prefix - the model's name, e.g. `"reins-scripted"`
 */
export function freshReplyId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/** A prompt as one text: the messages' contents (non-string content as JSON), one per line. */
export function promptTextOf(messages: readonly BaseMessage[]): string {
  return messages.map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content))).join("\n");
}

/** The model was called after its last scripted reply. */
export class ScriptExhaustedError extends ReinsError {
  static {
    brandReinsError(this, "testing", "ScriptExhaustedError");
  }

  /** The 1-based number of the call that found the script empty. */
  readonly call: number;

  constructor(fields: { model: string; call: number; replies: number; message?: string }) {
    super(fields.message ?? `${fields.model}: script exhausted after ${fields.replies} replies (call #${fields.call}).`);
    this.name = "ScriptExhaustedError";
    this.call = fields.call;
  }
}

/** A reply, or a function of the prompt text that returns one. */
export type ScriptedReply = string | ((promptText: string) => string | Promise<string>);

/** One call a scripted model answered. */
export interface ScriptedCall {
  /** The prompt as one text ({@link promptTextOf}). */
  readonly prompt: string;
  readonly stop: readonly string[] | undefined;
  /** What the model returned (after the stop sequences). */
  readonly output: string;
}

/** Options of {@link ScriptedChatModel}. */
export interface ScriptedChatModelOptions extends BaseChatModelParams {
  /** The replies, first in first out. */
  replies: readonly ScriptedReply[];
  /** Start the script again after its last reply instead of throwing. @default false */
  cycle?: boolean;
  /** Cut replies at `stop` like a real API; `false` plays a model that ignores it. @default true */
  honorStop?: boolean;
  /** Characters per streamed chunk. @default the whole reply in one chunk */
  chunkChars?: number;
  /** Keep every call in {@link ScriptedChatModel.calls} (off for benchmarks). @default true */
  recordCalls?: boolean;
}

/**
 * A scripted chat model: answers from its script, cuts at `stop` ({@link applyStopSequences}),
 * streams, records every call, and throws {@link ScriptExhaustedError} when the script runs out.
 */
export class ScriptedChatModel extends SimpleChatModel {
  /** The calls answered, in order. */
  readonly calls: ScriptedCall[] = [];
  private readonly replies: readonly ScriptedReply[];
  private readonly cycle: boolean;
  private readonly honorStop: boolean;
  private readonly chunkChars: number | undefined;
  private readonly recordCalls: boolean;
  private next = 0;
  private count = 0;

  constructor(options: ScriptedChatModelOptions) {
    super(options);
    this.replies = [...options.replies];
    this.cycle = options.cycle ?? false;
    this.honorStop = options.honorStop ?? true;
    this.chunkChars = options.chunkChars;
    this.recordCalls = options.recordCalls ?? true;
  }

  _llmType(): string {
    return "reins-scripted";
  }

  /** The prompts of the calls answered. */
  get prompts(): string[] {
    return this.calls.map((call) => call.prompt);
  }

  /** Calls made so far, the one that found the script empty included. */
  get callCount(): number {
    return this.count;
  }

  /** Replies not used yet (`Infinity` when cycling). */
  get pending(): number {
    return this.cycle && this.replies.length > 0 ? Number.POSITIVE_INFINITY : this.replies.length - this.next;
  }

  /** Starts the script again from its first reply and forgets the calls. */
  reset(): void {
    this.next = 0;
    this.count = 0;
    this.calls.length = 0;
  }

  async _call(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<string> {
    this.count += 1;
    if (this.next >= this.replies.length) {
      if (!this.cycle || this.replies.length === 0) {
        throw new ScriptExhaustedError({ model: "ScriptedChatModel", call: this.count, replies: this.replies.length });
      }
      this.next = 0;
    }
    const reply = this.replies[this.next] as ScriptedReply;
    this.next += 1;
    const prompt = this.recordCalls || typeof reply === "function" ? promptTextOf(messages) : "";
    const text = typeof reply === "function" ? await reply(prompt) : reply;
    const output = this.honorStop ? applyStopSequences(text, options.stop ?? []).text : text;
    if (this.recordCalls) this.calls.push({ prompt, stop: options.stop, output });
    return output;
  }

  /** SimpleChatModel's reply, with a random id ({@link freshReplyId}). */
  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    const text = await this._call(messages, options);
    return { generations: [{ text, message: new AIMessage({ content: text, id: freshReplyId("reins-scripted") }) }] };
  }

  async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const text = await this._call(messages, options);
    const size = this.chunkChars ?? Math.max(1, text.length);
    // Every chunk of one reply carries the reply's id (chunks concatenate into one message).
    const id = freshReplyId("reins-scripted");
    if (text.length === 0) yield new ChatGenerationChunk({ message: new AIMessageChunk({ content: "", id }), text: "" });
    for (let offset = 0; offset < text.length; offset += size) {
      const piece = text.slice(offset, offset + size);
      yield new ChatGenerationChunk({ message: new AIMessageChunk({ content: piece, id }), text: piece });
      await runManager?.handleLLMNewToken(piece);
    }
  }
}

/** Token usage a {@link ReplayChatModel} reports with every reply. */
export interface ReplayUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/**
 * A replay model on `BaseChatModel`: recorded replies first in first out, cut at `stop`
 * ({@link applyStopSequences}), each an `AIMessage` with `usage_metadata` when `usage` is given;
 * records every prompt and throws {@link ScriptExhaustedError} when the recording runs out.
 */
export class ReplayChatModel extends BaseChatModel {
  readonly prompts: string[] = [];
  private readonly replies: readonly string[];
  private readonly usage: ReplayUsage | undefined;
  private next = 0;

  constructor(fields: { replies: readonly string[]; usage?: ReplayUsage } & BaseChatModelParams) {
    super(fields);
    this.replies = [...fields.replies];
    this.usage = fields.usage;
  }

  _llmType(): string {
    return "reins-replay";
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    this.prompts.push(promptTextOf(messages));
    const reply = this.replies[this.next];
    if (reply === undefined) throw new ScriptExhaustedError({ model: "ReplayChatModel", call: this.prompts.length, replies: this.replies.length });
    this.next += 1;
    const { text } = applyStopSequences(reply, options.stop ?? []);
    const usage = this.usage;
    const message = new AIMessage({
      content: text,
      id: freshReplyId("reins-replay"),
      ...(usage !== undefined
        ? { usage_metadata: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens } }
        : {}),
    });
    return { generations: [{ text, message }] };
  }
}

/** A ReAct step calling `tool` with `input`, followed by an invented observation the stop must cut. */
export function actionReply(tool: string, input: string): string {
  return `I should use ${tool}.\nAction: ${tool}\nAction Input: ${input}\nObservation: (hallucinated, must be cut by stop)`;
}

/** A ReAct final answer. */
export function finalReply(answer: string): string {
  return `I now know the final answer.\nFinal Answer: ${answer}`;
}

/** Options of {@link ScriptedLLM}. */
export interface ScriptedLLMOptions extends BaseLLMParams {
  /** The completions, first in first out. */
  replies: readonly ScriptedReply[];
}

/**
 * A scripted plain LLM (string prompt in, string completion out): answers from its script, cuts
 * at `stop` ({@link applyStopSequences}) like a completion API, records every call, and throws
 * {@link ScriptExhaustedError} when the script runs out.
 */
export class ScriptedLLM extends LLM {
  /** The calls answered, in order. */
  readonly calls: ScriptedCall[] = [];
  private readonly replies: readonly ScriptedReply[];
  private next = 0;

  constructor(options: ScriptedLLMOptions) {
    super(options);
    this.replies = [...options.replies];
  }

  _llmType(): string {
    return "reins-scripted-llm";
  }

  async _call(prompt: string, options: this["ParsedCallOptions"]): Promise<string> {
    const reply = this.replies[this.next];
    if (reply === undefined) throw new ScriptExhaustedError({ model: "ScriptedLLM", call: this.next + 1, replies: this.replies.length });
    this.next += 1;
    const text = typeof reply === "function" ? await reply(prompt) : reply;
    const output = applyStopSequences(text, options.stop ?? []).text;
    this.calls.push({ prompt, stop: options.stop, output });
    return output;
  }
}
