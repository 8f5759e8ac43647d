/**
 * Text-level decoding: bytes to UTF-8 text, control characters, literal `\uXXXX` escapes and
 * mojibake (UTF-8 that was read as Latin-1/Windows-1252). Each function is linear in its input
 * and reports what it changed through `notes`; none drops non-ASCII text.
 */

/** Collects short, deduplicated notes about what the cleaner did. */
export class Notes {
  private readonly items = new Map<string, number>();

  /** Set by any step that left content out (a depth limit, a list gap): the result is `truncated`. */
  cut = false;

  /** Adds a note, or counts one more occurrence of it. */
  add(note: string, count = 1): void {
    this.items.set(note, (this.items.get(note) ?? 0) + count);
  }

  has(note: string): boolean {
    return this.items.has(note);
  }

  /** The notes in insertion order; repeated ones say how often. */
  list(): string[] {
    return [...this.items.entries()].map(([note, count]) => (count > 1 ? `${note} (×${count})` : note));
  }
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });
const strictUtf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * Decodes bytes as UTF-8. Invalid sequences become U+FFFD and are counted in the notes.
 */
export function decodeBytes(bytes: Uint8Array, notes: Notes): string {
  try {
    return strictUtf8Decoder.decode(bytes);
  } catch {
    const text = utf8Decoder.decode(bytes);
    let replaced = 0;
    for (let index = 0; index < text.length; index += 1) if (text.charCodeAt(index) === 0xfffd) replaced += 1;
    let genuine = 0;
    for (let index = 0; index + 2 < bytes.length; index += 1) {
      if (bytes[index] === 0xef && bytes[index + 1] === 0xbf && bytes[index + 2] === 0xbd) genuine += 1;
    }
    notes.add(`bytes were not valid UTF-8: ${Math.max(1, replaced - genuine)} invalid byte sequence(s) replaced with U+FFFD`);
    return text;
  }
}

// Windows-1252 bytes 0x80-0x9F, by the character they decode to.
const CP1252_HIGH: ReadonlyMap<number, number> = new Map([
  [0x20ac, 0x80], [0x201a, 0x82], [0x0192, 0x83], [0x201e, 0x84], [0x2026, 0x85], [0x2020, 0x86],
  [0x2021, 0x87], [0x02c6, 0x88], [0x2030, 0x89], [0x0160, 0x8a], [0x2039, 0x8b], [0x0152, 0x8c],
  [0x017d, 0x8e], [0x2018, 0x91], [0x2019, 0x92], [0x201c, 0x93], [0x201d, 0x94], [0x2022, 0x95],
  [0x2013, 0x96], [0x2014, 0x97], [0x02dc, 0x98], [0x2122, 0x99], [0x0161, 0x9a], [0x203a, 0x9b],
  [0x0153, 0x9c], [0x017e, 0x9e], [0x0178, 0x9f],
]);

function isContinuationChar(code: number): boolean {
  return (code >= 0x80 && code <= 0xbf) || (CP1252_HIGH.get(code) ?? 0) >= 0x80;
}

// A UTF-8 lead byte (Â..ô) read as Latin-1, followed by a continuation byte read as Latin-1/1252.
function looksLikeMojibake(text: string): boolean {
  for (let index = 0; index + 1 < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 0xc2 && code <= 0xf4 && isContinuationChar(text.charCodeAt(index + 1))) return true;
  }
  return false;
}

/**
 * Repairs UTF-8 text that was decoded as Latin-1 or Windows-1252 ("SÃ£o Paulo" → "São Paulo").
 * Applied only when it is safe: every character maps back to one byte, the bytes form valid
 * UTF-8, and the result is shorter. Otherwise the text is returned unchanged.
 */
export function repairMojibake(text: string, notes: Notes): string {
  if (!looksLikeMojibake(text)) return text;
  const bytes = new Uint8Array(text.length);
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code <= 0xff) bytes[index] = code;
    else {
      const byte = CP1252_HIGH.get(code);
      if (byte === undefined) return text;
      bytes[index] = byte;
    }
  }
  let repaired: string;
  try {
    repaired = strictUtf8Decoder.decode(bytes);
  } catch {
    return text;
  }
  if (repaired.length >= text.length) return text;
  notes.add("repaired mojibake (UTF-8 text that had been read as Latin-1)");
  return repaired;
}

/**
 * Decodes literal `\uXXXX` escapes left in text (JSON escaped twice). Surrogate pairs written as
 * two escapes join into one character; a lone surrogate escape is left as written.
 */
export function decodeUnicodeEscapes(text: string, notes: Notes): string {
  if (!text.includes("\\u")) return text;
  let changed = false;
  const result = text.replace(/\\u([0-9a-fA-F]{4})(?:\\u([0-9a-fA-F]{4}))?/g, (match, first: string, second?: string) => {
    const high = Number.parseInt(first, 16);
    if (second !== undefined) {
      const low = Number.parseInt(second, 16);
      if (high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
        changed = true;
        return String.fromCharCode(high, low);
      }
      const head = high >= 0xd800 && high <= 0xdfff ? `\\u${first}` : String.fromCharCode(high);
      const tail = low >= 0xd800 && low <= 0xdfff ? `\\u${second}` : String.fromCharCode(low);
      changed = true;
      return head + tail;
    }
    if (high >= 0xd800 && high <= 0xdfff) return match;
    changed = true;
    return String.fromCharCode(high);
  });
  if (changed) notes.add("decoded literal \\uXXXX escapes");
  return result;
}

/**
 * Normalises line ends to `\n`, removes ANSI escape sequences, NUL and other C0/C1 control
 * characters (tab and newline kept), and replaces lone surrogates with U+FFFD.
 */
export function normalizeControlCharacters(text: string, notes: Notes): string {
  let needsWork = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if ((code < 0x20 && code !== 0x0a && code !== 0x09) || (code >= 0x7f && code <= 0x9f) || (code >= 0xd800 && code <= 0xdfff)) {
      needsWork = true;
      break;
    }
  }
  if (!needsWork) return text;
  let removed = 0;
  let surrogates = 0;
  // ANSI CSI / OSC sequences first, so their parameters do not survive as text.
  let result = text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g, () => {
    removed += 1;
    return "";
  });
  result = result.replace(/\r\n?/g, "\n");
  let output = "";
  let segmentStart = 0;
  for (let index = 0; index < result.length; index += 1) {
    const code = result.charCodeAt(index);
    let replacement: string | undefined;
    if ((code < 0x20 && code !== 0x0a && code !== 0x09) || (code >= 0x7f && code <= 0x9f)) {
      replacement = code === 0x0c || code === 0x0b ? "\n" : "";
      removed += 1;
    } else if (code >= 0xd800 && code <= 0xdbff) {
      const next = result.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        index += 1;
        continue;
      }
      replacement = "\ufffd";
      surrogates += 1;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      replacement = "\ufffd";
      surrogates += 1;
    }
    if (replacement !== undefined) {
      output += result.slice(segmentStart, index) + replacement;
      segmentStart = index + 1;
    }
  }
  output += result.slice(segmentStart);
  if (removed > 0) notes.add("removed control characters");
  if (surrogates > 0) notes.add("replaced lone UTF-16 surrogates with U+FFFD");
  return output;
}

// Printable ASCII with no backslash needs none of the repairs: one native scan decides.
const NEEDS_DECODING = /[^\x20-\x5b\x5d-\x7e\n\t]/;

/** All text-level repairs, in order: control characters, `\uXXXX` escapes, mojibake. */
export function decodeText(text: string, notes: Notes): string {
  if (!NEEDS_DECODING.test(text)) return text;
  return repairMojibake(decodeUnicodeEscapes(normalizeControlCharacters(text, notes), notes), notes);
}
