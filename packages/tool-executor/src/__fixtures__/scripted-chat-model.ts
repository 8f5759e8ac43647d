import { SimpleChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";

/** A reply, or a function of the prompt text that returns one. */
export type ScriptedReply = string | ((promptText: string) => string);

/**
 * A tiny chat model for tests and benchmarks: it answers from a script, first in first out, and
 * honours `stop` sequences like a real provider (the text is cut before the first stop string).
 * It throws a clear error when the script is exhausted, and records every prompt it saw.
 * Written against `SimpleChatModel` (not `@langchain/core/testing`) so it also works on core 0.3.
 */
export class ScriptedChatModel extends SimpleChatModel {
  readonly prompts: string[] = [];
  private readonly replies: ScriptedReply[];
  private readonly cycle: boolean;
  private next = 0;

  constructor(fields: { replies: readonly ScriptedReply[]; cycle?: boolean } & BaseChatModelParams) {
    super(fields);
    this.replies = [...fields.replies];
    this.cycle = fields.cycle ?? false;
  }

  _llmType(): string {
    return "scripted";
  }

  async _call(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<string> {
    const promptText = messages.map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content))).join("\n");
    this.prompts.push(promptText);
    if (this.next >= this.replies.length) {
      if (!this.cycle || this.replies.length === 0) {
        throw new Error(`ScriptedChatModel: script exhausted after ${this.replies.length} replies.`);
      }
      this.next = 0;
    }
    const reply = this.replies[this.next];
    this.next += 1;
    const text = typeof reply === "function" ? reply(promptText) : reply;
    let cut = text.length;
    for (const stop of options.stop ?? []) {
      const index = text.indexOf(stop);
      if (index !== -1 && index < cut) cut = index;
    }
    return text.slice(0, cut);
  }
}

/** The `hwchase17/react` prompt, as the stock `createReactAgent` expects it. */
export { REACT_PROMPT_TEMPLATE } from "@reins/core";

/** A ReAct step calling `tool` with `input`. */
export function actionReply(tool: string, input: string): string {
  return `I should use ${tool}.\nAction: ${tool}\nAction Input: ${input}\nObservation: (hallucinated, must be cut by stop)`;
}

/** A ReAct final answer. */
export function finalReply(answer: string): string {
  return `I now know the final answer.\nFinal Answer: ${answer}`;
}
