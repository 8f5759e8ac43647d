import { LoopControlOptionsError } from "./errors";
import { estimateTokensFromChars } from "./loop-control-options";
import type { LLMResult } from "@langchain/core/outputs";
import { stableStringify } from "@reins/core";

/** Tokens of one model call, as the provider reported them or as estimated. */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** True when no provider count was found and the `estimateTokens` option counted instead. */
  readonly estimated: boolean;
}

/** The text of a message, a generation or any value (content parts joined). */
export function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  if (typeof value === "object") {
    const content = (value as { content?: unknown }).content;
    if (typeof content === "string") return content;
    if (Array.isArray(content)) {
      return content
        .map((part) => (typeof part === "string" ? part : typeof part?.text === "string" ? part.text : stableStringify(part)))
        .join("");
    }
  }
  return stableStringify(value);
}

/** The first model name found in the given records (`model`, `model_name`, `modelName`, `ls_model_name`). */
export function modelNameFrom(...sources: unknown[]): string | undefined {
  for (const source of sources) {
    if (source === null || typeof source !== "object") continue;
    const record = source as Record<string, unknown>;
    for (const key of ["model", "model_name", "modelName", "ls_model_name"]) {
      if (typeof record[key] === "string" && (record[key] as string).length > 0) return record[key] as string;
    }
  }
  return undefined;
}

function numberOr(value: unknown, fallback = 0): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : fallback;
}

interface UsageMetadataLike {
  readonly input_tokens?: unknown;
  readonly output_tokens?: unknown;
}

/**
 * Usage of one model call from its `LLMResult` (callback path): `llmOutput.tokenUsage` (the
 * provider's count), then `usage_metadata` of the generations' messages, then LangChain's
 * `estimatedTokenUsage`, else `estimate` over the prompt and reply text.
 *
 * @param output - the `LLMResult` LangChain hands `handleLLMEnd`
 * @param inputText - the prompt text (for the estimate)
 * @param estimate - tokens of a text (the `estimateTokens` option, already made safe)
 */
export function usageOfLlmResult(output: LLMResult, inputText: string | undefined, estimate: (text: string) => number): TokenUsage {
  for (const [key, estimated] of [["tokenUsage", false], ["estimatedTokenUsage", true]] as const) {
    const reported = output.llmOutput?.[key] as { promptTokens?: unknown; completionTokens?: unknown } | undefined;
    if (reported !== undefined && (numberOr(reported.promptTokens) > 0 || numberOr(reported.completionTokens) > 0)) {
      return { inputTokens: numberOr(reported.promptTokens), outputTokens: numberOr(reported.completionTokens), estimated };
    }
  }
  let inputTokens = 0;
  let outputTokens = 0;
  let measured = false;
  const texts: string[] = [];
  for (const generations of output.generations ?? []) {
    const first = generations[0];
    if (first === undefined) continue;
    texts.push(first.text ?? "");
    const usage = (first as { message?: { usage_metadata?: UsageMetadataLike } }).message?.usage_metadata;
    if (usage !== undefined) {
      measured = true;
      inputTokens += numberOr(usage.input_tokens);
      outputTokens += numberOr(usage.output_tokens);
    }
  }
  if (measured) return { inputTokens, outputTokens, estimated: false };
  return { inputTokens: inputText === undefined ? 0 : estimate(inputText), outputTokens: estimate(texts.join("\n")), estimated: true };
}

/**
 * Usage of one model call from the reply itself (callback-free path): the message's
 * `usage_metadata` (LangChain's standard field, filled by every major chat model integration and
 * summed over stream chunks), then `response_metadata.tokenUsage` / `usage` (older integrations),
 * else `estimate` over the prompt and reply text. An LLM (string reply) is always estimated.
 *
 * @param reply - the chat model's `AIMessage` (or `AIMessageChunk` concatenated), or an LLM's string
 * @param inputText - the prompt text, or a function building it (called only for an estimate)
 * @param estimate - tokens of a text (the `estimateTokens` option, already made safe)
 */
export function usageOfReply(reply: unknown, inputText: string | (() => string), estimate: (text: string) => number): TokenUsage {
  if (reply !== null && typeof reply === "object") {
    const message = reply as { usage_metadata?: UsageMetadataLike; response_metadata?: Record<string, unknown> };
    const usage = message.usage_metadata;
    if (usage !== undefined && (numberOr(usage.input_tokens) > 0 || numberOr(usage.output_tokens) > 0)) {
      return { inputTokens: numberOr(usage.input_tokens), outputTokens: numberOr(usage.output_tokens), estimated: false };
    }
    const metadata = message.response_metadata;
    const reported = (metadata?.tokenUsage ?? metadata?.usage) as Record<string, unknown> | undefined;
    if (reported !== undefined && reported !== null && typeof reported === "object") {
      const input = numberOr(reported.promptTokens ?? reported.prompt_tokens ?? reported.input_tokens);
      const output = numberOr(reported.completionTokens ?? reported.completion_tokens ?? reported.output_tokens);
      if (input > 0 || output > 0) return { inputTokens: input, outputTokens: output, estimated: false };
    }
  }
  const prompt = typeof inputText === "function" ? inputText() : inputText;
  return { inputTokens: estimate(prompt), outputTokens: estimate(textOf(reply)), estimated: true };
}

/** The model name a reply reports (`response_metadata.model_name` / `model`), if any. */
export function modelNameOfReply(reply: unknown): string | undefined {
  if (reply === null || typeof reply !== "object") return undefined;
  return modelNameFrom((reply as { response_metadata?: unknown }).response_metadata);
}

/**
 * Tokens of `text` by the `estimateTokens` option. A throw, or a result that is not a finite
 * number ≥ 0 (a Promise, NaN), is reported to `reportError` and replaced by the characters ÷ 4
 * estimate, so the call's usage still counts toward the budgets.
 */
export function estimateTokensSafely(
  estimateTokens: (text: string) => unknown,
  text: string,
  reportError: (error: unknown) => void,
): number {
  let tokens: unknown;
  try {
    tokens = estimateTokens(text);
  } catch (error) {
    reportError(error);
    return estimateTokensFromChars(text);
  }
  if (typeof tokens === "number" && Number.isFinite(tokens) && tokens >= 0) return tokens;
  reportError(
    new LoopControlOptionsError({
      field: "estimateTokens",
      value: tokens,
      reason: `it returned ${String(tokens)} instead of a finite number ≥ 0; characters ÷ 4 were counted instead`,
    }),
  );
  return estimateTokensFromChars(text);
}

/**
 * The model names of a finished call, most authoritative first: the provider's (`llmOutput`, then
 * each generation's `response_metadata`), then `requested` (the name the call was started with).
 */
export function modelNamesOfLlmResult(output: LLMResult, requested: string | undefined): Array<string | undefined> {
  const responseModels = (output.generations ?? []).flatMap((generations) =>
    generations.map((generation) => (generation as { message?: { response_metadata?: unknown } }).message?.response_metadata),
  );
  return [modelNameFrom(output.llmOutput), modelNameFrom(...responseModels), requested];
}
