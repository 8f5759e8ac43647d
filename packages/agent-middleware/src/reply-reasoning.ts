/**
 * The reasoning a model reply carries beside its text, where each integration puts it: vLLM's,
 * DeepSeek's and llama.cpp's `reasoning_content` (`additional_kwargs.reasoning_content`, as
 * `ChatOpenAI` maps it), a `reasoning` string in `additional_kwargs` (newer vLLM, Ollama and other
 * integrations), and content blocks of type `reasoning` (LangChain's standard block: `reasoning`)
 * or `thinking` (`thinking`). It is the model's own output, read for calls only when nothing
 * stands outside it (the rescue's rule for a reasoning block).
 */
import type { AIMessage } from "@langchain/core/messages";

/** The reply's reasoning, joined by newlines, or `undefined` when it carries none. */
export function reasoningOfReply(message: AIMessage): string | undefined {
  const parts: string[] = [];
  const kwargs = (message.additional_kwargs ?? {}) as Record<string, unknown>;
  for (const key of ["reasoning_content", "reasoning"]) {
    const value = kwargs[key];
    if (typeof value === "string" && value.trim().length > 0) parts.push(value);
  }
  if (Array.isArray(message.content)) {
    for (const block of message.content as unknown[]) {
      if (block === null || typeof block !== "object") continue;
      const { type, reasoning, thinking } = block as { type?: unknown; reasoning?: unknown; thinking?: unknown };
      if (type === "reasoning" && typeof reasoning === "string" && reasoning.trim().length > 0) parts.push(reasoning);
      else if (type === "thinking" && typeof thinking === "string" && thinking.trim().length > 0) parts.push(thinking);
    }
  }
  return parts.length === 0 ? undefined : parts.join("\n");
}
