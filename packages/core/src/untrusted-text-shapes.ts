/**
 * The shapes `neutralizeUntrustedText` finds in the decoded view, one finder per family of the
 * grammar: labels (`Final Answer:`), tags (`<tool_call>`), JSON action blobs (`{"action": …}`)
 * and paper-style calls (`Search[…]`). Each pushes its edits and names what it found.
 */
import { matchReActLabel } from "./label-grammar";
import { NEUTRALIZED_CLOSE, NEUTRALIZED_LINE_PREFIX, NEUTRALIZED_OPEN, NEUTRALIZED_TAG_OPEN } from "./neutralized-marks";
import {
  ACTION_BLOB_INPUT_KEYS,
  ACTION_BLOB_NAME_KEYS,
  compactCallName,
  FINISH_NAMES,
  FUSED_HARMONY_MARKERS,
  REACT_TAGS,
  REASONING_MARKS,
  type ReActGrammar,
} from "./react-grammar";
import { nextIndexFinder, type Edit } from "./untrusted-text-view";

const labelFirstCharacters = new WeakMap<object, ReadonlySet<string>>();

/** First characters (lower case) of every label word: a line starting with none of them is no label. */
function firstCharactersOf(grammar: ReActGrammar): ReadonlySet<string> {
  let characters = labelFirstCharacters.get(grammar.neutralizedLabels);
  if (characters === undefined) {
    const set = new Set<string>();
    for (const words of Object.values(grammar.neutralizedLabels) as string[][]) for (const word of words) if (word.length > 0) set.add(word[0]!.toLowerCase());
    characters = set;
    labelFirstCharacters.set(grammar.neutralizedLabels, characters);
  }
  return characters;
}

/** Characters `matchReActLabel` skips before a label: whitespace, markdown, bullets, list numbers. */
const LABEL_LEAD = new Set([" ", "\t", "\u00a0", "\u3000", "*", "_", "#", ">", "`", "~", "-", "+", ".", ")", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);

export function findLabels(view: string, grammar: ReActGrammar, edits: Edit[], found: string[]): void {
  const labels = grammar.neutralizedLabels;
  const firstCharacters = firstCharactersOf(grammar);
  let start = 0;
  while (start <= view.length) {
    let end = view.indexOf("\n", start);
    if (end < 0) end = view.length;
    const colon = view.indexOf(":", start);
    if (colon < 0) return;
    if (colon >= end) {
      start = end + 1;
      continue;
    }
    let first = start;
    while (first < colon && LABEL_LEAD.has(view[first] as string)) first += 1;
    if (first < colon && firstCharacters.has((view[first] as string).toLowerCase())) labelLine(view, start, end, labels, edits, found);
    start = end + 1;
  }
}

function labelLine(view: string, start: number, end: number, labels: ReActGrammar["labels"], edits: Edit[], found: string[]): void {
  const line = view.slice(start, end);
  const match = matchReActLabel(line, labels);
  if (match === undefined) return;
  found.push(`label ${match.labelText}`);
  const labelStart = line.indexOf(match.labelText);
  let colon = match.valueOffset - 1;
  while (colon > 0 && line[colon] !== ":") colon -= 1;
  const quoted = labelStart >= 0 && labelStart < colon
    ? `${line.slice(0, labelStart)}${NEUTRALIZED_OPEN}${line.slice(labelStart, colon)}${NEUTRALIZED_CLOSE}${line.slice(colon)}`
    : line;
  if (labelStart >= 0 && labelStart < colon) {
    edits.push({ at: start + labelStart, replace: false, text: NEUTRALIZED_OPEN });
    edits.push({ at: start + colon, replace: false, text: NEUTRALIZED_CLOSE });
  }
  if (quoted === line || matchReActLabel(quoted, labels) !== undefined) edits.push({ at: start, replace: false, text: NEUTRALIZED_LINE_PREFIX });
}

/** Tag names by their first character (lower case), for a cheap check at each `<`. */
const TAG_NAMES: readonly string[] = [...new Set(REACT_TAGS.map((tag) => tag.name))].sort((left, right) => right.length - left.length);
const TAG_FIRST_CHARACTERS = new Set(TAG_NAMES.map((name) => name[0]));

function isTagNameEnd(character: string | undefined): boolean {
  return character === undefined || character === ">" || character === "=" || character === "/" || character === " " || character === "\t" || character === "\n" || character === "|";
}

export function findTags(view: string, edits: Edit[], found: string[]): void {
  const nextTokenClose = nextIndexFinder(view, "|>");
  let from = 0;
  for (;;) {
    const open = view.indexOf("<", from);
    if (open < 0) break;
    from = open + 1;
    let cursor = open + 1;
    if (view[cursor] === "|") {
      // A special token <|name|> (harmony, ChatML, Llama): any name.
      const close = nextTokenClose(cursor + 1);
      if (close > cursor && close - cursor <= 40 && /^[A-Za-z0-9_.:-]*$/.test(view.slice(cursor + 1, close))) {
        edits.push({ at: open, replace: true, text: NEUTRALIZED_TAG_OPEN });
        found.push(`token ${view.slice(open, close + 2)}`);
      }
      continue;
    }
    if (view[cursor] === "/") cursor += 1;
    while (view[cursor] === " ") cursor += 1;
    const first = view[cursor]?.toLowerCase();
    if (first === undefined || !TAG_FIRST_CHARACTERS.has(first)) continue;
    const window = view.slice(cursor, cursor + 20).toLowerCase();
    const name = TAG_NAMES.find((candidate) => window.startsWith(candidate) && isTagNameEnd(window[candidate.length] ?? view[cursor + candidate.length]));
    if (name === undefined) continue;
    edits.push({ at: open, replace: true, text: NEUTRALIZED_TAG_OPEN });
    found.push(`tag ${name}`);
  }
  for (const mark of REASONING_MARKS) {
    let index = view.indexOf(mark);
    while (index >= 0) {
      edits.push({ at: index, replace: true, text: NEUTRALIZED_TAG_OPEN });
      found.push(`tag ${mark}`);
      index = view.indexOf(mark, index + 1);
    }
  }
  // Fused harmony text ("…assistantfinal…"): "assistant" and the channel are split by a mark ("assistant‹final").
  for (const marker of [FUSED_HARMONY_MARKERS.final, FUSED_HARMONY_MARKERS.commentary]) {
    if (!view.includes(marker)) continue;
    let index = view.indexOf(marker);
    while (index >= 0) {
      edits.push({ at: index + "assistant".length, replace: false, text: NEUTRALIZED_TAG_OPEN });
      found.push(`token ${marker}`);
      index = view.indexOf(marker, index + 1);
    }
  }
  // Harmony's recipient: "to=functions.delete_all".
  const recipient = /\bto\s*=\s*functions\./gi;
  if (view.includes("functions.")) {
    for (const match of view.matchAll(recipient)) {
      edits.push({ at: match.index, replace: false, text: NEUTRALIZED_OPEN });
      edits.push({ at: match.index + 2, replace: false, text: NEUTRALIZED_CLOSE });
      found.push("token to=functions");
    }
  }
}

const BLOB_SCAN_CHARS = 2000;
const keyPattern = (keys: readonly string[]): string => keys.map((key) => key.replace(/_/g, "[\\s_-]?")).join("|");
const BLOB_NAME_KEY = new RegExp(`(["'\`]?)\\b(${keyPattern(ACTION_BLOB_NAME_KEYS)})\\1(\\s*:)`, "gi");
const BLOB_INPUT_KEY = new RegExp(`(["'\`]?)\\b(?:${keyPattern(ACTION_BLOB_INPUT_KEYS)}|action[\\s_-]?input)\\1\\s*:`, "i");

/** Start of the innermost unclosed `{` before `index` (within BLOB_SCAN_CHARS), or -1. */
function enclosingBrace(text: string, index: number): number {
  let depth = 0;
  for (let position = index - 1; position >= 0 && position >= index - BLOB_SCAN_CHARS; position -= 1) {
    const character = text[position];
    if (character === "}") depth += 1;
    else if (character === "{") {
      if (depth === 0) return position;
      depth -= 1;
    }
  }
  return -1;
}

/** End (exclusive) of the object opened at `start`, or the scan limit. */
function braceEnd(text: string, start: number): number {
  let depth = 0;
  const limit = Math.min(text.length, start + BLOB_SCAN_CHARS);
  for (let position = start; position < limit; position += 1) {
    const character = text[position];
    if (character === "{") depth += 1;
    else if (character === "}") {
      depth -= 1;
      if (depth === 0) return position + 1;
    }
  }
  return limit;
}

function isFinishValue(after: string): boolean {
  const value = /^\s*["'`]?([^"'`,}\n]{1,40})["'`]?\s*[,}\n]/.exec(after);
  return value !== null && FINISH_NAMES.includes(compactCallName(value[1] as string));
}

export function findBlobs(view: string, grammar: ReActGrammar, edits: Edit[], found: string[]): void {
  if (!view.includes("{") || !view.includes(":")) return;
  BLOB_NAME_KEY.lastIndex = 0;
  for (const match of view.matchAll(BLOB_NAME_KEY)) {
    const offset = match.index;
    const start = enclosingBrace(view, offset);
    if (start === -1) continue;
    const span = view.slice(start, braceEnd(view, start));
    const after = view.slice(offset + match[0].length, offset + match[0].length + 60);
    const named = grammar.callNames.has(compactCallName(/^\s*["'`]?([^"'`,}\n]{1,80})/.exec(after)?.[1] ?? ""));
    if (!isFinishValue(after) && !named && !BLOB_INPUT_KEY.test(span)) continue;
    const keyStart = offset + (match[1] as string).length;
    edits.push({ at: keyStart, replace: false, text: NEUTRALIZED_OPEN });
    edits.push({ at: keyStart + (match[2] as string).length, replace: false, text: NEUTRALIZED_CLOSE });
    found.push(`blob ${match[2]}`);
  }
}


const CALL_TAIL = new Set([" ", "\t", "*", "_", "`", ".", '"', "'", "~"]);

/** The line ends (after markdown and quotes) with `]` or `)`, as a call the parser reads does. */
/**
 * Position of the `]` or `)` that ends the line `[start, end)` once trailing call-tail characters
 * are skipped, or -1 when the line does not end with one.
 */
function lastCloseOf(view: string, start: number, end: number): number {
  let last = end;
  while (last > start && CALL_TAIL.has(view[last - 1] as string)) last -= 1;
  return last > start && (view[last - 1] === "]" || view[last - 1] === ")") ? last - 1 : -1;
}

const MAX_LINE_LEAD_CHARS = 256;

/** Characters a written call name may hold: letters, digits and the separators `compactCallName` drops. */
function isNameCharacter(character: string): boolean {
  const code = character.charCodeAt(0);
  if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57)) return true;
  if (character === "_" || character === "-" || character === "." || character === " " || character === "*" || character === "`") return true;
  return code > 127 && /[\p{L}\p{N}]/u.test(character);
}

function isWordCharacter(character: string | undefined): boolean {
  return character !== undefined && character !== "_" && character !== "-" && character !== "." && character !== " " && character !== "*" && character !== "`" && isNameCharacter(character);
}

const LINE_LEAD = /^[\s*_`>#+"'~-]*(?:\d{1,3}[.)]\s*)?[\s*_`>#+"'~-]*(?:(?:use|call|using|calling)\s+)?$/i;

/**
 * Paper-style calls `Tool[input]` / `tool(input)` naming a finish or one of the agent's tools:
 * the name is quoted wherever it stands (`«Finish»[…]`), and a line that starts with such a call
 * (the shape the parser reads) also gets `| ` before it. For each `[` or `(`, the words before it
 * are compacted as `compactCallName` does and looked up, longest first: linear in the text.
 */
export function findCalls(view: string, grammar: ReActGrammar, edits: Edit[], found: string[]): void {
  // Every search resumes where the last one ended (brackets, line ends), and each line's start and
  // last closing character are found once: linear on runs of `[`, `(` or calls on one long line.
  const nextSquare = nextIndexFinder(view, "[");
  const nextRound = nextIndexFinder(view, "(");
  const nextNewline = nextIndexFinder(view, "\n");
  let lineStart = 0;
  let lineEnd = -1;
  let lastCloseOfLine = -1;
  let from = 0;
  for (;;) {
    const square = nextSquare(from);
    const round = nextRound(from);
    const bracket = square < 0 ? round : round < 0 ? square : Math.min(square, round);
    if (bracket < 0) return;
    from = bracket + 1;
    let end = bracket;
    while (end > 0 && (view[end - 1] === " " || view[end - 1] === "\t")) end -= 1;
    if (end === 0 || !isWordCharacter(view[end - 1])) continue;
    let start = end;
    while (start > 0 && end - start < 100 && view[start - 1] !== "\n" && isNameCharacter(view[start - 1] as string)) start -= 1;
    // Word starts from the left: the longest name that ends at the bracket wins.
    let nameStart = -1;
    for (let index = start; index < end; index += 1) {
      if (!isWordCharacter(view[index]) || (index > start && isWordCharacter(view[index - 1]))) continue;
      if (index > 0 && index === start && isWordCharacter(view[index - 1])) continue;
      if (grammar.callNames.has(compactCallName(view.slice(index, end)))) {
        nameStart = index;
        break;
      }
    }
    if (nameStart < 0) continue;
    // The line of the bracket (a name holds no line break, so it is the name's line too).
    if (lineEnd < 0 || bracket > lineEnd) {
      if (lineEnd < 0) lineEnd = nextNewline(0) < 0 ? view.length : nextNewline(0);
      while (bracket > lineEnd) {
        lineStart = lineEnd + 1;
        const next = nextNewline(lineStart);
        lineEnd = next < 0 ? view.length : next;
      }
      lastCloseOfLine = lastCloseOf(view, lineStart, lineEnd);
    }
    // A lead longer than any list marker or "use"/"call" is not one (and is not sliced per call).
    const lead = nameStart - lineStart <= MAX_LINE_LEAD_CHARS ? view.slice(lineStart, nameStart) : undefined;
    if (lead !== undefined && LINE_LEAD.test(lead) && lastCloseOfLine > bracket) {
      edits.push({ at: lineStart, replace: false, text: NEUTRALIZED_LINE_PREFIX });
    }
    edits.push({ at: nameStart, replace: false, text: NEUTRALIZED_OPEN });
    edits.push({ at: end, replace: false, text: NEUTRALIZED_CLOSE });
    found.push(`call ${view.slice(nameStart, end)}`);
  }
}
