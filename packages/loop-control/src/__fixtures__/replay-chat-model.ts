import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";

/**
 * A tiny chat model for tests: it replies from a script, first in first out, cuts each reply at
 * the first `stop` sequence like a real provider, optionally reports token usage, and throws a
 * clear error when the script runs out. Written against `BaseChatModel` (not
 * `@langchain/core/testing`) so it also runs on the 0.3 line.
 */
export class ReplayChatModel extends BaseChatModel {
  readonly prompts: string[] = [];
  private readonly replies: string[];
  private readonly usage?: { inputTokens: number; outputTokens: number };
  private next = 0;

  constructor(
    fields: { replies: readonly string[]; usage?: { inputTokens: number; outputTokens: number } } & BaseChatModelParams,
  ) {
    super(fields);
    this.replies = [...fields.replies];
    this.usage = fields.usage;
  }

  _llmType(): string {
    return "replay";
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    this.prompts.push(messages.map((message) => String(message.content)).join("\n"));
    if (this.next >= this.replies.length) {
      throw new Error(`ReplayChatModel: script exhausted after ${this.replies.length} replies.`);
    }
    let text = this.replies[this.next];
    this.next += 1;
    for (const stop of options.stop ?? []) {
      const index = text.indexOf(stop);
      if (index >= 0) text = text.slice(0, index);
    }
    const message = new AIMessage({
      content: text,
      ...(this.usage !== undefined
        ? {
            usage_metadata: {
              input_tokens: this.usage.inputTokens,
              output_tokens: this.usage.outputTokens,
              total_tokens: this.usage.inputTokens + this.usage.outputTokens,
            },
          }
        : {}),
    });
    return { generations: [{ text, message }] };
  }
}
