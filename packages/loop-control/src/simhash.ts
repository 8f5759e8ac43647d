import { fingerprintObservation } from "@reins/core";

/**
 * SimHash (Charikar, 2002) of a short text as two unsigned 32-bit halves: near-duplicate texts
 * get fingerprints a few bits apart, unrelated ones about 32 bits apart. Features are the text's
 * lower-cased words and word pairs; digits-only words (step numbers such as "Thought 3") are
 * dropped so "Thought 3: I need X" and "Thought 4: I need X" are the same thought.
 */
export interface SimHash {
  readonly high: number;
  readonly low: number;
  /** Number of words the hash was built from. */
  readonly wordCount: number;
}

/** Splits a thought into comparable words: lower case, letters and digits only, no bare numbers. */
export function thoughtWords(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((word) => !/^\p{N}+$/u.test(word));
}

/**
 * Computes the 64-bit SimHash of `text`.
 * @param text - any text; an empty text hashes to 0
 */
export function simHash(text: string): SimHash {
  const words = thoughtWords(text);
  const features: string[] = [...words];
  for (let index = 1; index < words.length; index += 1) features.push(`${words[index - 1]} ${words[index]}`);
  const weights = new Array<number>(64).fill(0);
  for (const feature of features) {
    const hex = fingerprintObservation(feature);
    const high = Number.parseInt(hex.slice(0, 8), 16);
    const low = Number.parseInt(hex.slice(8), 16);
    for (let bit = 0; bit < 32; bit += 1) {
      weights[bit] += (high >>> bit) & 1 ? 1 : -1;
      weights[32 + bit] += (low >>> bit) & 1 ? 1 : -1;
    }
  }
  let high = 0;
  let low = 0;
  for (let bit = 0; bit < 32; bit += 1) {
    if (weights[bit] > 0) high |= 1 << bit;
    if (weights[32 + bit] > 0) low |= 1 << bit;
  }
  return { high: high >>> 0, low: low >>> 0, wordCount: words.length };
}

function popCount(value: number): number {
  let rest = value >>> 0;
  let count = 0;
  while (rest !== 0) {
    rest &= rest - 1;
    count += 1;
  }
  return count;
}

/** Number of differing bits (0..64) between two SimHashes. */
export function hammingDistance(left: SimHash, right: SimHash): number {
  return popCount(left.high ^ right.high) + popCount(left.low ^ right.low);
}
