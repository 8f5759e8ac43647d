/**
 * Reasoning blocks (`<think>…</think>`, `<thinking>`, `<reasoning>`, `<reflection>`, Kimi's
 * `◁think▷…◁/think▷`: the one grammar's `REASONING_TAG_NAMES` and `REASONING_MARKS`): never acted
 * on, but kept aside so a reply whose only step stands inside one can still be read.
 */
import { REASONING_MARKS, REASONING_TAG_NAMES } from "@reins/core";

/** Any opening or closing reasoning tag or mark, found in one left-to-right scan. */
const REASONING_TAG = new RegExp(`<(/?)(?:${REASONING_TAG_NAMES.join("|")})>|${REASONING_MARKS.map((mark) => mark.replace("/", "(/)")).join("|")}`, "gi");

/** The text with reasoning blocks removed. */
export interface ReasoningStripped {
  readonly text: string;
  /** A complete block (or a stray closing tag with reasoning before it) was removed. */
  readonly removed: boolean;
  /** An opening tag was never closed: everything after it was reasoning. */
  readonly unclosed: boolean;
  /** What stood inside the blocks, joined by newlines ("" when none). */
  readonly inner: string;
}

const LINE_START_SKIPPED = new Set([" ", "\t", "*", "_", "#", ">"]);

/** An opening tag starts a block only at the start of a line (or right after another tag); mid-sentence it is prose. */
function opensBlock(text: string, index: number): boolean {
  let position = index - 1;
  while (position >= 0 && LINE_START_SKIPPED.has(text[position])) position -= 1;
  if (position < 0) return true;
  const before = text[position];
  return before === "\n" || before === "\u25b7" || (before === ">" && index - position === 1);
}

/**
 * Removes reasoning blocks. A closing tag before any opening tag (templates that put `<think>` in
 * the prompt) removes what precedes it; an opening tag never closed removes the rest of the text;
 * an empty block is removed. A tag written inside a sentence ("wrap it in <think> and </think>
 * tags") is prose, not a block, and is kept with its closing tag. Linear: one scan of the tags.
 */
export function stripReasoningBlocks(text: string): ReasoningStripped {
  if (!text.includes("<") && !text.includes("\u25c1")) return { text, removed: false, unclosed: false, inner: "" };
  let result = "";
  const inner: string[] = [];
  let cursor = 0;
  let removed = false;
  let openAt = -1;
  let seenTag = false;
  let proseTags = 0;
  REASONING_TAG.lastIndex = 0;
  for (let match = REASONING_TAG.exec(text); match !== null; match = REASONING_TAG.exec(text)) {
    const closing = match[1] === "/" || match[2] === "/";
    const end = match.index + match[0].length;
    if (!closing) {
      if (openAt >= 0) continue;
      if (!opensBlock(text, match.index)) {
        proseTags += 1;
        seenTag = true;
        continue;
      }
      result += text.slice(cursor, match.index);
      openAt = end;
      seenTag = true;
      continue;
    }
    if (openAt >= 0) {
      inner.push(text.slice(openAt, match.index));
      cursor = end;
      openAt = -1;
      removed = true;
    } else if (proseTags > 0) {
      proseTags -= 1;
    } else if (!seenTag) {
      // A closing tag before any opening tag: the prompt opened the block.
      inner.push(text.slice(cursor, match.index));
      cursor = end;
      removed = true;
    }
    seenTag = true;
  }
  if (openAt >= 0) {
    inner.push(text.slice(openAt));
    return { text: result, removed, unclosed: true, inner: inner.join("\n") };
  }
  result += text.slice(cursor);
  return { text: result, removed, unclosed: false, inner: inner.join("\n") };
}
