/**
 * Structure-aware cutting of a document (Markdown, plain text, HTML converted to text) to a
 * character budget. A document is not cut after its first screen: its outline is kept first,
 * then its dense parts, then its prose, each part of the budget spent over the whole document.
 *
 * In rounds, each taken whole while the budget lasts:
 * 1. every heading (Markdown `#` lines and setext headings, lines in bold alone such as a pricing
 *    card's `**Starter**`, plain-text ALL-CAPS or numbered heading lines) and, for
 *    logs and plain text (`tailShare` of 0.2 or more), the last block;
 * 2. tables and lists sampled: header rows and the first rows, the first items and the last
 *    one (lists made only of links, such as menus, get three items);
 * 3. the first sentence of each section's prose (the document's lead gets up to a fifth of the
 *    budget), and every error or warning line;
 * 4. the rest of the tables and lists;
 * 5. the rest of the prose, spread evenly over the sections, whole sentences first.
 *
 * Every gap is marked with "[N characters omitted]". A text without headings, tables or lists
 * is cut by {@link truncateText} (head, outline, tail).
 */
import { omittedCharactersMarker } from "./messages";
import { truncateText } from "./truncate-text";

type BlockKind = "heading" | "table" | "list" | "paragraph";

interface Line {
  readonly start: number;
  readonly end: number;
}

interface Block {
  readonly kind: BlockKind;
  /** Indexes into the line list, first and one past the last. */
  readonly first: number;
  readonly last: number;
  readonly section: number;
  /** A list whose items are only links (a menu). */
  readonly linksOnly: boolean;
}

const MARKDOWN_HEADING = /^#{1,6} \S/;
/** The underline of a setext heading: `===` (h1) or `---` (h2), three or more. */
const SETEXT_UNDERLINE = /^\s{0,3}(?:={3,}|-{3,})\s*$/;
/** A line that is only bold text (`**Starter**`, `__Team__`), up to 80 characters. */
const BOLD_LABEL = /^(?:\*\*[^*\n]{1,80}\*\*|__[^_\n]{1,80}__)$/;
const NUMBERED_HEADING = /^(?:\d+(?:\.\d+)*\.?|[A-Z]\.|Appendix [A-Z0-9]+)\s+\S.{0,80}$/;
const TABLE_LINE = /^\s*\|.*\|\s*$|^\S.*\S {2,}\S.*\S {2,}\S/;
const LIST_LINE = /^\s*(?:[-*+•]|\d{1,3}[.)])\s+\S/;
const LINK_ONLY_ITEM = /^\s*(?:[-*+•]|\d{1,3}[.)])\s+(?:\[[^\]]*\]\([^)]*\)|<?https?:\/\/\S+>?)\s*$/;
const ERROR_LINE = /\b(?:error|exception|fatal|failed|failure|traceback|panic|denied|not found|warning)\b/i;
/** Lines shorter than this are labels or bylines, not prose to sample. */
const SHORT_LINE_CHARS = 60;
/** What a gap marker costs at most, with its line breaks. */
const GAP_COST = 30;

function isPlainHeading(text: string): boolean {
  if (text.length > 100 || text.length < 3 || /[.,;:!?]$/.test(text)) return false;
  if (NUMBERED_HEADING.test(text) && !LIST_LINE.test(text)) return /[A-Za-z]/.test(text) && text.split(/\s+/).length <= 12;
  const letters = text.replace(/[^\p{L}]/gu, "");
  if (letters.length < 4) return false;
  const upper = letters.replace(/[^\p{Lu}]/gu, "").length;
  return upper / letters.length >= 0.8;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    lines.push({ start, end });
    start = end + 1;
  }
  return lines;
}

function readBlocks(text: string, lines: readonly Line[]): Block[] {
  const blocks: Block[] = [];
  let section = 0;
  let index = 0;
  const lineText = (line: number): string => text.slice((lines[line] as Line).start, (lines[line] as Line).end);
  while (index < lines.length) {
    const first = lineText(index).trim();
    if (first.length === 0) {
      index += 1;
      continue;
    }
    const previousBlank = index === 0 || lineText(index - 1).trim().length === 0;
    const nextBlank = index + 1 >= lines.length || lineText(index + 1).trim().length === 0;
    const underline = index + 1 < lines.length && SETEXT_UNDERLINE.test(lineText(index + 1)) && !LIST_LINE.test(first) && !TABLE_LINE.test(first) && first.length <= 160;
    if (underline) {
      // A setext heading (`Team` over `----`), as turndown and many scrapers write h1/h2.
      section += 1;
      blocks.push({ kind: "heading", first: index, last: index + 2, section, linksOnly: false });
      index += 2;
      continue;
    }
    if (MARKDOWN_HEADING.test(first) || BOLD_LABEL.test(first) || (previousBlank && nextBlank && isPlainHeading(first))) {
      // A line in bold alone (`**Starter**`) names what follows, as a pricing card's plan name does.
      section += 1;
      blocks.push({ kind: "heading", first: index, last: index + 1, section, linksOnly: false });
      index += 1;
      continue;
    }
    let end = index;
    const startsBlock = (line: number): boolean => {
      const current = lineText(line).trim();
      return MARKDOWN_HEADING.test(current) || BOLD_LABEL.test(current) || (line + 1 < lines.length && SETEXT_UNDERLINE.test(lineText(line + 1)) && current.length <= 160 && !LIST_LINE.test(current));
    };
    while (end < lines.length && lineText(end).trim().length > 0 && (end === index || !startsBlock(end))) end += 1;
    let tableLines = 0;
    let listLines = 0;
    let linkItems = 0;
    for (let line = index; line < end; line += 1) {
      const current = lineText(line);
      if (TABLE_LINE.test(current)) tableLines += 1;
      if (LIST_LINE.test(current)) listLines += 1;
      if (LINK_ONLY_ITEM.test(current)) linkItems += 1;
    }
    const count = end - index;
    const kind: BlockKind = count >= 2 && tableLines >= count * 0.8 ? "table" : listLines >= 2 && listLines >= count * 0.5 ? "list" : "paragraph";
    blocks.push({ kind, first: index, last: end, section, linksOnly: kind === "list" && linkItems >= listLines * 0.8 });
    index = end;
  }
  return blocks;
}

function sentenceEnd(text: string, start: number, end: number, max: number): number {
  const limit = Math.min(end, start + max);
  for (let position = start + 20; position < limit; position += 1) {
    const character = text[position];
    if ((character === "." || character === "!" || character === "?") && /\s/.test(text[position + 1] ?? " ")) return position + 1;
  }
  if (limit === end) return end;
  for (let position = limit; position > start + 10; position -= 1) if (/\s/.test(text[position] ?? "")) return position;
  return limit;
}

/**
 * Cuts a document to at most `maxChars` characters, keeping its structure (see the module
 * comment).
 *
 * @param tailShare - share of the budget for the end of a text without structure; 0.2 or more
 *   also keeps the last block of a structured one (logs and plain text end with their outcome)
 * @returns the text unchanged when it fits
 */
export function truncateDocument(text: string, maxChars: number, tailShare = 0.2): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  if (text.length > 4_000_000 || maxChars < 400) return truncateText(text, maxChars, tailShare);
  const lines = splitLines(text);
  const blocks = readBlocks(text, lines);
  const headings = blocks.filter((block) => block.kind === "heading").length;
  const dense = blocks.some((block) => block.kind === "table" || block.kind === "list");
  if (headings < 2 && !dense) return truncateText(text, maxChars, tailShare);

  // Characters taken per line (prefix of the line), and the budget left.
  const taken = new Int32Array(lines.length);
  let budget = maxChars - GAP_COST;
  const lineLength = (line: number): number => (lines[line] as Line).end - (lines[line] as Line).start;
  const costOf = (line: number, chars: number): number => {
    const already = taken[line] as number;
    if (chars <= already) return 0;
    const gapBefore = line > 0 && (taken[line - 1] as number) === 0 ? GAP_COST : 0;
    return chars - already + (already === 0 ? 1 + gapBefore : 0);
  };
  const take = (line: number, chars: number): boolean => {
    const cost = costOf(line, chars);
    if (cost > budget) return false;
    budget -= cost;
    taken[line] = Math.max(taken[line] as number, chars);
    return true;
  };
  const takeLines = (from: number, to: number, maxLineChars = Number.MAX_SAFE_INTEGER): boolean => {
    for (let line = from; line < to; line += 1) {
      const length = lineLength(line);
      const chars = length <= maxLineChars ? length : sentenceEnd(text, (lines[line] as Line).start, (lines[line] as Line).end, maxLineChars) - (lines[line] as Line).start;
      if (!take(line, chars)) return false;
    }
    return true;
  };

  // 1. Headings, and the last block of logs and plain text.
  for (const block of blocks) if (block.kind === "heading") takeLines(block.first, block.last, 160);
  const lastBlock = blocks[blocks.length - 1];
  if (tailShare >= 0.2 && lastBlock !== undefined) takeLines(lastBlock.first, Math.min(lastBlock.last, lastBlock.first + 3), Math.floor(maxChars * tailShare));
  // 2. Tables and lists, sampled.
  for (const block of blocks) {
    if (block.kind === "table") {
      takeLines(block.first, Math.min(block.last, block.first + 14), 240);
      takeLines(block.last - 1, block.last, 240);
    } else if (block.kind === "list") {
      const head = block.linksOnly ? 3 : 8;
      takeLines(block.first, Math.min(block.last, block.first + head), 200);
      if (!block.linksOnly) takeLines(block.last - 1, block.last, 200);
    }
  }
  // 3. The first sentence of each section's prose; error and warning lines.
  // Short lines before it ("Main article: X", a byline) come along; the first prose of the
  // document (an article's lead) gets up to a fifth of the budget.
  const sectionsWithProse = new Set<number>();
  let lead = true;
  for (const block of blocks) {
    if (block.kind !== "paragraph") continue;
    if (!sectionsWithProse.has(block.section)) {
      for (let line = block.first; line < block.last; line += 1) {
        const long = lineLength(line) >= SHORT_LINE_CHARS;
        takeLines(line, line + 1, long ? (lead ? Math.floor(maxChars / 5) : 200) : SHORT_LINE_CHARS);
        if (long) {
          sectionsWithProse.add(block.section);
          lead = false;
          break;
        }
      }
    }
    for (let line = block.first; line < block.last; line += 1) {
      if (ERROR_LINE.test(text.slice((lines[line] as Line).start, Math.min((lines[line] as Line).end, (lines[line] as Line).start + 400)))) takeLines(line, line + 1, 260);
    }
  }
  // 4. The rest of the tables and lists (menus stay sampled).
  for (const block of blocks) {
    if (block.kind === "table" || (block.kind === "list" && !block.linksOnly)) takeLines(block.first, block.last, 400);
  }
  // 5. The rest of the prose, spread over the sections: every section extends by a share per pass.
  const prose = blocks.filter((block) => block.kind === "paragraph");
  for (let pass = 0; pass < 8 && budget > GAP_COST * 2 && prose.length > 0; pass += 1) {
    const bySection = new Map<number, Block[]>();
    for (const block of prose) bySection.set(block.section, [...(bySection.get(block.section) ?? []), block]);
    const share = Math.max(80, Math.floor(budget / bySection.size));
    let progressed = false;
    for (const sectionBlocks of bySection.values()) {
      let allowance = share;
      for (const block of sectionBlocks) {
        for (let line = block.first; line < block.last && allowance > 0; line += 1) {
          const length = lineLength(line);
          const already = taken[line] as number;
          if (already >= length) continue;
          const start = (lines[line] as Line).start;
          const target = length - already <= allowance ? length : sentenceEnd(text, start + already, (lines[line] as Line).end, allowance) - start;
          const cost = costOf(line, target);
          if (target > already && cost <= allowance && take(line, target)) {
            allowance -= cost;
            progressed = true;
          } else allowance = 0;
        }
      }
    }
    if (!progressed) break;
  }

  let result = "";
  let omitted = 0;
  const flushGap = (): void => {
    if (omitted > 0) result += `${omittedCharactersMarker(omitted)}\n`;
    omitted = 0;
  };
  for (let line = 0; line < lines.length; line += 1) {
    const { start, end } = lines[line] as Line;
    const chars = taken[line] as number;
    const length = end - start;
    const newline = line < lines.length - 1 ? 1 : 0;
    if (chars === 0) {
      if (length === 0 && omitted === 0) {
        // A blank line between kept blocks stays.
        if (line > 0 && (taken[line - 1] as number) > 0) result += "\n";
        continue;
      }
      omitted += length + newline;
      continue;
    }
    flushGap();
    if (chars >= length) result += text.slice(start, end) + (newline ? "\n" : "");
    else {
      result += `${text.slice(start, start + chars).trimEnd()} ${omittedCharactersMarker(length - chars)}\n`;
    }
  }
  flushGap();
  result = result.replace(/\n{3,}/g, "\n\n").trimEnd();
  if (result.length > maxChars) return truncateText(text, maxChars, tailShare);
  return { text: result, truncated: true };
}
