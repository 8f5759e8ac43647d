/**
 * An in-process scripted chat model for the trajectory replay: returns recorded model outputs in
 * order, applies `stop` as the OpenAI API does, and throws {@link ScriptExhaustedError} when the
 * recording has no turn left. Works on `@langchain/core` 0.3 and 1.x (no `@langchain/core/testing`).
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { SimpleChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import { applyStopSequences } from "./replay-server";

const SCRIPT_EXHAUSTED_MARKER = Symbol.for("reins.examples.script_exhausted");

/** The model was called after its last scripted output. */
export class ScriptExhaustedError extends Error {
  private readonly [SCRIPT_EXHAUSTED_MARKER] = true;
  /** The 1-based number of the call that found the script empty. */
  readonly call: number;

  constructor(options: { call: number; message?: string }) {
    super(options.message ?? `The recorded model has no output left for call #${options.call}.`);
    this.name = "ScriptExhaustedError";
    this.call = options.call;
  }

  static isInstance(error: unknown): error is ScriptExhaustedError {
    return typeof error === "object" && error !== null && SCRIPT_EXHAUSTED_MARKER in error;
  }
}

/** Options of {@link ScriptedChatModel}. */
export interface ScriptedChatModelOptions extends BaseChatModelParams {
  /** The outputs, in order. */
  outputs: readonly string[];
}

/** See the module comment. */
export class ScriptedChatModel extends SimpleChatModel {
  /** Number of calls answered (or refused) so far. */
  calls = 0;
  private readonly queue: string[];

  constructor(options: ScriptedChatModelOptions) {
    super(options);
    this.queue = [...options.outputs];
  }

  _llmType(): string {
    return "reins-scripted";
  }

  /** Outputs not used yet. */
  get pending(): number {
    return this.queue.length;
  }

  async _call(_messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<string> {
    this.calls += 1;
    const next = this.queue.shift();
    if (next === undefined) throw new ScriptExhaustedError({ call: this.calls });
    return applyStopSequences(next, options.stop ?? []).text;
  }

  async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const text = await this._call(messages, options);
    yield new ChatGenerationChunk({ message: new AIMessageChunk({ content: text }), text });
    await runManager?.handleLLMNewToken(text);
  }
}
