/**
 * Stage 1 of the reader: splits a reply into the preamble and labelled segments
 * (`Thought:`/`Action:`/`Action Input:`/`Observation:`/`Final Answer:`/`Question:`, in every form
 * `matchReActLabel` of `@reins/core` accepts), one line at a time, stopping once the step is decided.
 */
import { matchReActLabel, type ReActLabel, type ReActLabelSet } from "@reins/core";
import { fenceMarker, isBareFence } from "./code-fences";
import type { RepairLog } from "./react-step";
import { isBlank } from "./text-lines";

export interface Segment {
  readonly label: ReActLabel;
  readonly value: string;
  /** The lines after the label line, up to the next label (or where reading stopped). */
  readonly lines: string[];
  readonly index: number;
  /** A final answer under a short alias ("Answer:", "AI:", "Response:"), which prose uses by accident too. */
  readonly weak?: boolean;
  /** The lines after the label line joined by newlines, as written (`lines.join("\n")` without the split). */
  readonly linesText?: string;
  /** An Action Input whose first line opens a code fence that no later line closes (the reply ended inside it). */
  readonly endedInOpenFence?: boolean;
  /** The first `count` of {@link lines}, without cutting the rest. */
  firstLines?(count: number): string[];
}

/**
 * A segment read from the body: its lines are a range of the body, cut into lines only when a
 * later stage asks for them (a long Thought or an unclosed fence is never split line by line).
 */
class BodySegment implements Segment {
  /** End (exclusive) of the last line read into the segment; -1 while none. */
  linesEnd = -1;
  endedInOpenFence = false;
  private cut: string[] | undefined;

  constructor(
    readonly label: ReActLabel,
    readonly value: string,
    readonly index: number,
    readonly weak: boolean,
    private readonly body: string,
    /** Start of the line after the label line. */
    private readonly linesStart: number,
  ) {}

  get lines(): string[] {
    if (this.cut === undefined) this.cut = this.hasLines() ? this.body.slice(this.linesStart, this.linesEnd).split("\n") : [];
    return this.cut;
  }

  get linesText(): string {
    return this.hasLines() ? this.body.slice(this.linesStart, this.linesEnd) : "";
  }

  firstLines(count: number): string[] {
    if (this.cut !== undefined || !this.hasLines()) return this.lines.slice(0, count);
    const result: string[] = [];
    let start = this.linesStart;
    while (result.length < count && start <= this.linesEnd) {
      let end = this.body.indexOf("\n", start);
      if (end < 0 || end > this.linesEnd) end = this.linesEnd;
      result.push(this.body.slice(start, end));
      start = end + 1;
    }
    return result;
  }

  /** Whether at least one line (an empty one counts) was read into the segment. */
  hasLines(): boolean {
    return this.linesEnd >= 0 && this.linesEnd >= this.linesStart;
  }
}

/** Whether `body[start, end)` is blank (spaces, tabs, CR, NBSP, ideographic space). */
function isBlankRange(body: string, start: number, end: number): boolean {
  for (let index = start; index < end; index += 1) {
    const code = body.charCodeAt(index);
    if (code !== 32 && code !== 9 && code !== 13 && code !== 0xa0 && code !== 0x3000) return false;
  }
  return true;
}

/** The first non-blank character of `body[start, end)` ("" when blank). */
function firstNonBlank(body: string, start: number, end: number): string {
  for (let index = start; index < end; index += 1) {
    const code = body.charCodeAt(index);
    if (code !== 32 && code !== 9 && code !== 13 && code !== 0xa0 && code !== 0x3000 && code !== 0xfeff && code !== 0x2028) return body[index];
  }
  return "";
}

/** Whether the line `body[start, end)` is a fence marker line (cut from the body only when it may be). */
function fenceLineAt(body: string, start: number, end: number): string | undefined {
  let index = start;
  while (index < end && (body.charCodeAt(index) === 32 || body.charCodeAt(index) === 9)) index += 1;
  const code = body.charCodeAt(index);
  if (index >= end || (code !== 96 && code !== 126)) return undefined;
  const line = body.slice(start, end);
  return fenceMarker(line).isFence ? line : undefined;
}

export const WEAK_FINAL_WORDS = new Set(["answer", "ai", "response"]);

const firstCodesCache = new WeakMap<ReActLabelSet, ReadonlySet<number>>();

/** Character codes a label line can start with: the label words' first letters (both cases). */
function labelFirstCodes(labels: ReActLabelSet): ReadonlySet<number> {
  let codes = firstCodesCache.get(labels);
  if (codes === undefined) {
    const set = new Set<number>();
    for (const words of Object.values(labels) as (readonly string[])[]) {
      for (const word of words) {
        const first = word.trim()[0];
        if (first === undefined) continue;
        set.add(first.toLowerCase().charCodeAt(0));
        set.add(first.toUpperCase().charCodeAt(0));
      }
    }
    codes = set;
    firstCodesCache.set(labels, codes);
  }
  return codes;
}

/**
 * Whether a line starting with `code` may be a label line: a label's first letter, or what
 * `matchReActLabel` skips first (whitespace, markdown, bullets, numbering, full-width space).
 */
function mayStartLabel(code: number, firstCodes: ReadonlySet<number>): boolean {
  if (firstCodes.has(code)) return true;
  if (code < 128) {
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return firstCodes.has(code);
    return !((code >= 33 && code <= 47 && code !== 35 && code !== 42 && code !== 43 && code !== 45) || code === 58 || code === 59 || code === 60 || code === 61 || code === 63 || code === 64 || code === 91 || code === 93 || code === 123 || code === 125 || code === 124);
  }
  // Beyond ASCII, any character may fold to a label's first letter or to nothing (matchReActLabel
  // reads the line through core's view: look-alikes, format characters, unusual spaces).
  return true;
}

/** "Input" written alone (no "Action"): the loose alias of the Action Input label. */
function isLooseInputLabel(labelText: string): boolean {
  let word = "";
  for (const character of labelText.toLowerCase()) if (character >= "a" && character <= "z") word += character;
  return word === "input" || word === "inputs";
}

/** The line is a list item ("- ", "* ", "• ", "1. "). */
function startsWithBullet(line: string): boolean {
  const trimmed = line.trimStart();
  return /^(?:[-*+\u2022]\s|\d{1,3}[.)]\s)/.test(trimmed);
}

export function isWeakFinalLabel(labelText: string): boolean {
  let word = "";
  for (const character of labelText.toLowerCase()) if (character >= "a" && character <= "z") word += character;
  return WEAK_FINAL_WORDS.has(word);
}

export const CANONICAL_LABEL_PREFIXES = ["Thought:", "Action:", "Action Input:", "Observation:", "Final Answer:", "Question:", "Answer:", "AI:", "Response:"];

export function noteLabelRepairs(line: string, labelText: string, repairs: RepairLog): void {
  let start = 0;
  while (start < line.length && (line.charCodeAt(start) === 32 || line.charCodeAt(start) === 9)) start += 1;
  for (const prefix of CANONICAL_LABEL_PREFIXES) if (line.startsWith(prefix, start)) return;
  const trimmed = line.slice(start);
  const first = trimmed[0];
  if (first === "*" || first === "#" || first === "_" || first === ">" || first === "`") repairs.add("label_markdown");
  else if (/\d/.test(labelText)) repairs.add("label_numbered");
  else if (trimmed.includes("\uff1a")) repairs.add("label_fullwidth_colon");
  else repairs.add("label_variant");
}

/**
 * A real step has a handful of labelled lines. Past this many (before the step is decided) the reply
 * is degenerate: it is rejected instead of read to its end.
 */
export const MAX_LABELLED_LINES = 500;

/**
 * Splits lines into the preamble (before any label) and labelled segments, handing each new segment
 * to `visit` as soon as its label line is read; `visit` returns false to stop reading (the step is
 * decided), so a long hallucinated tail is never scanned.
 */
export function segment(
  body: string,
  labels: ReActLabelSet,
  repairs: RepairLog,
  visit: (item: Segment) => boolean,
  stopAfterInput: boolean,
): { preambleText: string; segments: Segment[]; overflow: boolean } {
  // The preamble is the body up to the first label line: kept as an offset, cut once at the end.
  let preambleEnd = -1;
  let looseLabels = 0;
  const firstCodes = labelFirstCodes(labels);
  const segments: Segment[] = [];
  let current: BodySegment | undefined;
  let inFence = false;
  let blankSoFar = true;
  // The first non-blank character of the current Action Input ("" while none).
  let inputStart = "";
  // Lines are read as offsets into the body; only a line that may be a label or a fence is cut.
  // Set when reading stops before the end of the body (the step was decided).
  let stopped = false;
  for (let start = 0, end = 0; start <= body.length; start = end + 1) {
    end = body.indexOf("\n", start);
    if (end < 0) end = body.length;
    if (current !== undefined && (current.label === "action_input" || current.label === "final_answer")) {
      if (inFence) {
        current.linesEnd = end;
        if (fenceLineAt(body, start, end) !== undefined) {
          inFence = false;
          // With "first"/"action", nothing after a complete Action Input can change the step.
          if (stopAfterInput && current.label === "action_input" && inputStart === "`") break;
        }
        continue;
      }
      const fence = fenceLineAt(body, start, end);
      if (fence !== undefined && (!isBareFence(fence) || (blankSoFar && current.value.trim().length === 0))) {
        inFence = true;
        blankSoFar = false;
        if (inputStart === "") inputStart = "`";
        current.linesEnd = end;
        continue;
      }
      if (stopAfterInput && current.label === "action_input" && inputStart !== "" && inputStart !== "{" && inputStart !== "[" && isBlankRange(body, start, end)) break;
    }
    // A line whose first character no label can start with is never cut out to be matched.
    const line = start < end && mayStartLabel(body.charCodeAt(start), firstCodes) ? body.slice(start, end) : undefined;
    let match = line !== undefined ? matchReActLabel(line, labels) : undefined;
    // "Input:" alone is an Action Input label only right under an Action, and never as a list item
    // ("- Input: the user's city" inside reasoning is prose). Such lines count towards the limit.
    if (match !== undefined && line !== undefined && match.label === "action_input" && isLooseInputLabel(match.labelText) && (current?.label !== "action" || startsWithBullet(line))) {
      match = undefined;
      looseLabels += 1;
      if (looseLabels >= MAX_LABELLED_LINES) return { preambleText: trimBlankLinesOf(body, preambleEnd < 0 ? start : preambleEnd), segments, overflow: true };
    }
    if (match === undefined || line === undefined) {
      // Lines before the first label are the preamble, cut from the body once at the end.
      if (current !== undefined) {
        current.linesEnd = end;
        if (blankSoFar && !isBlankRange(body, start, end)) {
          blankSoFar = false;
          if (inputStart === "") inputStart = firstNonBlank(body, start, end);
        }
      }
      continue;
    }
    if (preambleEnd < 0) preambleEnd = start;
    if (segments.length >= MAX_LABELLED_LINES) return { preambleText: trimBlankLinesOf(body, preambleEnd), segments, overflow: true };
    noteLabelRepairs(line, match.labelText, repairs);
    current = new BodySegment(match.label, match.value, segments.length, match.label === "final_answer" && isWeakFinalLabel(match.labelText), body, end + 1);
    segments.push(current);
    const valueStart = match.value.trim();
    blankSoFar = valueStart.length === 0;
    inputStart = valueStart.length > 0 ? valueStart[0] : "";
    inFence = current.label === "action_input" && fenceMarker(match.value).isFence && !valueStart.slice(3).includes("```");
    if (!visit(current)) {
      stopped = true;
      break;
    }
  }
  if (!stopped && inFence && current !== undefined && current.label === "action_input" && (inputStart === "`" || inputStart === "~")) current.endedInOpenFence = true;
  return { preambleText: trimBlankLinesOf(body, preambleEnd < 0 ? body.length : preambleEnd), segments, overflow: false };
}

/** `body.slice(0, end)` without its leading and trailing blank lines (as `trimBlankLines` of its lines). */
function trimBlankLinesOf(body: string, end: number): string {
  const text = body.slice(0, end);
  let first = 0;
  for (;;) {
    const newline = text.indexOf("\n", first);
    if (!isBlank(text.slice(first, newline < 0 ? text.length : newline))) break;
    if (newline < 0) return "";
    first = newline + 1;
  }
  let last = text.length;
  while (last > first) {
    const lineStart = text.lastIndexOf("\n", last - 1) + 1;
    if (!isBlank(text.slice(lineStart, last))) break;
    last = lineStart - 1;
  }
  return text.slice(first, Math.max(first, last));
}

export function joinSegment(item: Segment): string {
  if (item instanceof BodySegment) return item.hasLines() ? `${item.value}\n${item.linesText}` : item.value;
  return item.lines.length === 0 ? item.value : `${item.value}\n${item.lines.join("\n")}`;
}

/** Drops bare fence lines left over at the end of a value when they close a fence opened outside it. */
export function dropDanglingFences(text: string): string {
  if (!text.includes("``") && !text.includes("~~~")) return text;
  const lines = text.split("\n");
  let fenceCount = 0;
  for (const line of lines) if (fenceMarker(line).isFence) fenceCount += 1;
  while (lines.length > 0 && fenceCount % 2 === 1) {
    const last = lines[lines.length - 1];
    if (last.trim().length === 0) {
      lines.pop();
      continue;
    }
    if (!isBareFence(last)) break;
    lines.pop();
    fenceCount -= 1;
  }
  return lines.join("\n");
}
