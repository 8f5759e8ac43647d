/**
 * Structure-aware cutting of plain text (and HTML converted to text) to a character budget: the
 * head is kept, then an outline of what lies between (each heading with the first sentence under
 * it, and error/warning lines), then the tail; "[N characters omitted]" marks every gap.
 */
import { omittedCharactersMarker } from "./messages";

interface Segment {
  readonly start: number;
  readonly end: number;
}

const ERROR_LINE = /\b(?:error|exception|fatal|failed|failure|traceback|panic|denied|not found|warning)\b/i;
const MARKER_RESERVE = 32;

function safeIndex(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}

/** Backs up to a word boundary when one is near, so words are not split. */
function wordBoundaryBefore(text: string, index: number, slack: number): number {
  for (let position = index; position > index - slack && position > 0; position -= 1) {
    if (/\s/.test(text[position] ?? "")) return position;
  }
  return safeIndex(text, index);
}

function wordBoundaryAfter(text: string, index: number, slack: number): number {
  for (let position = index; position < index + slack && position < text.length; position += 1) {
    if (/\s/.test(text[position - 1] ?? "")) return position;
  }
  return safeIndex(text, index);
}

/** Start offsets of the blocks (paragraphs separated by blank lines, or lines) of `text`. */
function blockOffsets(text: string, from: number, to: number): Segment[] {
  const blocks: Segment[] = [];
  let start = from;
  while (start < to) {
    let end = text.indexOf("\n", start);
    if (end === -1 || end > to) end = to;
    if (end > start) blocks.push({ start, end });
    start = end + 1;
  }
  return blocks;
}

function firstSentenceEnd(text: string, start: number, end: number, max: number): number {
  const limit = Math.min(end, start + max);
  for (let position = start + 20; position < limit; position += 1) {
    const character = text[position];
    if ((character === "." || character === "!" || character === "?") && /\s/.test(text[position + 1] ?? " ")) return position + 1;
  }
  return limit === end ? end : wordBoundaryBefore(text, limit, 30);
}

/**
 * Cuts `text` to at most `maxChars` characters.
 *
 * @param tailShare - share of the budget for the end of the text (logs end with the error; web
 *   pages with boilerplate)
 * @returns the text unchanged when it fits
 */
export function truncateText(text: string, maxChars: number, tailShare = 0.2): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const usable = maxChars - 3 * MARKER_RESERVE;
  const headBudget = Math.floor(usable * (0.62 - tailShare / 2));
  const tailBudget = Math.floor(usable * tailShare);
  const headEnd = wordBoundaryBefore(text, headBudget, 40);
  const tailStart = tailBudget > 0 ? wordBoundaryAfter(text, text.length - tailBudget, 40) : text.length;
  const segments: Segment[] = [{ start: 0, end: headEnd }];
  let outlineBudget = usable - headEnd - (text.length - tailStart);
  // The outline: headings with their first sentence, and error lines, in document order.
  if (tailStart > headEnd && outlineBudget > 0) {
    const blocks = blockOffsets(text, headEnd, tailStart);
    let index = 0;
    while (index < blocks.length && outlineBudget > 0) {
      const block = blocks[index] as Segment;
      const line = text.slice(block.start, Math.min(block.end, block.start + 400));
      const isHeading = /^#{1,6} \S/.test(line);
      if (isHeading || ERROR_LINE.test(line)) {
        const picked: Segment[] = [];
        if (isHeading) {
          picked.push({ start: block.start, end: Math.min(block.end, block.start + 160) });
          const next = blocks[index + 1];
          if (next !== undefined && !/^#{1,6} /.test(text.slice(next.start, next.start + 8))) {
            picked.push({ start: next.start, end: firstSentenceEnd(text, next.start, next.end, 260) });
            index += 1;
          }
        } else picked.push({ start: block.start, end: firstSentenceEnd(text, block.start, block.end, 260) });
        const cost = picked.reduce((sum, segment) => sum + segment.end - segment.start + MARKER_RESERVE, 0);
        if (cost > outlineBudget) break;
        outlineBudget -= cost;
        segments.push(...picked);
      }
      index += 1;
    }
  }
  if (tailStart < text.length) segments.push({ start: tailStart, end: text.length });
  let result = "";
  let previousEnd = 0;
  for (const segment of segments) {
    if (segment.start > previousEnd) {
      const gap = text.slice(previousEnd, segment.start);
      const separator = gap.trim().length === 0 ? gap : `\n${omittedCharactersMarker(segment.start - previousEnd)}\n`;
      result += separator;
    }
    result += text.slice(Math.max(segment.start, previousEnd), segment.end);
    previousEnd = Math.max(previousEnd, segment.end);
  }
  if (previousEnd < text.length) result += `\n${omittedCharactersMarker(text.length - previousEnd)}`;
  if (result.length > maxChars) {
    // Markers longer than reserved (huge counts): fall back to a plain head cut.
    const marker = `\n${omittedCharactersMarker(text.length)}`;
    const end = safeIndex(text, maxChars - marker.length);
    result = text.slice(0, end) + `\n${omittedCharactersMarker(text.length - end)}`;
    if (result.length > maxChars) result = result.slice(0, safeIndex(result, maxChars));
  }
  return { text: result, truncated: true };
}
