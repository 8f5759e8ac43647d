/**
 * The decoded view `neutralizeUntrustedText` matches on: HTML entities, JSON/JS string escapes,
 * CR and CR-LF, zero-width characters and soft hyphens, full-width punctuation, with the offset
 * of each view character in the original text so edits land where the text was written.
 */

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

const FULL_WIDTH: Readonly<Record<string, string>> = Object.freeze({
  "\uff1a": ":", "\uff1c": "<", "\uff1e": ">", "\uff3b": "[", "\uff3d": "]", "\uff08": "(", "\uff09": ")", "\uff5b": "{", "\uff5d": "}", "\uff5c": "|",
  "\u2039": "\u2039", "\ufe64": "<", "\ufe65": ">", "\u3008": "<", "\u3009": ">",
});

function isInvisible(code: number): boolean {
  return code === 0x200b || code === 0x200c || code === 0x200d || code === 0x2060 || code === 0xfeff || code === 0x00ad || code === 0x180e || (code >= 0x2061 && code <= 0x2064);
}

/** Anything the view would decode: `&`, `\\`, CR, an invisible or a full-width character. */
const NEEDS_DECODING = /[&\\\r\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff\u3008\u3009\ufe64\ufe65\uff08\uff09\uff1a\uff1c\uff1e\uff3b\uff3d\uff5b-\uff5d]/;

/** Whether the text has anything the view would decode (the common case has none: no copy). */
function needsDecoding(text: string): boolean {
  return NEEDS_DECODING.test(text);
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

function isSpecial(code: number, character: string): boolean {
  if (code === 38 || code === 92 || code === 13) return true;
  return code >= 0x00ad && (isInvisible(code) || FULL_WIDTH[character] !== undefined);
}

/** The decoded view of `text` (entities, escapes, CR, invisible and full-width characters). */
export function decodedView(text: string): View {
  if (!needsDecoding(text)) return { text, starts: undefined, ends: undefined };
  const starts = new Int32Array(text.length + 1);
  const ends = new Int32Array(text.length + 1);
  const parts: string[] = [];
  let count = 0;
  const push = (decoded: string, start: number, end: number): void => {
    parts.push(decoded);
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
      for (let position = runStart; position < index; position += 1) {
        starts[count] = position;
        ends[count] = position + 1;
        count += 1;
      }
    }
  };
  while (index < text.length) {
    const code = text.charCodeAt(index);
    const character = text[index] as string;
    if (!isSpecial(code, character)) {
      index += 1;
      continue;
    }
    let decoded: string | undefined;
    let end = index + 1;
    if (code === 38) {
      const entity = entityAt(text, index);
      if (entity !== undefined) {
        decoded = isInvisible(entity.character.charCodeAt(0)) ? "" : entity.character === "\r" ? "\n" : (FULL_WIDTH[entity.character] ?? entity.character);
        end = entity.end;
      }
    } else if (code === 92) {
      const escape = escapeAt(text, index);
      if (escape !== undefined) {
        const character = isInvisible(escape.character.charCodeAt(0)) ? "" : (FULL_WIDTH[escape.character] ?? escape.character);
        decoded = character === "\r" ? "\n" : character;
        end = escape.end;
      }
    } else if (code === 13) {
      decoded = "\n";
      end = text.charCodeAt(index + 1) === 10 ? index + 2 : index + 1;
    } else if (isInvisible(code)) {
      decoded = "";
    } else {
      decoded = FULL_WIDTH[character];
    }
    if (decoded === undefined) {
      index += 1;
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
  for (const edit of edits) {
    const start = view.starts === undefined ? edit.at : (view.starts[edit.at] as number);
    const end = view.ends === undefined ? edit.at + 1 : (view.ends[edit.at] as number);
    if (start < cursor) continue;
    result += original.slice(cursor, start) + edit.text;
    cursor = edit.replace ? Math.min(original.length, end) : start;
  }
  return result + original.slice(cursor);
}
