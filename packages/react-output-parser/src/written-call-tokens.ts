/**
 * Readers of tool calls written with chat-template tokens (the shapes `@reins/core` declares in
 * `written-call-shapes.ts`): gpt-oss harmony, Kimi K2's call section, DeepSeek V3 / V3.1 and
 * Mistral's `[TOOL_CALLS]`. Each returns groups: the markup's span in the text (removed from the
 * content) and the calls in it, with their arguments as the text the model wrote (parsed and
 * checked later by the tool-call repair). Linear: every token is found with `indexOf`.
 */
import { DEEPSEEK_CALL_TOKENS, HARMONY_RECIPIENT_PREFIX, KIMI_CALL_TOKENS, MISTRAL_CALL_TOKENS } from "@reins/core";
import { findBalancedEnd, missingClosers } from "./json-text";

/** The families of written calls. */
export type WrittenCallShape =
  | "harmony"
  | "kimi"
  | "deepseek"
  | "mistral"
  | "tool_call_tag"
  | "python_tag"
  | "pythonic"
  | "fenced_json"
  | "json";

/** One call as written: its name, and its arguments (a value, or the text the model wrote). */
export interface WrittenCall {
  readonly name: string;
  readonly args: unknown;
  /** The text stops inside the arguments (unbalanced at the end of the reply). */
  readonly truncated: boolean;
  /** Repairs made while reading the call (`closing_brace_added`). */
  readonly repairs?: readonly string[];
  readonly start: number;
  readonly end: number;
}

/** Call markup of one family and the calls read from it. */
export interface WrittenCallGroup {
  readonly shape: WrittenCallShape;
  readonly start: number;
  readonly end: number;
  readonly calls: readonly WrittenCall[];
}

/** Calls read from one reply at most (each family): keeps the readers linear on hostile text. */
export const MAX_WRITTEN_CALLS = 64;

/**
 * The JSON value starting at the first `{` or `[` at or after `from` (after blanks, a fence or a
 * `json` word). A value that runs to the end of the text complete but for its last one or two
 * closing brackets ({@link missingClosers}) is not truncated: `closers` are the brackets it lacks.
 */
export function jsonAt(text: string, from: number, until = text.length): { start: number; end: number; truncated: boolean; closers?: string } | undefined {
  let cursor = from;
  for (;;) {
    while (cursor < until && /\s/.test(text[cursor] as string)) cursor += 1;
    if (text.startsWith("```", cursor)) cursor += 3;
    else if (/^json\b/i.test(text.slice(cursor, cursor + 5))) cursor += 4;
    else break;
  }
  const character = text[cursor];
  if (character !== "{" && character !== "[") return undefined;
  const end = findBalancedEnd(text, cursor);
  if (end < 0 || end > until) {
    const closers = until === text.length || text.slice(until).trim().length === 0 || /^<\|/.test(text.slice(until)) ? missingClosers(text.slice(0, until).trimEnd(), cursor) : undefined;
    return closers === undefined ? { start: cursor, end: until, truncated: true } : { start: cursor, end: until, truncated: false, closers };
  }
  return { start: cursor, end, truncated: false };
}

/** The JSON text of a value found by {@link jsonAt}, with the closers it lacks. */
export function jsonTextAt(text: string, json: { start: number; end: number; closers?: string }): string {
  return json.closers === undefined ? text.slice(json.start, json.end) : text.slice(json.start, json.end).trimEnd() + json.closers;
}

/** The repairs of a value found by {@link jsonAt}. */
export function jsonRepairsAt(json: { closers?: string }): { repairs?: readonly string[] } {
  return json.closers === undefined ? {} : { repairs: ["closing_brace_added"] };
}

/** The end of a closing fence right after `index` (blanks, then ```), or `index`. */
function afterFence(text: string, index: number): number {
  let cursor = index;
  while (cursor < text.length && /\s/.test(text[cursor] as string)) cursor += 1;
  return text.startsWith("```", cursor) ? cursor + 3 : index;
}

/** A call whose arguments are the JSON text from `from` up to `until`. */
function jsonCall(text: string, name: string, start: number, from: number, until: number, closed: boolean): WrittenCall {
  const json = jsonAt(text, from, until);
  if (json === undefined) {
    const raw = text.slice(from, until).trim();
    return { name, args: raw, truncated: !closed && raw.length > 0, start, end: until };
  }
  return { name, args: jsonTextAt(text, json), truncated: json.truncated && !closed, start, end: until, ...jsonRepairsAt(json) };
}

/** `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`, every one of them. */
export function readHarmonyCalls(text: string): WrittenCallGroup[] {
  const groups: WrittenCallGroup[] = [];
  let index = text.indexOf(HARMONY_RECIPIENT_PREFIX);
  while (index >= 0 && groups.length < MAX_WRITTEN_CALLS) {
    let nameEnd = index + HARMONY_RECIPIENT_PREFIX.length;
    while (nameEnd < text.length && /[A-Za-z0-9_.\-]/.test(text[nameEnd] as string)) nameEnd += 1;
    const name = text.slice(index + HARMONY_RECIPIENT_PREFIX.length, nameEnd);
    const headerStart = Math.max(text.lastIndexOf("<|start|>", index), text.lastIndexOf("<|channel|>", index), text.lastIndexOf("assistantcommentary", index));
    const start = headerStart >= 0 && index - headerStart < 80 ? headerStart : index;
    const message = text.indexOf("<|message|>", nameEnd);
    const next = text.indexOf(HARMONY_RECIPIENT_PREFIX, nameEnd);
    const bodyStart = message >= 0 && message - nameEnd < 80 && (next < 0 || message < next) ? message + "<|message|>".length : nameEnd;
    const ends = ["<|call|>", "<|end|>", "<|return|>", "<|start|>"].map((token) => text.indexOf(token, bodyStart)).filter((at) => at >= 0);
    const close = ends.length > 0 ? Math.min(...ends) : -1;
    const until = close >= 0 ? close : next >= 0 ? next : text.length;
    const call = jsonCall(text, name, start, text.startsWith("<|constrain|>", bodyStart) ? bodyStart + 13 : bodyStart, until, close >= 0);
    const end = close >= 0 && text.startsWith("<|call|>", close) ? close + "<|call|>".length : until;
    if (name.length > 0) groups.push({ shape: "harmony", start, end, calls: [{ ...call, end }] });
    index = next >= 0 && next >= until ? next : text.indexOf(HARMONY_RECIPIENT_PREFIX, Math.max(until, nameEnd));
  }
  return groups;
}

/** Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|>…`. */
export function readKimiCalls(text: string): WrittenCallGroup[] {
  const tokens = KIMI_CALL_TOKENS;
  const first = text.indexOf(tokens.callBegin);
  const section = text.indexOf(tokens.sectionBegin);
  if (first < 0) return section < 0 ? [] : [{ shape: "kimi", start: section, end: sectionEnd(text, section), calls: [] }];
  const start = section >= 0 && section < first ? section : first;
  const calls: WrittenCall[] = [];
  let end = start;
  for (let index = first; index >= 0 && calls.length < MAX_WRITTEN_CALLS; index = text.indexOf(tokens.callBegin, end)) {
    const argument = text.indexOf(tokens.argumentBegin, index);
    const close = text.indexOf(tokens.callEnd, index);
    const nextCall = text.indexOf(tokens.callBegin, index + tokens.callBegin.length);
    if (argument < 0 || (nextCall >= 0 && argument > nextCall)) {
      end = close >= 0 ? close + tokens.callEnd.length : text.length;
      calls.push({ name: text.slice(index + tokens.callBegin.length, close >= 0 ? close : text.length).trim(), args: "", truncated: close < 0, start: index, end });
      if (close < 0) break;
      continue;
    }
    const name = text.slice(index + tokens.callBegin.length, argument).trim();
    const until = close >= 0 ? close : nextCall >= 0 ? nextCall : text.length;
    end = close >= 0 ? close + tokens.callEnd.length : until;
    calls.push({ ...jsonCall(text, name, index, argument + tokens.argumentBegin.length, until, close >= 0), end });
    if (close < 0 && nextCall < 0) break;
  }
  return [{ shape: "kimi", start, end: Math.max(end, sectionEnd(text, end)), calls }];
}

function sectionEnd(text: string, from: number): number {
  const close = text.indexOf(KIMI_CALL_TOKENS.sectionEnd, from);
  return close < 0 ? from : close + KIMI_CALL_TOKENS.sectionEnd.length;
}

/** DeepSeek's tokens, also written with ASCII bars or with spaces/underscores for `▁`. */
function deepseekToken(name: string): RegExp {
  return new RegExp(`<[|\uff5c]${name.split(" ").join("[\u2581_ ]")}[|\uff5c]>`, "g");
}
const DEEPSEEK = Object.freeze({
  callsBegin: deepseekToken("tool calls begin"),
  callsEnd: deepseekToken("tool calls end"),
  callBegin: deepseekToken("tool call begin"),
  callEnd: deepseekToken("tool call end"),
  separator: deepseekToken("tool sep"),
});

function nextMatch(pattern: RegExp, text: string, from: number): { index: number; end: number } | undefined {
  pattern.lastIndex = from;
  const match = pattern.exec(text);
  return match === null ? undefined : { index: match.index, end: match.index + match[0].length };
}

/**
 * DeepSeek V3 (`…begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>`) and
 * V3.1 (`…begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`), inside `<｜tool▁calls▁begin｜>`.
 */
export function readDeepSeekCalls(text: string): WrittenCallGroup[] {
  if (!text.includes(DEEPSEEK_CALL_TOKENS.callBegin.slice(2, 6)) && !/tool[\u2581_ ]call/.test(text)) return [];
  const section = nextMatch(DEEPSEEK.callsBegin, text, 0);
  const firstCall = nextMatch(DEEPSEEK.callBegin, text, 0);
  if (firstCall === undefined) return section === undefined ? [] : [{ shape: "deepseek", start: section.index, end: nextMatch(DEEPSEEK.callsEnd, text, section.end)?.end ?? text.length, calls: [] }];
  const start = section !== undefined && section.index < firstCall.index ? section.index : firstCall.index;
  const calls: WrittenCall[] = [];
  let end = start;
  for (let begin: { index: number; end: number } | undefined = firstCall; begin !== undefined && calls.length < MAX_WRITTEN_CALLS; begin = nextMatch(DEEPSEEK.callBegin, text, end)) {
    const close = nextMatch(DEEPSEEK.callEnd, text, begin.end);
    const next = nextMatch(DEEPSEEK.callBegin, text, begin.end);
    const until = close !== undefined && (next === undefined || close.index < next.index) ? close.index : (next?.index ?? text.length);
    const closed = close !== undefined && close.index === until;
    end = closed && close !== undefined ? close.end : until;
    const separator = nextMatch(DEEPSEEK.separator, text, begin.end);
    if (separator === undefined || separator.index > until) {
      calls.push({ name: text.slice(begin.end, until).trim(), args: "", truncated: !closed, start: begin.index, end });
    } else {
      const before = text.slice(begin.end, separator.index).trim();
      let name = before;
      let from = separator.end;
      if (before === "function") {
        // V3: the name on the line after the separator, then a ```json fence.
        const lineEnd = text.indexOf("\n", separator.end);
        const nameEnd = lineEnd >= 0 && lineEnd < until ? lineEnd : until;
        name = text.slice(separator.end, nameEnd).trim();
        from = nameEnd;
      }
      const call = jsonCall(text, name, begin.index, from, until, closed);
      calls.push({ ...call, end });
    }
    end = Math.max(end, afterFence(text, end));
    if (!closed && next === undefined) break;
  }
  const sectionClose = nextMatch(DEEPSEEK.callsEnd, text, end);
  if (sectionClose !== undefined && text.slice(end, sectionClose.index).trim().length === 0) end = sectionClose.end;
  return [{ shape: "deepseek", start, end, calls }];
}

/**
 * Mistral: `[TOOL_CALLS][{"name": …, "arguments": …}, …]` (a JSON array or object after the token)
 * and the v11 form `[TOOL_CALLS]NAME[ARGS]{…}` (optionally `[CALL_ID]id` before `[ARGS]`), repeated.
 */
export function readMistralCalls(text: string, readJson: (json: string, start: number, end: number, truncated: boolean) => WrittenCall[]): WrittenCallGroup[] {
  const token = MISTRAL_CALL_TOKENS.toolCalls;
  const groups: WrittenCallGroup[] = [];
  let index = text.indexOf(token);
  while (index >= 0 && groups.length < MAX_WRITTEN_CALLS) {
    let cursor = index + token.length;
    while (text[cursor] === " " || text[cursor] === "\n") cursor += 1;
    const json = text[cursor] === "[" || text[cursor] === "{" ? jsonAt(text, cursor) : undefined;
    if (json !== undefined) {
      groups.push({ shape: "mistral", start: index, end: json.end, calls: readJson(jsonTextAt(text, json), json.start, json.end, json.truncated).map((call) => ({ ...call, ...jsonRepairsAt(json) })) });
      index = text.indexOf(token, json.end);
      continue;
    }
    const calls: WrittenCall[] = [];
    let end = cursor;
    while (calls.length < MAX_WRITTEN_CALLS) {
      const args = text.indexOf(MISTRAL_CALL_TOKENS.args, cursor);
      const nextToken = text.indexOf(token, cursor);
      if (args < 0 || (nextToken >= 0 && nextToken < args)) break;
      const callId = text.indexOf(MISTRAL_CALL_TOKENS.callId, cursor);
      const name = text.slice(cursor, callId >= 0 && callId < args ? callId : args).trim();
      const value = jsonAt(text, args + MISTRAL_CALL_TOKENS.args.length);
      const until = value?.end ?? (nextToken >= 0 ? nextToken : text.length);
      calls.push({ name, args: value === undefined ? text.slice(args + MISTRAL_CALL_TOKENS.args.length, until).trim() : jsonTextAt(text, value), truncated: value?.truncated ?? false, start: cursor, end: until, ...(value === undefined ? {} : jsonRepairsAt(value)) });
      end = until;
      cursor = until;
      while (text[cursor] === " " || text[cursor] === "\n") cursor += 1;
      if (text.startsWith(token, cursor)) cursor += token.length;
      if (!/^[A-Za-z_][\w.\-]*\s*(?:\[CALL_ID\]|\[ARGS\])/.test(text.slice(cursor, cursor + 120))) break;
    }
    groups.push({ shape: "mistral", start: index, end: Math.max(end, index + token.length), calls });
    index = text.indexOf(token, Math.max(end, index + token.length));
  }
  return groups;
}
