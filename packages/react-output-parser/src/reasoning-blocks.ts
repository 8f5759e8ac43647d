/** Reasoning blocks (`<think>…</think>` and the other tags of the one grammar): never acted on. */
import { REASONING_TAG_NAMES } from "@reins/core";

/** Opening and closing tags of reasoning blocks that are never acted on (the one grammar's, `@reins/core`). */
const REASONING_OPEN = new RegExp(`<(${REASONING_TAG_NAMES.join("|")})>`, "gi");
const REASONING_CLOSE = new RegExp(`</(${REASONING_TAG_NAMES.join("|")})>`, "gi");

/** The text with reasoning blocks removed. */
export interface ReasoningStripped {
  readonly text: string;
  /** A complete block (or a stray closing tag with reasoning before it) was removed. */
  readonly removed: boolean;
  /** An opening tag was never closed: everything after it was reasoning. */
  readonly unclosed: boolean;
}

/**
 * Removes `<think>…</think>` (and `<thinking>`, `<reasoning>`, `<reflection>`) blocks. A closing
 * tag with no opening tag before it (templates that put `<think>` in the prompt) removes what
 * precedes it; an opening tag never closed removes the rest of the text.
 */
export function stripReasoningBlocks(text: string): ReasoningStripped {
  if (!text.includes("<")) return { text, removed: false, unclosed: false };
  let result = "";
  let cursor = 0;
  let removed = false;
  let unclosed = false;
  REASONING_OPEN.lastIndex = 0;
  REASONING_CLOSE.lastIndex = 0;
  // A closing tag before any opening tag: the prompt opened the block.
  const firstOpen = REASONING_OPEN.exec(text);
  const firstClose = REASONING_CLOSE.exec(text);
  if (firstClose !== null && (firstOpen === null || firstClose.index < firstOpen.index)) {
    cursor = firstClose.index + firstClose[0].length;
    removed = true;
  }
  REASONING_OPEN.lastIndex = cursor;
  for (;;) {
    const open = REASONING_OPEN.exec(text);
    if (open === null) break;
    result += text.slice(cursor, open.index);
    REASONING_CLOSE.lastIndex = open.index + open[0].length;
    const close = REASONING_CLOSE.exec(text);
    if (close === null) {
      cursor = text.length;
      unclosed = true;
      break;
    }
    removed = true;
    cursor = close.index + close[0].length;
    REASONING_OPEN.lastIndex = cursor;
  }
  result += text.slice(cursor);
  return { text: result, removed, unclosed };
}

