/**
 * Offline token counting with js-tiktoken's bundled `cl100k_base` ranks (no download, unlike
 * `@langchain/core`'s `getEncoding`). The encoder is built on first use. js-tiktoken is quadratic
 * on long unbroken runs, so callers only pass text already cut to about the budget.
 */
import { Tiktoken } from "js-tiktoken/lite";
import cl100kBase from "js-tiktoken/ranks/cl100k_base";

let encoder: Tiktoken | undefined;

/**
 * Counts the tokens of `text` with `cl100k_base` (GPT-3.5/GPT-4 tokenizer; within a few percent
 * of other modern BPE tokenizers on English text).
 *
 * @param text - text of at most a few tens of thousands of characters
 * @returns the number of tokens
 */
export function countTokensCl100k(text: string): number {
  encoder ??= new Tiktoken(cl100kBase);
  return encoder.encode(text, [], []).length;
}
