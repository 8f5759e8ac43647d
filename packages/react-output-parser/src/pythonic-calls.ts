/**
 * Pythonic tool calls (Llama 3.2 / Llama 4, vLLM's `pythonic` and `llama4_pythonic` parsers):
 * `[get_weather(city="Oslo", days=3), search(query='x')]`, also without the list brackets after
 * `<|python_tag|>` / `<|python_start|>`, and Llama 3.1's built-in form `brave_search.call(query="x")`.
 * Arguments are Python literals: strings in either quote, numbers, `True`/`False`/`None`, lists and
 * dicts (read with the parser's JSON repair). Linear: one scan per call.
 */
import { parseLooseJson } from "./json-text";
import type { WrittenCall } from "./written-call-tokens";

function isIdentifierStart(character: string | undefined): boolean {
  return character !== undefined && /[A-Za-z_]/.test(character);
}

/** The index after the bracket/quote-balanced argument list opened at `open` (a `(`), or -1. */
function closingParenthesis(text: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let index = open; index < text.length; index += 1) {
    const character = text[index] as string;
    if (quote !== undefined) {
      if (character === "\\") index += 1;
      else if (character === quote) quote = undefined;
      continue;
    }
    if (character === '"' || character === "'") quote = character;
    else if (character === "(" || character === "[" || character === "{") depth += 1;
    else if (character === ")" || character === "]" || character === "}") {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return -1;
}

/** Top-level comma-separated parts of an argument list. */
function splitArguments(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let current = "";
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index] as string;
    current += character;
    if (quote !== undefined) {
      if (character === "\\") {
        current += text[index + 1] ?? "";
        index += 1;
      } else if (character === quote) quote = undefined;
      continue;
    }
    if (character === '"' || character === "'") quote = character;
    else if (character === "(" || character === "[" || character === "{") depth += 1;
    else if (character === ")" || character === "]" || character === "}") depth -= 1;
    else if (character === "," && depth === 0) {
      parts.push(current.slice(0, -1));
      current = "";
    }
  }
  if (current.trim().length > 0) parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}

/** A Python literal as a value; the text itself when it is none. */
function pythonValue(raw: string, maxRepairChars: number): unknown {
  if (raw === "True") return true;
  if (raw === "False") return false;
  if (raw === "None") return null;
  const quote = raw[0];
  if ((quote === '"' || quote === "'") && raw.endsWith(quote) && raw.length >= 2) {
    const body = raw.slice(1, -1);
    try {
      return JSON.parse(`"${quote === "'" ? body.replace(/\\'/g, "'").replace(/"/g, '\\"') : body}"`) as unknown;
    } catch {
      return body;
    }
  }
  if (/^-?\d+(?:\.\d+)?$/.test(raw)) return Number(raw);
  if (raw[0] === "[" || raw[0] === "{") return parseLooseJson(raw, maxRepairChars)?.value ?? raw;
  return raw;
}

/** `key=value, …` as an object; one positional argument alone as that value. */
function argumentsOf(text: string, maxRepairChars: number): unknown {
  const parts = splitArguments(text);
  if (parts.length === 1 && !/^[A-Za-z_]\w*\s*=(?!=)/.test(parts[0] as string)) return pythonValue(parts[0] as string, maxRepairChars);
  const result: Record<string, unknown> = {};
  for (const part of parts) {
    const match = /^([A-Za-z_]\w*)\s*=(?!=)\s*([\s\S]*)$/.exec(part);
    // A positional argument among keyword ones: kept as written, for the schema check to name.
    if (match === null) result[`argument_${Object.keys(result).length + 1}`] = pythonValue(part, maxRepairChars);
    else result[match[1] as string] = pythonValue((match[2] as string).trim(), maxRepairChars);
  }
  return result;
}

/**
 * Pythonic calls starting at `at` (the first name), separated by commas or newlines, up to a `]`
 * (list form) or the first text that is no call.
 *
 * @returns the calls and the index after the last one (after the `]` in list form)
 */
export function readPythonicCalls(text: string, at: number, maxRepairChars: number, listForm: boolean): { calls: WrittenCall[]; end: number } {
  const calls: WrittenCall[] = [];
  let cursor = at;
  for (;;) {
    while (cursor < text.length && /\s/.test(text[cursor] as string)) cursor += 1;
    if (!isIdentifierStart(text[cursor])) break;
    const nameStart = cursor;
    while (cursor < text.length && cursor - nameStart < 100 && /[\w.\-]/.test(text[cursor] as string)) cursor += 1;
    const name = text.slice(nameStart, cursor).replace(/\.call$/, "");
    while (text[cursor] === " ") cursor += 1;
    if (text[cursor] !== "(") break;
    const close = closingParenthesis(text, cursor);
    if (close < 0) {
      calls.push({ name, args: text.slice(cursor + 1), truncated: true, start: nameStart, end: text.length });
      return { calls, end: text.length };
    }
    calls.push({ name, args: argumentsOf(text.slice(cursor + 1, close - 1), maxRepairChars), truncated: false, start: nameStart, end: close });
    cursor = close;
    while (text[cursor] === " " || text[cursor] === "\t") cursor += 1;
    if (text[cursor] === "," || text[cursor] === "\n" || text[cursor] === ";") cursor += 1;
    else break;
  }
  let end = calls.at(-1)?.end ?? at;
  if (listForm) {
    let after = end;
    while (after < text.length && /[\s,]/.test(text[after] as string)) after += 1;
    if (text[after] === "]") end = after + 1;
    else if (after >= text.length && calls.length > 0) return { calls: calls.map((call, index) => (index === calls.length - 1 ? { ...call, truncated: true } : call)), end: text.length };
  }
  return { calls, end };
}
