import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";

/**
 * A scripted chat model for tests: replies first in first out, cuts each reply at the first
 * `stop` sequence like a real provider, records every prompt, and throws when the script runs
 * out. Built on `BaseChatModel` (not `@langchain/core/testing`) so it also runs on the 0.3 line.
 */
export class ReplayChatModel extends BaseChatModel {
  readonly prompts: string[] = [];
  private readonly replies: string[];
  private next = 0;

  constructor(fields: { replies: readonly string[] } & BaseChatModelParams) {
    super(fields);
    this.replies = [...fields.replies];
  }

  _llmType(): string {
    return "replay";
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    this.prompts.push(messages.map((message) => String(message.content)).join("\n"));
    const reply = this.replies[this.next];
    if (reply === undefined) throw new Error(`ReplayChatModel: script exhausted after ${this.replies.length} replies.`);
    this.next += 1;
    let text = reply;
    for (const stop of options.stop ?? []) {
      const index = text.indexOf(stop);
      if (index >= 0) text = text.slice(0, index);
    }
    return { generations: [{ text, message: new AIMessage({ content: text }) }] };
  }
}
