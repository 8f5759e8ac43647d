/**
 * Offline token counting with gpt-tokenizer's bundled `cl100k_base` ranks (no download, unlike
 * `@langchain/core`'s `getEncoding`); the same counts as js-tiktoken's `cl100k_base` (the tests
 * compare them), with about a third of its start-up cost (about 115 ms for import plus first count,
 * against about 350 ms to build js-tiktoken's encoder; see `npm run bench -- cleaner`). The
 * cleaner estimates with {@link estimateTokens} unless exact counts are asked for
 * (`exactTokens`, or a `maxTokens` budget the text comes near). A BPE merge step
 * is quadratic in the length of an unbroken run, so text is encoded in pieces of at most
 * {@link TOKEN_CHUNK_CHARS} characters, cut after a line break when there is one (the count stays
 * exact there: the tokenizer's pre-split never joins across it), and letter runs of 64+
 * characters in 32-character slices. The time is linear in the text length.
 */
import { encode } from "gpt-tokenizer/encoding/cl100k_base";

/** Largest piece handed to the encoder at once. */
export const TOKEN_CHUNK_CHARS = 2000;

/** Special-token names (`<|endoftext|>`, …) in the text are counted as plain text, never refused. */
const AS_PLAIN_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/** Tokens of one piece of text. */
function encodedLength(text: string): number {
  return encode(text, AS_PLAIN_TEXT).length;
}

/**
 * A cheap token estimate for `cl100k_base`-like tokenizers, without loading any ranks: letter
 * runs count one token per 6 letters (rounded up), digit runs one per 3 digits, ASCII
 * punctuation runs one per 2 characters, every other non-space character one. Within about a third of `cl100k_base` on the package's fixtures (JSON, HTML
 * page text, Markdown), mostly within 15 %; it over-counts accented and CJK text. Linear, and free of allocation beyond the regex scan.
 *
 * @param text - any text
 * @returns the estimated number of tokens
 */
export function estimateTokens(text: string): number {
  let count = 0;
  ESTIMATE_PIECE.lastIndex = 0;
  for (let match = ESTIMATE_PIECE.exec(text); match !== null; match = ESTIMATE_PIECE.exec(text)) {
    const piece = match[0];
    const code = piece.charCodeAt(0);
    if (code >= 0x30 && code <= 0x39) count += Math.ceil(piece.length / 3);
    else if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) count += Math.ceil(piece.length / 6);
    else if (code < 0x80) count += Math.ceil(piece.length / 2);
    else count += piece.length;
  }
  return count;
}

const ESTIMATE_PIECE = /[A-Za-z]+|\d+|[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]+|[^\x00-\x7f]/g;

/** UTF-8 length of `text`: no byte-level BPE writes more tokens than bytes. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Counts the tokens of `text` with `cl100k_base` (GPT-3.5/GPT-4 tokenizer; within a few percent
 * of other modern BPE tokenizers on English text). Linear in the text length. Exact when every
 * line is shorter than 1 000 characters; otherwise within about one token per 2 000 characters
 * (and a slight over-count inside letter runs of 64+ characters).
 *
 * @param text - any text
 * @returns the number of tokens
 */
export function countTokensCl100k(text: string): number {
  let count = 0;
  let position = 0;
  // Long letter runs (base64, hashes, "xxxx…") are one pre-split piece, on which BPE is
  // quadratic: encode them in slices (a slight over-count at each cut).
  LONG_RUN.lastIndex = 0;
  for (let match = LONG_RUN.exec(text); match !== null; match = LONG_RUN.exec(text)) {
    count += countChunked(text.slice(position, match.index));
    for (let start = match.index; start < match.index + match[0].length; start += RUN_SLICE_CHARS) {
      count += encodedLength(match[0].slice(start - match.index, start - match.index + RUN_SLICE_CHARS));
    }
    position = match.index + match[0].length;
  }
  return count + countChunked(text.slice(position));
}

const LONG_RUN = /[^\s\p{P}\p{S}]{64,}/gu;
const RUN_SLICE_CHARS = 32;

/**
 * Where to end a chunk: right after a line break followed by a non-space character (no
 * pre-split piece spans such a point, so the count is exact); else before a space (exact for
 * plain words, off by at most one around punctuation); else at the limit.
 */
function chunkEnd(text: string, start: number, limit: number): number {
  const floor = start + TOKEN_CHUNK_CHARS / 2;
  for (let cut = limit; cut > floor; cut -= 1) {
    if (text[cut - 1] === "\n" && !/\s/.test(text[cut] ?? " ")) return cut;
  }
  for (let cut = limit; cut > floor; cut -= 1) if (text[cut] === " ") return cut;
  return /[\udc00-\udfff]/.test(text[limit] ?? "") ? limit - 1 : limit;
}

function countChunked(text: string): number {
  let count = 0;
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + TOKEN_CHUNK_CHARS);
    if (end < text.length) end = chunkEnd(text, start, end);
    count += encodedLength(text.slice(start, end));
    start = end;
  }
  return count;
}
