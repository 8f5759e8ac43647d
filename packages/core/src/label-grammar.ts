/**
 * The ReAct label grammar: which line starts mean "Thought:", "Action:", "Action Input:",
 * "Observation:", "Final Answer:" or "Question:". The parser reads model text with it; the
 * observation cleaner uses the very same grammar to neutralise such lines inside tool output, so
 * whatever the parser would obey, a web page cannot smuggle in.
 *
 * Tolerated around a label (as real models write it, see `shared/corpus`): leading whitespace,
 * markdown (`**Action:**`, `## Thought`, `> `, `- `, `_`), any letter case, `_`/`-`/space between
 * words (`action_input`), a step number (`Action 2:`, `Thought 1:`), a full-width colon (`：`), and
 * a colon placed inside the bold markers (`**Action:**`). Matching is a single left-to-right scan:
 * linear in the line's length.
 *
 * Lines and label words are both read through the view of `untrusted-text-view.ts` (NFKC,
 * confusable skeletons, format and combining characters removed, every space separator a space):
 * the neutraliser reads tool output through that view too, so a look-alike label the parser would
 * read is one the neutraliser marks. The match's `labelText` and `value` are the original text.
 */
import { foldCodePoint, foldedView, foldText } from "./untrusted-text-view";

/** The labels of the ReAct format (Yao et al., 2022, as LangChain's MRKL prompt writes them). */
export type ReActLabel =
  | "thought"
  | "action"
  | "action_input"
  | "observation"
  | "final_answer"
  | "question";

/** Words accepted for each label, lower case, words separated by single spaces. */
export type ReActLabelSet = Readonly<Record<ReActLabel, readonly string[]>>;

/**
 * The default label words. Beyond LangChain's own, they include LlamaIndex's `Answer:` and the
 * conversational agent's `AI:` as final-answer labels.
 */
export const DEFAULT_REACT_LABELS: ReActLabelSet = Object.freeze({
  thought: Object.freeze(["thought", "thoughts", "reasoning"]),
  action: Object.freeze(["action"]),
  action_input: Object.freeze(["action input", "action inputs", "input", "action_input"]),
  observation: Object.freeze(["observation", "observations"]),
  final_answer: Object.freeze(["final answer", "answer", "ai"]),
  question: Object.freeze(["question"]),
});

/** A label found at the start of a line. */
export interface ReActLabelMatch {
  readonly label: ReActLabel;
  /** The label as written (e.g. `**Action 2**`). */
  readonly labelText: string;
  /** Text after the colon (and after closing markdown markers), not trimmed. */
  readonly value: string;
  /** The step number written with the label, if any. */
  readonly stepNumber?: number;
  /** Offset in the line where `value` starts. */
  readonly valueOffset: number;
}

const MARKDOWN_MARKERS = new Set(["*", "_", "#", ">", "`", "~"]);

function isSpace(character: string): boolean {
  return character === " " || character === "\t" || character === "\u00a0" || character === "\u3000";
}

function isWordSeparator(character: string): boolean {
  return isSpace(character) || character === "_" || character === "-";
}

function isColon(character: string): boolean {
  return character === ":" || character === "\uff1a";
}

/** Normalises a custom label word list entry: folded as the view folds text, lower case, separators collapsed to one space. */
export function normalizeLabelWord(word: string): string {
  let result = "";
  let pendingSpace = false;
  for (const character of foldText(word).trim().toLowerCase()) {
    if (isWordSeparator(character)) {
      pendingSpace = result.length > 0;
      continue;
    }
    if (pendingSpace) result += " ";
    pendingSpace = false;
    result += character;
  }
  return result;
}

interface CompiledLabels {
  readonly byWord: ReadonlyMap<string, ReActLabel>;
  /** First words of every label word: a line whose first word is not one is no label. */
  readonly firstWords: ReadonlySet<string>;
  /** First characters (lower case) of every label word: a line starting otherwise is no label. */
  readonly firstCharacters: ReadonlySet<string>;
  readonly maxWordLength: number;
}

const compiledCache = new WeakMap<ReActLabelSet, CompiledLabels>();

function compile(labels: ReActLabelSet): CompiledLabels {
  const cached = compiledCache.get(labels);
  if (cached !== undefined) return cached;
  const byWord = new Map<string, ReActLabel>();
  const firstCharacters = new Set<string>();
  const add = (label: ReActLabel, word: string): void => {
    if (word.length === 0 || byWord.has(word)) return;
    byWord.set(word, label);
    firstCharacters.add(word[0]);
  };
  for (const label of Object.keys(labels) as ReActLabel[]) {
    for (const word of labels[label]) {
      const normalized = normalizeLabelWord(word);
      add(label, normalized);
      // Models also glue the words together ("FinalAnswer:", "ActionInput:").
      if (normalized.includes(" ")) add(label, normalized.split(" ").join(""));
    }
  }
  let maxWordLength = 0;
  const firstWords = new Set<string>();
  for (const word of byWord.keys()) {
    maxWordLength = Math.max(maxWordLength, word.length);
    firstWords.add(word.split(" ")[0]);
  }
  const compiled = { byWord, firstWords, firstCharacters, maxWordLength };
  compiledCache.set(labels, compiled);
  return compiled;
}

function isDigit(character: string): boolean {
  return character >= "0" && character <= "9";
}

/** Skips list numbering such as "1." or "2)" followed by a space; returns the new index. */
function skipListNumber(line: string, index: number): number {
  let scan = index;
  while (scan < line.length && scan - index < 3 && isDigit(line[scan])) scan += 1;
  if (scan === index || scan + 1 >= line.length) return index;
  if ((line[scan] === "." || line[scan] === ")") && isSpace(line[scan + 1])) return scan + 2;
  return index;
}

/**
 * Reads a ReAct label at the start of `line`.
 *
 * A step number may follow the label or sit between its words (`Action 2:`, `Action 1 Input:`);
 * the words may be glued together (`FinalAnswer:`); a list number may precede it (`1. Thought:`).
 *
 * @param line - one line of text (no `\n`)
 * @param labels - the label words to accept; default {@link DEFAULT_REACT_LABELS}
 * @returns the match, or `undefined` when the line does not start with a label followed by a colon
 */
export function matchReActLabel(
  line: string,
  labels: ReActLabelSet = DEFAULT_REACT_LABELS,
): ReActLabelMatch | undefined {
  const compiled = compile(labels);
  // Only the start of the line can hold the label: the view is made of a bounded window (past the
  // leading whitespace, markdown and removed characters), so a caller scanning many positions of
  // one long line stays linear. The value is read from the original line.
  const window = line.length <= 256 ? line : line.slice(0, labelWindowEnd(line, compiled.maxWordLength));
  const view = foldedView(window);
  const found = matchOnView(view.text, labels);
  if (found === undefined) return undefined;
  const starts = view.starts;
  // Positions in the view map back to the original line: the label and value as written.
  const at = (position: number): number => (starts === undefined ? position : (starts[position] as number));
  const valueOffset = at(found.valueStart);
  const match: { -readonly [K in keyof ReActLabelMatch]: ReActLabelMatch[K] } = {
    label: found.label,
    labelText: line.slice(at(found.labelStart), at(found.labelEnd)).trim(),
    value: withoutClosingEmphasis(line.slice(valueOffset), found.closingEmphasis),
    valueOffset,
  };
  if (found.stepNumber !== undefined) match.stepNumber = found.stepNumber;
  return match;
}

/** A label found in a view line, in view positions. */
interface ViewLabelMatch {
  readonly label: ReActLabel;
  readonly labelStart: number;
  readonly labelEnd: number;
  readonly valueStart: number;
  /** Emphasis markers that end the value instead (`**Action Input: x**`), or "". */
  readonly closingEmphasis: string;
  readonly stepNumber: number | undefined;
}

/** ASCII characters `matchReActLabel` may skip before a label word (whitespace, markdown, bullets, list numbers). */
const ASCII_LEAD = /[ \t*_#>`~+\-.)0-9]/;

/** End of the window a label must lie in: past the leading run of skippable or removed characters, then room for the longest label. */
function labelWindowEnd(line: string, maxWordLength: number): number {
  let index = 0;
  while (index < line.length) {
    const code = line.charCodeAt(index);
    if (code < 128) {
      if (!ASCII_LEAD.test(line[index] as string)) break;
      index += 1;
      continue;
    }
    const codePoint = line.codePointAt(index) as number;
    const folded = foldCodePoint(codePoint);
    if (folded !== "" && folded !== " ") break;
    index += codePoint > 0xffff ? 2 : 1;
  }
  return Math.min(line.length, index + maxWordLength * 8 + 64);
}

function matchOnView(line: string, labels: ReActLabelSet): ViewLabelMatch | undefined {
  const compiled = compile(labels);
  const length = line.length;
  let index = 0;
  let numberSkipped = false;
  // Leading whitespace, markdown markers, list bullets and numbering like "1." or "2)".
  while (index < length) {
    const character = line[index];
    if (isSpace(character) || MARKDOWN_MARKERS.has(character)) {
      index += 1;
    } else if ((character === "-" || character === "+") && index + 1 < length && isSpace(line[index + 1])) {
      index += 2;
    } else if (!numberSkipped && isDigit(character)) {
      numberSkipped = true;
      const next = skipListNumber(line, index);
      if (next === index) break;
      index = next;
    } else {
      break;
    }
  }
  const labelStart = index;
  if (index >= length || !compiled.firstCharacters.has(line[index].toLowerCase())) return undefined;
  // Read words (letters and other non-separator characters), normalised to lower case and single
  // spaces. Digit groups between words are a step number. At each word end the words read so far
  // are looked up; only one word end can be followed by the colon, so the first hit with a valid
  // tail is the longest label. The scan is bounded by the longest label word, so a hostile line
  // costs at most its leading whitespace.
  let normalized = "";
  let pendingSpace = false;
  let scan = index;
  let stepNumber: number | undefined;
  const limit = Math.min(length, index + compiled.maxWordLength * 3 + 16);
  while (scan < limit) {
    const code = line.charCodeAt(scan);
    const character = line[scan];
    if (isWordSeparator(character)) {
      // The first word decides early whether this can be a label at all.
      if (normalized.length > 0 && !pendingSpace && !normalized.includes(" ") && !compiled.firstWords.has(normalized)) return undefined;
      pendingSpace = normalized.length > 0;
      scan += 1;
      continue;
    }
    if (code >= 48 && code <= 57) {
      if (normalized.length === 0) break;
      const digitsStart = scan;
      while (scan < limit && isDigit(line[scan]) && scan - digitsStart < 6) scan += 1;
      if (stepNumber === undefined) stepNumber = Number(line.slice(digitsStart, scan));
      pendingSpace = true;
      continue;
    }
    if (isColon(character) || MARKDOWN_MARKERS.has(character)) break;
    if (pendingSpace) {
      const label = compiled.byWord.get(normalized);
      const found = label === undefined ? undefined : readLabelTail(line, scan, labelStart, label, stepNumber);
      if (found !== undefined) return found;
      normalized += " ";
    }
    pendingSpace = false;
    normalized += code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : code < 128 ? character : character.toLowerCase();
    scan += 1;
    if (normalized.length > compiled.maxWordLength) return undefined;
  }
  const label = compiled.byWord.get(normalized);
  return label === undefined ? undefined : readLabelTail(line, scan, labelStart, label, stepNumber);
}

/** The emphasis markers (`*`, `_`) written right before the label, e.g. `**` in "**Action: x**". */
function openingEmphasis(line: string, labelStart: number): string {
  let start = labelStart;
  while (start > 0 && labelStart - start < 3 && (line[start - 1] === "*" || line[start - 1] === "_")) start -= 1;
  return line.slice(start, labelStart);
}

/** Removes `emphasis` from the end of `value` (trailing spaces allowed), when it is there. */
function withoutClosingEmphasis(value: string, emphasis: string): string {
  if (emphasis.length === 0) return value;
  let end = value.length;
  while (end > 0 && isSpace(value[end - 1])) end -= 1;
  const markersStart = end - emphasis.length;
  if (markersStart <= 0 || value.slice(markersStart, end) !== emphasis) return value;
  return value.slice(0, markersStart);
}

function readLabelTail(
  line: string,
  wordEnd: number,
  labelStart: number,
  label: ReActLabel,
  stepBefore: number | undefined,
): ViewLabelMatch | undefined {
  const length = line.length;
  let index = wordEnd;
  while (index < length && (isSpace(line[index]) || line[index] === "_" || line[index] === "-")) index += 1;
  let stepNumber = stepBefore;
  const digitsStart = index;
  while (index < length && isDigit(line[index]) && index - digitsStart < 6) index += 1;
  if (index > digitsStart && stepNumber === undefined) stepNumber = Number(line.slice(digitsStart, index));
  while (index < length && (isSpace(line[index]) || MARKDOWN_MARKERS.has(line[index]))) index += 1;
  if (index >= length || !isColon(line[index])) return undefined;
  const labelEnd = index;
  index += 1;
  // Closing markdown after the colon: "**Action:** search".
  const afterColon = index;
  while (index < length && MARKDOWN_MARKERS.has(line[index]) && line[index] !== "`") index += 1;
  // The whole line in emphasis ("**Action Input: x**"): the closing markers end the value instead.
  const closingEmphasis = index === afterColon ? openingEmphasis(line, labelStart) : "";
  return { label, labelStart, labelEnd, valueStart: index, closingEmphasis, stepNumber };
}

/**
 * Builds a label set from custom words merged over the defaults (or replacing them).
 *
 * @param custom - extra words per label, e.g. `{ thought: ["思考"], action: ["行动"], final_answer: ["最终答案"] }`
 * @param replace - when true, `custom` replaces the default words of the labels it names
 * @default replace false
 */
export function createReActLabelSet(
  custom: Partial<Record<ReActLabel, readonly string[]>>,
  replace = false,
): ReActLabelSet {
  const result = {} as Record<ReActLabel, readonly string[]>;
  for (const label of Object.keys(DEFAULT_REACT_LABELS) as ReActLabel[]) {
    const extra = custom[label] ?? [];
    result[label] = Object.freeze(
      replace && custom[label] !== undefined ? [...extra] : [...DEFAULT_REACT_LABELS[label], ...extra],
    );
  }
  return Object.freeze(result);
}
