/**
 * The one normalised view through which untrusted text is matched (the neutraliser) and labels are
 * read (the parser, through `matchReActLabel`), so the two cannot drift, with the offset of each
 * view character in the original text so edits land where the text was written.
 *
 * Per code point, by Unicode class rather than by a list of characters:
 * - every line break (CR, CR-LF, VT, FF, NEL, `Zl`, `Zp`) is `\n`;
 * - format (`Cf`: zero-width, bidi controls, soft hyphen, BOM, tags), combining (`Mn`, `Me`,
 *   variation selectors among them), other control (`Cc`) and default-ignorable characters
 *   (Hangul fillers) are removed;
 * - every space separator (`Zs`: NBSP, ideographic, figure, thin spaces) is a space;
 * - the rest is NFKC (full-width, mathematical, ligatures, circled, super/subscript forms), with
 *   combining marks removed from its decomposition (accents: `é` is `e`), then mapped to its
 *   Unicode TR39 confusable prototype when that is printable ASCII (`confusables-ascii.ts`:
 *   Cyrillic `а`, Greek `Α`, Armenian `օ`, `∶` …).
 *
 * Reins' own marks (`«`, `»`, `‹`, `›`) are never folded. The neutraliser's view also decodes
 * what a model decodes when it copies text: HTML entities (`&lt;`, `&#60;`, `&amp;lt;`) and
 * JSON/JS string escapes (`\n`, `\u003c`, `\x3c`); the decoded characters are folded the same way.
 * What the model receives keeps the original characters: only edits (marks) are applied to it.
 */
import { asciiConfusableOf } from "./confusables-ascii";

// ---------------------------------------------------------------------------------------------
// The decoded view

/** The decoded view of a text and the map from view positions back to the original. */
export interface View {
  readonly text: string;
  /** Original start offset of each view character; `undefined` when the view is the text itself. */
  readonly starts: Int32Array | undefined;
  /** Original end offset (exclusive) of each view character. */
  readonly ends: Int32Array | undefined;
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = Object.freeze({
  lt: "<", gt: ">", amp: "&", quot: '"', apos: "'", colon: ":", lsqb: "[", rsqb: "]", lbrack: "[", rbrack: "]",
  lpar: "(", rpar: ")", lcub: "{", rcub: "}", lbrace: "{", rbrace: "}", vert: "|", verbar: "|", sol: "/", bsol: "\\", nbsp: " ", newline: "\n", tab: "\t",
});

/** Reins' marks (`«`, `»`, `‹`, `›`): folding them would make neutralised text read as what it neutralised. */
const KEPT_MARKS = new Set([0xab, 0xbb, 0x2039, 0x203a]);
const LINE_BREAK = /^[\p{Zl}\p{Zp}\u0085\v\f\r]$/u;
const REMOVED = /^[\p{Cc}\p{Cf}\p{Mn}\p{Me}\p{Default_Ignorable_Code_Point}]$/u;
const SPACE = /^\p{Zs}$/u;
const COMBINING_MARKS = /[\p{Mn}\p{Me}]/gu;
const FOLD_CACHE_LIMIT = 16_384;
const foldCache = new Map<number, string>();

/** The class rule of one non-ASCII character: a line break, removed, a space, or undefined. */
function classFold(character: string): string | undefined {
  if (LINE_BREAK.test(character)) return "\n";
  if (REMOVED.test(character)) return "";
  if (SPACE.test(character)) return " ";
  return undefined;
}

/**
 * What one code point is in the view (see the module doc): itself, `""` (removed), `"\n"`, `" "`,
 * or its NFKC / confusable ASCII form. CR alone is `"\n"` (CR-LF is joined by the view).
 */
export function foldCodePoint(codePoint: number): string {
  if (codePoint < 0x80) {
    if ((codePoint >= 0x20 && codePoint < 0x7f) || codePoint === 9 || codePoint === 10) return String.fromCharCode(codePoint);
    return codePoint === 11 || codePoint === 12 || codePoint === 13 ? "\n" : "";
  }
  const cached = foldCache.get(codePoint);
  if (cached !== undefined) return cached;
  const character = String.fromCodePoint(codePoint);
  let folded: string;
  if (KEPT_MARKS.has(codePoint)) {
    folded = character;
  } else {
    folded = classFold(character) ?? "";
    if (folded === "" && !REMOVED.test(character)) {
      for (const part of character.normalize("NFKC").normalize("NFD").replace(COMBINING_MARKS, "").normalize("NFC")) {
        const code = part.codePointAt(0) as number;
        if (code < 0x80) folded += foldCodePoint(code);
        else if (KEPT_MARKS.has(code)) folded += part;
        else folded += classFold(part) ?? asciiConfusableOf(code) ?? part;
      }
    }
  }
  if (foldCache.size < FOLD_CACHE_LIMIT) foldCache.set(codePoint, folded);
  return folded;
}

/** `text` folded code point by code point (CR-LF is one line break): the view's text without decoding. */
export function foldText(text: string): string {
  if (!NEEDS_FOLDING.test(text)) return text;
  let result = "";
  for (let index = 0; index < text.length; index += 1) {
    const codePoint = text.codePointAt(index) as number;
    if (codePoint > 0xffff) index += 1;
    if (codePoint === 13 && text.charCodeAt(index + 1) === 10) continue;
    result += foldCodePoint(codePoint);
  }
  return result;
}

/** Anything the fold could change: a character outside printable ASCII, tab and LF. */
const NEEDS_FOLDING = /[^\t\n\x20-\x7e]/;
/** Anything the decoding view could change: that, an entity's `&` or an escape's backslash. */
const NEEDS_DECODING = /[^\t\n\x20-\x25\x27-\x5b\x5d-\x7e]/;

/** Every Unicode line break the view reads (CR-LF, CR, VT, FF, NEL, LS, PS, LF), for splitting. */
export const UNICODE_LINE_BREAKS = /\r\n|[\n\v\f\r\u0085\u2028\u2029]/g;

/** `text` with every Unicode line break the view reads as `\n` (CR-LF as one). */
export function normalizeLineBreaks(text: string): string {
  return /[\v\f\r\u0085\u2028\u2029]/.test(text) ? text.replace(UNICODE_LINE_BREAKS, "\n") : text;
}

function hexValue(text: string, start: number, length: number): number | undefined {
  if (start + length > text.length) return undefined;
  const digits = text.slice(start, start + length);
  return /^[0-9a-fA-F]+$/.test(digits) ? Number.parseInt(digits, 16) : undefined;
}

/** Decodes one entity at `index` (an `&`): the character and the end of the entity, or undefined. */
function entityAt(text: string, index: number): { character: string; end: number } | undefined {
  let cursor = index + 1;
  // Double (or deeper) encoding: &amp;lt; &amp;amp;#60;
  let depth = 0;
  while (text.startsWith("amp;", cursor) && depth < 4) {
    cursor += 4;
    depth += 1;
  }
  if (text[cursor] === "#") {
    const hex = text[cursor + 1] === "x" || text[cursor + 1] === "X";
    let scan = cursor + (hex ? 2 : 1);
    const digitsStart = scan;
    while (scan < text.length && scan - digitsStart < 7 && (hex ? /[0-9a-fA-F]/ : /[0-9]/).test(text[scan])) scan += 1;
    // "&amp;#" without digits: the decoded "&" of the outer level.
    if (scan === digitsStart) return depth > 0 ? { character: "&", end: index + 5 } : undefined;
    const code = Number.parseInt(text.slice(digitsStart, scan), hex ? 16 : 10);
    if (!Number.isFinite(code) || code > 0x10ffff) return undefined;
    const end = text[scan] === ";" ? scan + 1 : scan;
    return { character: String.fromCodePoint(code), end };
  }
  let scan = cursor;
  while (scan < text.length && scan - cursor < 8 && /[A-Za-z]/.test(text[scan])) scan += 1;
  const name = text.slice(cursor, scan).toLowerCase();
  const character = NAMED_ENTITIES[name];
  if (character !== undefined && text[scan] === ";") return { character, end: scan + 1 };
  if (depth > 0) return { character: "&", end: cursor };
  return undefined;
}

const ESCAPES: Readonly<Record<string, string>> = Object.freeze({ n: "\n", r: "\n", t: "\t", '"': '"', "'": "'", "/": "/", "\\": "\\", "<": "<", ">": ">", "[": "[", "]": "]", "(": "(", ")": ")", "{": "{", "}": "}", _: "_", "*": "*", "`": "`", "-": "-", ":": ":" });

/** Decodes one backslash escape at `index`: the character and the end, or undefined. */
function escapeAt(text: string, index: number): { character: string; end: number } | undefined {
  let cursor = index + 1;
  // Double escaping (\\n inside a JSON string of JSON): read through up to 3 levels.
  let levels = 0;
  while (text[cursor] === "\\" && levels < 3 && (text[cursor + 1] === "\\" || text[cursor + 1] === "n" || text[cursor + 1] === "u" || text[cursor + 1] === '"')) {
    cursor += 1;
    levels += 1;
  }
  const next = text[cursor];
  if (next === "u") {
    if (text[cursor + 1] === "{") {
      const close = text.indexOf("}", cursor + 2);
      const value = close > 0 && close - cursor < 10 ? hexValue(text, cursor + 2, close - cursor - 2) : undefined;
      return value !== undefined && value <= 0x10ffff ? { character: String.fromCodePoint(value), end: close + 1 } : undefined;
    }
    const value = hexValue(text, cursor + 1, 4);
    return value === undefined ? undefined : { character: String.fromCharCode(value), end: cursor + 5 };
  }
  if (next === "x") {
    const value = hexValue(text, cursor + 1, 2);
    return value === undefined ? undefined : { character: String.fromCharCode(value), end: cursor + 3 };
  }
  const character = next === undefined ? undefined : ESCAPES[next];
  return character === undefined ? undefined : { character, end: cursor + 1 };
}

/** The decoded view of `text` (entities, escapes, then the Unicode fold of the module doc). */
export function decodedView(text: string): View {
  return buildView(text, true);
}

/**
 * `text` as the neutraliser and the provenance check read it: HTML entities and JSON/JS escapes
 * decoded, then folded (the module doc). What a model may make of the text when it copies it.
 *
 * @param text - untrusted text (a tool result, a prompt, a message)
 * @returns the decoded, folded text (the text itself when nothing changes)
 */
export function decodeUntrustedText(text: string): string {
  return decodedView(text).text;
}

/** The folded view of `text`, without decoding entities or escapes (how labels are read in model text). */
export function foldedView(text: string): View {
  return buildView(text, false);
}

function buildView(text: string, decode: boolean): View {
  if (!(decode ? NEEDS_DECODING : NEEDS_FOLDING).test(text)) return { text, starts: undefined, ends: undefined };
  let starts = new Int32Array(text.length + 17);
  let ends = new Int32Array(text.length + 17);
  const parts: string[] = [];
  let count = 0;
  // NFKC may make one character many (U+FDFA is 18): the maps grow as needed.
  const reserve = (units: number): void => {
    if (count + units + 1 <= starts.length) return;
    const size = Math.max(starts.length * 2, count + units + 1);
    const grownStarts = new Int32Array(size);
    grownStarts.set(starts);
    starts = grownStarts;
    const grownEnds = new Int32Array(size);
    grownEnds.set(ends);
    ends = grownEnds;
  };
  const push = (decoded: string, start: number, end: number): void => {
    parts.push(decoded);
    reserve(decoded.length);
    for (let unit = 0; unit < decoded.length; unit += 1) {
      starts[count] = start;
      ends[count] = end;
      count += 1;
    }
  };
  let index = 0;
  let runStart = 0;
  const flush = (): void => {
    if (index > runStart) {
      parts.push(text.slice(runStart, index));
      reserve(index - runStart);
      for (let position = runStart; position < index; position += 1) {
        starts[count] = position;
        ends[count] = position + 1;
        count += 1;
      }
    }
  };
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if ((code >= 0x20 && code < 0x7f && ((code !== 38 && code !== 92) || !decode)) || code === 10 || code === 9) {
      index += 1;
      continue;
    }
    let decoded: string | undefined;
    let end = index + 1;
    if (code === 38) {
      const entity = entityAt(text, index);
      if (entity !== undefined) {
        decoded = foldText(entity.character);
        end = entity.end;
      }
    } else if (code === 92) {
      const escape = escapeAt(text, index);
      if (escape !== undefined) {
        decoded = foldText(escape.character);
        end = escape.end;
      }
    } else if (code === 13) {
      decoded = "\n";
      end = text.charCodeAt(index + 1) === 10 ? index + 2 : index + 1;
    } else {
      const codePoint = text.codePointAt(index) as number;
      end = codePoint > 0xffff ? index + 2 : index + 1;
      const folded = foldCodePoint(codePoint);
      if (folded.length !== end - index || folded !== text.slice(index, end)) decoded = folded;
    }
    if (decoded === undefined) {
      index = end > index + 1 && code !== 38 && code !== 92 ? end : index + 1;
      continue;
    }
    flush();
    if (decoded.length > 0) push(decoded, index, end);
    index = end;
    runStart = end;
  }
  flush();
  starts[count] = text.length;
  ends[count] = text.length;
  return { text: parts.join(""), starts: starts.subarray(0, count + 1), ends: ends.subarray(0, count + 1) };
}

// ---------------------------------------------------------------------------------------------
// Edits, in view positions, applied to the original text

/** One change, in view positions. */
export interface Edit {
  /** View position. */
  readonly at: number;
  /** Insert before the view character at `at` (`replace` false), or replace that character. */
  readonly replace: boolean;
  readonly text: string;
}

/** Applies `edits` (view positions) to the original text, keeping every character outside them. */
export function applyEdits(original: string, view: View, edits: Edit[]): string {
  if (edits.length === 0) return original;
  edits.sort((left, right) => left.at - right.at || Number(left.replace) - Number(right.replace));
  let result = "";
  let cursor = 0;
  let lastInsert: { start: number; text: string } | undefined;
  for (const edit of edits) {
    const start = view.starts === undefined ? edit.at : (view.starts[edit.at] as number);
    const end = view.ends === undefined ? edit.at + 1 : (view.ends[edit.at] as number);
    if (start < cursor) continue;
    // Two finders marking the same spot (a label that is also a blob key) mark it once.
    if (!edit.replace && lastInsert !== undefined && lastInsert.start === start && lastInsert.text === edit.text) continue;
    lastInsert = edit.replace ? undefined : { start, text: edit.text };
    result += original.slice(cursor, start) + edit.text;
    cursor = edit.replace ? Math.min(original.length, end) : start;
  }
  return result + original.slice(cursor);
}
