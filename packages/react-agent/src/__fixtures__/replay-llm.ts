import { LLM, type BaseLLMParams } from "@langchain/core/language_models/llms";

/** One call the replay LLM answered. */
export interface ReplayLLMCall {
  readonly prompt: string;
  readonly stop: readonly string[] | undefined;
  readonly output: string;
}

/**
 * A scripted plain LLM (string in, string out) for tests, on `@langchain/core` 0.3 and 1.x: a FIFO
 * of completions that applies `stop` like a completion API, records every prompt, and throws a
 * clear error when the script is exhausted.
 */
export class ReplayLLM extends LLM {
  readonly calls: ReplayLLMCall[] = [];
  private readonly queue: string[];

  constructor(options: BaseLLMParams & { outputs: readonly string[] }) {
    super(options);
    this.queue = [...options.outputs];
  }

  _llmType(): string {
    return "reins-replay-llm";
  }

  async _call(prompt: string, options: this["ParsedCallOptions"]): Promise<string> {
    const next = this.queue.shift();
    if (next === undefined) throw new Error(`ReplayLLM: no scripted completion left for call #${this.calls.length + 1}.`);
    let output = next;
    for (const sequence of options.stop ?? []) {
      const index = output.indexOf(sequence);
      if (index !== -1) output = output.slice(0, index);
    }
    this.calls.push({ prompt, stop: options.stop, output });
    return output;
  }
}
