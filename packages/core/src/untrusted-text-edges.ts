/**
 * The edges of one untrusted text: a shape split across two tool results. An observation that
 * ends part-way into a label (`…Final Ans`, a trailing fragment a following text could complete)
 * or starts with a label's tail (`wer: pwned`) holds no label on its own, yet a model that joins
 * consecutive observations writes one. Each such edge is marked like a label (`«Final Ans»`,
 * `«wer»: pwned`), in the same view the other shapes are found in, so no join reads as a label.
 * The same holds for the grammar's other named shapes: a tag name (`…<tool_ca` + `ll>{…}`), a
 * blob's name key (`…{"acti` + `on": …`) and a paper-style call of a finish or of the agent's
 * tools (`…delete_a` + `ll[…]`).
 *
 * An incomplete call or JSON blob is marked the same way: a text that ends inside a JSON object or
 * list (`…<tool_call>{"name": "delete_all", "argu`) gets its unclosed openings quoted (`«{»`), and a
 * text that starts with the tail of one (`ents": {}}</tool_call>`) gets its unmatched closings
 * quoted (`{}«}»`), so two texts joined never hold a balanced object a reader could take for a
 * call. A whole JSON value, however long, is balanced and left as it is; a cut marker after an
 * unclosed opening (the cleaner's `[N characters omitted]`) stays as written, after the marked brace.
 */
import { type ReActLabelSet, normalizeLabelWord } from "./label-grammar";
import { NEUTRALIZED_CLOSE, NEUTRALIZED_OPEN } from "./neutralized-marks";
import { ACTION_BLOB_NAME_KEYS, compactCallName, REACT_TAGS, type ReActGrammar } from "./react-grammar";
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
  let endMarked = false;
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
        endMarked = true;
      }
    }
  }
  let startMarked = false;
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
      startMarked = true;
    }
  }
  // Before the named shapes: a brace's closing mark then comes before a key's opening mark at the same spot (`«{»«"acti»`).
  findIncompleteStructureEdges(view, edits, found);
  findNamedShapeEdges(view, grammar, edits, found, endMarked, startMarked);
}

/** Written forms of the named shapes: `<name` / `</name` of every tag, `"key` of every blob name key. */
const OPENING_FORMS: readonly string[] = Object.freeze([
  ...new Set(REACT_TAGS.flatMap((tag) => [`<${tag.name}`, `</${tag.name}`])),
  ...ACTION_BLOB_NAME_KEYS.map((key) => `"${key}`),
]);
/** Tails of the names in {@link OPENING_FORMS} (the whole name too: a split right after `<` or `"`), and what must follow each. */
const NAME_TAILS: ReadonlyMap<string, "tag" | "key"> = (() => {
  const tails = new Map<string, "tag" | "key">();
  for (const tag of REACT_TAGS) for (let cut = 0; cut < tag.name.length; cut += 1) tails.set(tag.name.slice(cut), "tag");
  for (const key of ACTION_BLOB_NAME_KEYS) for (let cut = 0; cut < key.length; cut += 1) if (!tails.has(key.slice(cut))) tails.set(key.slice(cut), "key");
  return tails;
})();

function isNameCharacter(character: string | undefined): boolean {
  return character !== undefined && /[A-Za-z0-9_\-.]/.test(character);
}

function mark(edits: Edit[], start: number, end: number): void {
  edits.push({ at: start, replace: false, text: NEUTRALIZED_OPEN });
  edits.push({ at: end, replace: false, text: NEUTRALIZED_CLOSE });
}

/** The tag, blob-key and paper-call edges (see the module doc); bounded to a short window at each end. */
function findNamedShapeEdges(view: string, grammar: ReActGrammar, edits: Edit[], found: string[], endMarked: boolean, startMarked: boolean): void {
  if (!endMarked) findNamedShapeEnd(view, grammar, edits, found);
  if (!startMarked) findNamedShapeStart(view, grammar, edits, found);
}

/**
 * A blob name key whose value the next text would bring or complete: `"action"`, `"action":`,
 * `"action": "` or `"name": "dele` at the very end.
 */
const TRAILING_KEY = /"([A-Za-z_]{1,20})"\s*(?::\s*(?:"[^"\\\n]{0,64})?)?\s*$/;
/** A blob name key at the very start whose opening brace the previous text holds: `"action": …`. */
const LEADING_KEY = /^\s*"([A-Za-z_]{1,20})"\s*:/;

function findNamedShapeEnd(view: string, grammar: ReActGrammar, edits: Edit[], found: string[]): void {
  let end = view.length;
  while (end > 0 && isBlank(view[end - 1])) end -= 1;
  const tail = view.slice(Math.max(0, end - 110), end);
  const key = TRAILING_KEY.exec(tail);
  if (key !== null && ACTION_BLOB_NAME_KEYS.includes((key[1] as string).toLowerCase())) {
    const keyStart = end - tail.length + key.index + 1;
    mark(edits, keyStart, keyStart + (key[1] as string).length);
    found.push(`edge end "${key[1]}"`);
    return;
  }
  // The end: `<tool_ca`, `</final_ans`, `{"acti`: the last `<` or `"` starts a prefix of a form.
  let scan = end;
  while (scan > 0 && end - scan < 24 && isNameCharacter(view[scan - 1])) scan -= 1;
  const opener = view[scan - 1];
  if (opener === "<" || opener === '"' || (opener === "/" && view[scan - 2] === "<")) {
    const formStart = opener === "/" ? scan - 2 : scan - 1;
    const fragment = view.slice(formStart, end).toLowerCase();
    // A lone `<` or `"` is everyday text; the other side's tail (`final_answer>`, `action": `) is marked instead.
    if (fragment.length >= 2 && OPENING_FORMS.some((form) => form.startsWith(fragment))) {
      mark(edits, formStart, end);
      found.push(`edge end ${view.slice(formStart, end)}`);
      return;
    }
  }
  // The end: a last line that starts the name of a finish or of one of the agent's tools.
  let lineStart = end;
  while (lineStart > 0 && view[lineStart - 1] !== "\n" && end - lineStart <= 100) lineStart -= 1;
  if (lineStart === 0 || view[lineStart - 1] === "\n") {
    let nameStart = lineStart;
    while (nameStart < end && LEAD.has(view[nameStart] as string)) nameStart += 1;
    const compact = compactCallName(view.slice(nameStart, end));
    if (compact.length >= 2 && /^[\p{L}\p{N}]+$/u.test(compact) && [...grammar.callNames].some((name) => name.startsWith(compact))) {
      mark(edits, nameStart, end);
      found.push(`edge end ${view.slice(nameStart, end)}`);
    }
  }
}

function findNamedShapeStart(view: string, grammar: ReActGrammar, edits: Edit[], found: string[]): void {
  const key = LEADING_KEY.exec(view.slice(0, 64));
  if (key !== null && NAME_TAILS.has((key[1] as string).toLowerCase())) {
    const keyStart = key[0].indexOf('"') + 1;
    mark(edits, keyStart, keyStart + (key[1] as string).length);
    found.push(`edge start "${key[1]}"`);
    return;
  }
  // The start: the tail of a tag name (then `>`, `=`, `/` or `|`), of a blob name key
  // (then `"` and `:`), or of a call name (then `[` or `(`).
  let start = 0;
  while (start < view.length && isBlank(view[start])) start += 1;
  let headEnd = start;
  while (headEnd < view.length && headEnd - start < 40 && isNameCharacter(view[headEnd])) headEnd += 1;
  if (headEnd === start) return;
  const head = view.slice(start, headEnd);
  const next = view[headEnd];
  const kind = NAME_TAILS.get(head.toLowerCase());
  const isTagEnd = next === ">" || next === "=" || next === "/" || next === "|";
  const isKeyEnd = next === '"' && /^"\s*:/.test(view.slice(headEnd, headEnd + 8));
  const compact = compactCallName(head);
  const isCallTail = (next === "[" || next === "(") && compact.length > 0 && [...grammar.callNames].some((name) => name.length > compact.length && name.endsWith(compact));
  if ((kind === "tag" && isTagEnd) || (kind !== undefined && isKeyEnd) || isCallTail) {
    mark(edits, start, headEnd);
    found.push(`edge start ${head}`);
  }
}

/** Longest stretch at each end scanned for an incomplete structure's edges, in characters of the view. */
const MAX_STRUCTURE_SCAN_CHARS = 100_000;

/** Whether the character at `index` is already quoted as an edge (`«}»`): neutralising twice changes nothing more. */
function isMarked(view: string, index: number): boolean {
  return view[index - 1] === NEUTRALIZED_OPEN && view[index + 1] === NEUTRALIZED_CLOSE;
}

/** Whether the opening at `index` starts JSON: `{` then a quoted key (or nothing more), `[` then a value's start. */
function opensJson(view: string, index: number): boolean {
  let next = index + 1;
  while (next < view.length && isBlank(view[next])) next += 1;
  const after = view[next];
  if (after === undefined) return true;
  return view[index] === "{" ? after === '"' || after === "'" : after === "{" || after === "[" || after === '"';
}

/**
 * Whether the text starts inside a string of a structure that began in an earlier text:
 * `ents": {}}` (a key's tail) or `thing"}` (a value's tail) — a first quote, before any structural
 * character, that is followed by what follows a closing quote.
 */
function startsInString(view: string): boolean {
  for (let index = 0; index < view.length && index < 200; index += 1) {
    const character = view[index];
    if (character === '"') {
      let next = index + 1;
      while (next < view.length && isBlank(view[next])) next += 1;
      const after = view[next];
      return index > 0 && (after === ":" || after === "," || after === "}" || after === "]");
    }
    if (character === "{" || character === "[" || character === "}" || character === "]" || character === ":" || character === "\n") return false;
  }
  return false;
}

/** What may stand between the values of a JSON structure (outside its strings): `,`, `:`, numbers, `true`, `false`, `null`. */
const JSON_FILLER = /[\s,:0-9.eE+\-truefalsn]/;

/**
 * Marks the incomplete JSON structures at the edges of `view` (see the module doc). The start:
 * while the text reads as the rest of a structure begun earlier (strings, JSON values, nested
 * structures), each closing with no opening is quoted; the first other character at that level
 * (prose, a tag) ends the start. The end: each opening still unclosed at the end is quoted when it
 * starts JSON. One string-aware pass (outside any structure a quote is prose and starts no string),
 * bounded to {@link MAX_STRUCTURE_SCAN_CHARS}.
 */
export function findIncompleteStructureEdges(view: string, edits: Edit[], found: string[]): void {
  if (!/[{}[\]]/.test(view)) return;
  const limit = Math.min(view.length, MAX_STRUCTURE_SCAN_CHARS);
  const openings: number[] = [];
  const unmatched: number[] = [];
  let inString = startsInString(view);
  let quote = '"';
  // Still reading the tail of a structure an earlier text opened.
  let atStart = true;
  for (let index = 0; index < limit; index += 1) {
    const character = view[index] as string;
    if (inString) {
      if (character === "\\") index += 1;
      else if (character === quote) inString = false;
      continue;
    }
    if (character === '"' || character === "'") {
      if (openings.length > 0 || atStart) {
        inString = true;
        quote = character;
      }
      continue;
    }
    if (character === "{" || character === "[") openings.push(index);
    else if (character === "}" || character === "]") {
      if (openings.pop() === undefined && atStart) unmatched.push(index);
    } else if (atStart && openings.length === 0 && !JSON_FILLER.test(character) && character !== NEUTRALIZED_OPEN && character !== NEUTRALIZED_CLOSE) atStart = false;
  }
  for (const index of unmatched) {
    if (isMarked(view, index)) continue;
    mark(edits, index, index + 1);
    found.push(`edge start ${view[index]}`);
  }
  // An opening still open at the end of the scanned text: the text ends inside it.
  if (limit < view.length) return;
  for (const index of openings) {
    if (!opensJson(view, index)) continue;
    mark(edits, index, index + 1);
    found.push(`edge end ${view[index]}`);
  }
}
