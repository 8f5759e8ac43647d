import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { SimpleChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk } from "@langchain/core/outputs";

/** One call the replay model answered. */
export interface ReplayCall {
  /** The prompt as one text (messages joined). */
  readonly prompt: string;
  readonly stop: readonly string[] | undefined;
  /** What the model returned. */
  readonly output: string;
}

/** Options of {@link ReplayChatModel}. */
export interface ReplayChatModelOptions extends BaseChatModelParams {
  /** Scripted replies, returned in order; a call after the last one throws. */
  outputs: readonly string[];
  /**
   * Whether `stop` sequences cut the reply, as a real API does. `false` plays a model (or server)
   * that ignores `stop`.
   * @default true
   */
  honorStop?: boolean;
  /** Characters per streamed chunk. @default 7 */
  chunkChars?: number;
}

function messageText(message: BaseMessage): string {
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}

/**
 * A scripted chat model for tests (works on `@langchain/core` 0.3 and 1.x, unlike
 * `@langchain/core/testing`): a FIFO of replies that applies `stop` like the OpenAI API (cut at
 * the first stop string, excluded), streams in small chunks, records every prompt, and throws a
 * clear error when the script is exhausted.
 */
export class ReplayChatModel extends SimpleChatModel {
  readonly calls: ReplayCall[] = [];
  private readonly queue: string[];
  private readonly honorStop: boolean;
  private readonly chunkChars: number;

  constructor(options: ReplayChatModelOptions) {
    super(options);
    this.queue = [...options.outputs];
    this.honorStop = options.honorStop ?? true;
    this.chunkChars = options.chunkChars ?? 7;
  }

  _llmType(): string {
    return "reins-replay";
  }

  /** Replies not yet used. */
  get pending(): number {
    return this.queue.length;
  }

  async _call(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<string> {
    const next = this.queue.shift();
    if (next === undefined) {
      throw new Error(`ReplayChatModel: no scripted reply left for call #${this.calls.length + 1}.`);
    }
    const stop = options.stop;
    let output = next;
    if (this.honorStop && stop !== undefined) {
      let cut = -1;
      for (const sequence of stop) {
        const index = sequence.length > 0 ? next.indexOf(sequence) : -1;
        if (index !== -1 && (cut === -1 || index < cut)) cut = index;
      }
      if (cut !== -1) output = next.slice(0, cut);
    }
    this.calls.push({ prompt: messages.map(messageText).join("\n"), stop, output });
    return output;
  }

  async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const text = await this._call(messages, options);
    if (text.length === 0) yield new ChatGenerationChunk({ message: new AIMessageChunk({ content: "" }), text: "" });
    for (let offset = 0; offset < text.length; offset += this.chunkChars) {
      const piece = text.slice(offset, offset + this.chunkChars);
      yield new ChatGenerationChunk({ message: new AIMessageChunk({ content: piece }), text: piece });
      await runManager?.handleLLMNewToken(piece);
    }
  }
}
