/**
 * The edges of one untrusted text: a label split across two tool results. An observation that
 * ends part-way into a label (`…Final Ans`, a trailing fragment a following text could complete)
 * or starts with a label's tail (`wer: pwned`) holds no label on its own, yet a model that joins
 * consecutive observations writes one. Each such edge is marked like a label (`«Final Ans»`,
 * `«wer»: pwned`), in the same view the other shapes are found in, so no join reads as a label.
 */
import { type ReActLabelSet, normalizeLabelWord } from "./label-grammar";
import { NEUTRALIZED_CLOSE, NEUTRALIZED_OPEN } from "./neutralized-marks";
import type { ReActGrammar } from "./react-grammar";
import type { Edit } from "./untrusted-text-view";

interface LabelPieces {
  /** Every label word (normalised, and glued when it has spaces). */
  readonly words: readonly string[];
  /** Every proper, non-empty tail of a word (`wer`, `nswer`, `swer`, `input` of `action input`). */
  readonly tails: ReadonlySet<string>;
  readonly maxWordLength: number;
}

/**
 * The shortest tail marked: two characters (a one-letter head such as `r:` is everyday text), one
 * only for a two-letter word (`AI`: `A` + `I: …`). A trailing fragment is marked from two
 * characters on. A split leaves two pieces and both edges are checked, so one is always marked.
 */
function minimumPiece(wordLength: number): number {
  return wordLength <= 2 ? 1 : 2;
}

const piecesCache = new WeakMap<ReActLabelSet, LabelPieces>();

function piecesOf(labels: ReActLabelSet): LabelPieces {
  const cached = piecesCache.get(labels);
  if (cached !== undefined) return cached;
  const words = new Set<string>();
  for (const list of Object.values(labels) as (readonly string[])[]) {
    for (const word of list) {
      const normalized = normalizeLabelWord(word);
      if (normalized.length === 0) continue;
      words.add(normalized);
      if (normalized.includes(" ")) words.add(normalized.split(" ").join(""));
    }
  }
  const tails = new Set<string>();
  let maxWordLength = 0;
  for (const word of words) {
    maxWordLength = Math.max(maxWordLength, word.length);
    const characters = [...word];
    for (let cut = 1; cut < characters.length; cut += 1) {
      const tail = normalizeLabelWord(characters.slice(cut).join(""));
      if (tail.length >= minimumPiece(characters.length) && !words.has(tail)) tails.add(tail);
    }
  }
  const pieces = { words: [...words], tails, maxWordLength };
  piecesCache.set(labels, pieces);
  return pieces;
}

/** Characters before a label that `matchReActLabel` skips: whitespace and markdown markers. */
const LEAD = new Set([" ", "\t", "*", "_", "#", ">", "`", "~", "-", "+"]);

function isBlank(character: string | undefined): boolean {
  return character === " " || character === "\t" || character === "\n";
}

/** `normalizeLabelWord` of a fragment, without a trailing step number ("Action 2"). */
function normalizedFragment(fragment: string): string {
  return normalizeLabelWord(fragment).replace(/[\s\d]+$/, "");
}

/**
 * Marks the edges of `view` (the neutraliser's view of one untrusted text) that a neighbouring
 * text could complete into a label of `grammar.neutralizedLabels`; pushes the edits and names
 * what it found (`edge end Final Ans`, `edge start wer`). Bounded work: only the first and last
 * line, each up to the longest label word.
 */
export function findLabelEdges(view: string, grammar: ReActGrammar, edits: Edit[], found: string[]): void {
  const pieces = piecesOf(grammar.neutralizedLabels);
  const window = pieces.maxWordLength * 2 + 8;
  // The end: the last line, when it is the start of a label word with no colon yet.
  let end = view.length;
  while (end > 0 && isBlank(view[end - 1])) end -= 1;
  let lineStart = end;
  while (lineStart > 0 && view[lineStart - 1] !== "\n" && end - lineStart <= window + 16) lineStart -= 1;
  if (lineStart === 0 || view[lineStart - 1] === "\n") {
    let fragmentStart = lineStart;
    while (fragmentStart < end && LEAD.has(view[fragmentStart] as string)) fragmentStart += 1;
    const fragment = view.slice(fragmentStart, end);
    if (fragment.length > 0 && fragment.length <= window && !fragment.includes(":") && !fragment.includes("\uff1a")) {
      const normalized = normalizedFragment(fragment);
      if (normalized.length > 0 && normalized.length >= 2 && pieces.words.some((word) => word.startsWith(normalized))) {
        edits.push({ at: fragmentStart, replace: false, text: NEUTRALIZED_OPEN });
        edits.push({ at: end, replace: false, text: NEUTRALIZED_CLOSE });
        found.push(`edge end ${fragment}`);
      }
    }
  }
  // The start: a first line that begins with a label word's tail and a colon.
  let start = 0;
  while (start < view.length && (isBlank(view[start]) || LEAD.has(view[start] as string))) start += 1;
  let colon = start;
  while (colon < view.length && colon - start <= window && view[colon] !== ":" && view[colon] !== "\uff1a" && view[colon] !== "\n") colon += 1;
  if (colon > start && colon < view.length && (view[colon] === ":" || view[colon] === "\uff1a")) {
    let headEnd = colon;
    while (headEnd > start && (isBlank(view[headEnd - 1]) || LEAD.has(view[headEnd - 1] as string))) headEnd -= 1;
    const head = view.slice(start, headEnd);
    if (head.length > 0 && pieces.tails.has(normalizedFragment(head))) {
      edits.push({ at: start, replace: false, text: NEUTRALIZED_OPEN });
      edits.push({ at: headEnd, replace: false, text: NEUTRALIZED_CLOSE });
      found.push(`edge start ${head}`);
    }
  }
}
