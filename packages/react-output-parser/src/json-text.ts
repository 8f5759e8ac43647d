import { jsonrepair } from "jsonrepair";

/**
 * JSON helpers for model text. Every function here is a single left-to-right scan (or a bounded
 * number of them): linear in the input's length, whatever the input.
 */

const SMART_DOUBLE_QUOTES = new Set(["\u201c", "\u201d", "\u201e", "\u201f", "\u2033"]);
const SMART_SINGLE_QUOTES = new Set(["\u2018", "\u2019", "\u201a", "\u201b"]);
/** Any typographic quote (a single native scan decides whether straightening is needed). */
const SMART_QUOTE_PATTERN = /[\u2018-\u201f\u2033]/;
const OPENING_CONTEXT = new Set(["{", "[", ",", ":"]);
const CLOSING_CONTEXT = new Set(["}", "]", ",", ":"]);

function isJsonSpace(character: string | undefined): boolean {
  return character === " " || character === "\t" || character === "\n" || character === "\r";
}

function previousNonSpace(text: string, index: number): string | undefined {
  let scan = index - 1;
  while (scan >= 0 && isJsonSpace(text[scan])) scan -= 1;
  return scan >= 0 ? text[scan] : undefined;
}

/** Index of the first non-space character at or after `index`, or `text.length`. */
function nextNonSpaceIndex(text: string, index: number): number {
  let scan = index;
  while (scan < text.length && isJsonSpace(text[scan])) scan += 1;
  return scan;
}

/**
 * Replaces typographic quotes that act as JSON string delimiters (next to `{ [ , :` or `} ] , :`)
 * with straight double quotes. Typographic quotes inside string content are kept: the text is
 * never changed beyond its delimiters.
 *
 * @param text - JSON-like text
 * @returns the text with delimiter quotes straightened, and whether anything changed
 */
export function straightenDelimiterQuotes(text: string): { text: string; changed: boolean } {
  if (!SMART_QUOTE_PATTERN.test(text)) return { text, changed: false };
  let changed = false;
  const chunks: string[] = [];
  let lastCut = 0;
  // Whitespace runs are scanned at most twice (once looking back, once looking ahead).
  let lastNonSpace: string | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (SMART_DOUBLE_QUOTES.has(character) || SMART_SINGLE_QUOTES.has(character)) {
      const nextIndex = nextNonSpaceIndex(text, index + 1);
      const next = nextIndex < text.length ? text[nextIndex] : undefined;
      const before = lastNonSpace;
      if ((before !== undefined && OPENING_CONTEXT.has(before)) || next === undefined || CLOSING_CONTEXT.has(next)) {
        chunks.push(text.slice(lastCut, index), '"');
        lastCut = index + 1;
        changed = true;
      }
    }
    if (!isJsonSpace(character)) lastNonSpace = character;
  }
  if (!changed) return { text, changed };
  chunks.push(text.slice(lastCut));
  return { text: chunks.join(""), changed };
}

const MAX_JSON_DEPTH = 512;

/**
 * Finds the end of the bracketed JSON value that starts at `start` (`{` or `[`), aware of strings
 * in double quotes (also closed by a typographic quote before a delimiter) and in single quotes
 * opened at a value position.
 *
 * @returns the index just past the matching bracket, or `-1` when the text ends first (or nests
 *   deeper than 512 levels)
 */
export function findBalancedEnd(text: string, start: number): number {
  let depth = 0;
  let index = start;
  const length = text.length;
  // Code points: { 123, } 125, [ 91, ] 93, " 34, ' 39, \\ 92, newline 10.
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 123 || code === 91) {
      depth += 1;
      // No tool input nests this deep; treating it as unclosed saves scanning a pathological input.
      if (depth > MAX_JSON_DEPTH) return -1;
    } else if (code === 125 || code === 93) {
      depth -= 1;
      if (depth === 0) return index + 1;
    } else if (code === 34 || isSmartDoubleQuote(code) || (code === 39 && OPENING_CONTEXT.has(previousNonSpace(text, index) ?? ""))) {
      const single = code === 39;
      index += 1;
      while (index < length) {
        const inner = text.charCodeAt(index);
        if (inner === 92) {
          index += 2;
          continue;
        }
        if (!single && inner === 34) break;
        if (single ? inner === 39 : isSmartDoubleQuote(inner)) {
          const nextIndex = nextNonSpaceIndex(text, index + 1);
          if (nextIndex >= length || CLOSING_CONTEXT.has(text[nextIndex])) break;
        }
        if (single && inner === 10) break;
        index += 1;
      }
    }
    index += 1;
  }
  return -1;
}

/**
 * Most closing braces {@link missingClosers} adds: the outermost one (the Action Input rule,
 * `endsMidValue`: an inner object left open was cut inside).
 */
const MAX_MISSING_CLOSERS = 1;

/**
 * The closing braces a JSON value starting at `start` lacks when it is complete otherwise: the
 * text ends after a whole value (a closed string, `true`/`false`/`null`, a closed object or
 * array), outside any string, not after a key, a `:` or a `,`, and only the outermost `}` is
 * missing (an inner object or list left open may have had more: cut off). That
 * is a model's slip (Llama 3 dropping its call's last `}`); a value cut off inside a string, after
 * a key or a comma is not completed (a cut-off call is never completed by guessing). Double-quoted
 * JSON only; one linear scan.
 *
 * @returns the closer to append (`"}"`), or `undefined` (balanced, cut off, a list or an inner
 *   object left open)
 */
export function missingClosers(text: string, start: number): string | undefined {
  const stack: number[] = [];
  /** The last token outside strings: a bracket or punctuation character, a string ("s"), or a scalar ("v"). */
  let last = "";
  let lastStringIsKey = false;
  let index = start;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === 123 || code === 91) {
      stack.push(code);
      if (stack.length > MAX_JSON_DEPTH) return undefined;
      last = text[index] as string;
    } else if (code === 125 || code === 93) {
      if (stack.pop() !== (code === 125 ? 123 : 91)) return undefined;
      if (stack.length === 0) return undefined;
      last = text[index] as string;
    } else if (code === 34) {
      const before = last;
      index += 1;
      while (index < text.length && text.charCodeAt(index) !== 34) index += text.charCodeAt(index) === 92 ? 2 : 1;
      if (index >= text.length) return undefined;
      lastStringIsKey = stack.at(-1) === 123 && (before === "{" || before === ",");
      last = "s";
    } else if (code === 39) {
      return undefined;
    } else if (code === 44 || code === 58) {
      last = text[index] as string;
    } else if (!isJsonSpace(text[index])) {
      last = "v";
    }
    index += 1;
  }
  // Only braces: a list left open may have had more items (cut off), an object's final `}` is the slip.
  if (stack.length === 0 || stack.length > MAX_MISSING_CLOSERS || stack.includes(91)) return undefined;
  // A number at the end may be cut (`12` of `123`): only the literals are whole for sure.
  const ended = last === "}" || last === "]" || (last === "s" && !lastStringIsKey) || (last === "v" && /(?:true|false|null)\s*$/.test(text));
  if (!ended) return undefined;
  return stack
    .reverse()
    .map((code) => (code === 123 ? "}" : "]"))
    .join("");
}

function isSmartDoubleQuote(code: number): boolean {
  return code === 0x201c || code === 0x201d || code === 0x201e || code === 0x201f || code === 0x2033;
}

/**
 * The repair library backtracks on some degenerate inputs (runs of quotes, deep unclosed nesting:
 * a 100 KB run of quotes takes seconds). Such text is never a real tool input, so it is not
 * repaired. One linear scan.
 */
function isSafeToRepair(text: string): boolean {
  let depth = 0;
  let quoteRun = 0;
  let quotes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 34 || code === 39) {
      quotes += 1;
      quoteRun += 1;
      if (quoteRun >= 3) return false;
      continue;
    }
    quoteRun = 0;
    if (code === 123 || code === 91) {
      depth += 1;
      if (depth > MAX_REPAIR_DEPTH) return false;
    } else if (code === 125 || code === 93) {
      depth -= 1;
    }
  }
  return quotes <= MAX_REPAIR_QUOTES;
}

const MAX_REPAIR_DEPTH = 32;
const MAX_REPAIR_QUOTES = 1_000;

/** `"{…}"` with `\\"` inside made plain: the quoted object's text. */
function unquotedObject(inner: string): string {
  return inner.replace(/\\"/g, '"');
}

/**
 * JSON double-encoded by hand, with its inner quotes left unescaped (or half escaped):
 * `"{"city": "Oslo"}"` for the whole text, or `"action_input": "{"city": "Oslo"}"` inside an
 * object. The quotes around the inner object are dropped and its `\\"` unescaped; `undefined`
 * when the text has no such object. One pass over the text.
 */
export function unquoteEmbeddedJson(text: string): string | undefined {
  const trimmed = text.trim();
  const quote = trimmed[0];
  if ((quote === '"' || quote === "'") && (trimmed[1] === "{" || trimmed[1] === "[") && trimmed.endsWith(quote) && /[}\]]$/.test(trimmed.slice(0, -1).trimEnd())) {
    const inner = trimmed.slice(1, -1);
    // A properly escaped string is JSON already: only unescaped inner quotes need this.
    if (/(^|[^\\])"/.test(inner) || quote === "'") return unquotedObject(inner);
    return undefined;
  }
  if (!text.includes('"{')) return undefined;
  let result = "";
  let cursor = 0;
  for (let index = text.indexOf('"{'); index >= 0; index = text.indexOf('"{', index + 1)) {
    if (index < cursor || !/:\s*$/.test(text.slice(Math.max(cursor, index - 8), index))) continue;
    let depth = 0;
    let end = -1;
    for (let position = index + 1; position < text.length; position += 1) {
      const character = text[position];
      if (character === "{") depth += 1;
      else if (character === "}") {
        depth -= 1;
        if (depth === 0) {
          end = position + 1;
          break;
        }
      }
    }
    if (end < 0 || text[end] !== '"') continue;
    result += text.slice(cursor, index) + unquotedObject(text.slice(index + 1, end));
    cursor = end + 1;
  }
  return cursor === 0 ? undefined : result + text.slice(cursor);
}

/** The result of reading JSON-like text. */
export interface LooseJson {
  readonly value: unknown;
  /** Repairs applied, as bounded identifiers (`json_repair`, `json_smart_quotes`, `json_double_encoded`). */
  readonly repairs: readonly string[];
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  // A failed JSON.parse costs mostly its stack trace; none is needed here. The limit is restored
  // before anything else can run (all synchronous).
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function looksLikeJsonContainer(text: string): boolean {
  const first = text.trimStart()[0];
  return first === "{" || first === "[";
}

/**
 * Reads JSON the way models write it: strict JSON first; then with delimiter smart quotes
 * straightened; then repaired with `jsonrepair` (single quotes, Python literals, trailing commas,
 * comments, missing closing brackets, unquoted keys) when the text is at most `maxRepairChars`
 * long. A JSON string that itself holds a JSON object or array is decoded once more.
 *
 * @param text - the candidate JSON text
 * @param maxRepairChars - longest text handed to the repair library
 * @returns the value and the repairs applied, or `undefined` when the text is not JSON even after repair
 */
export function parseLooseJson(text: string, maxRepairChars: number): LooseJson | undefined {
  const embedded = text.length <= maxRepairChars ? unquoteEmbeddedJson(text) : undefined;
  if (embedded !== undefined && !tryParse(text).ok) {
    const inner = parseLooseJson(embedded, maxRepairChars);
    if (inner !== undefined) return { value: inner.value, repairs: ["json_double_encoded", ...inner.repairs.filter((repair) => repair !== "json_double_encoded")] };
  }
  const repairs: string[] = [];
  // Strict JSON needs double quotes around any key or string: without one, go straight to repair.
  let parsed: ReturnType<typeof tryParse> = text.includes('"') || !text.includes("'") ? tryParse(text) : { ok: false };
  // A Python-style dict with no double quote at all ({'a': 'b'}): swapping the quotes is the whole
  // repair, and much cheaper than the repair library. Accepted only if the result is valid JSON.
  if (!parsed.ok && !text.includes('"') && text.includes("'") && text.length <= maxRepairChars) {
    parsed = tryParse(text.replace(/'/g, '"'));
    if (parsed.ok) repairs.push("json_repair");
  }
  if (!parsed.ok) {
    const straightened = text.length <= maxRepairChars ? straightenDelimiterQuotes(text) : { text, changed: false };
    let candidate = text;
    if (straightened.changed) {
      candidate = straightened.text;
      parsed = tryParse(candidate);
      if (parsed.ok) repairs.push("json_smart_quotes");
    }
    if (!parsed.ok && candidate.length <= maxRepairChars && isSafeToRepair(candidate)) {
      try {
        parsed = tryParse(jsonrepair(candidate));
        if (parsed.ok) {
          if (straightened.changed) repairs.push("json_smart_quotes");
          repairs.push("json_repair");
        }
      } catch {
        // Not repairable (or nested too deep for the repair library): the caller reports it.
        parsed = { ok: false };
      }
    }
  }
  if (!parsed.ok) return undefined;
  let value = parsed.value;
  if (typeof value === "string" && looksLikeJsonContainer(value)) {
    const inner = parseLooseJson(value, maxRepairChars);
    if (inner !== undefined) {
      value = inner.value;
      repairs.push("json_double_encoded", ...inner.repairs);
    }
  }
  return { value, repairs };
}
