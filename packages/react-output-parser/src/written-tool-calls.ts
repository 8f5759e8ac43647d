/**
 * `readWrittenToolCalls`: every tool call a model wrote into its message text, in every shape of
 * the one grammar (`@reins/core`'s `written-call-shapes.ts` and tool-call tags): harmony, Kimi,
 * DeepSeek, Mistral, Hermes/Qwen tags, Llama's `<|python_tag|>` and `<|python_start|>`, pythonic
 * lists, fenced and bare JSON. The ReAct parser reads the first call through it; the `createAgent`
 * tool-call rescue reads them all. Calls inside a reasoning block count only when nothing stands
 * outside it (the parser's rule).
 */
import { compactCallName, findControlTokens, LLAMA_CALL_TOKENS, normalizeLineBreaks, pythonicCallNameAt, stripControlTokens } from "@reins/core";
import { blobFrom } from "./action-blob";
import { findBalancedEnd, missingClosers, parseLooseJson } from "./json-text";
import { readPythonicCalls } from "./pythonic-calls";
import { stripReasoningBlocks } from "./reasoning-blocks";
import { readHarmony } from "./special-tokens";
import { findToolCallTags } from "./tool-call-tags";
import { isPlainObject } from "./text-lines";
import {
  jsonAt,
  jsonRepairsAt,
  jsonTextAt,
  readDeepSeekCalls,
  readHarmonyCalls,
  readKimiCalls,
  readMistralCalls,
  MAX_WRITTEN_CALLS,
  type WrittenCall,
  type WrittenCallGroup,
  type WrittenCallShape,
} from "./written-call-tokens";

export type { WrittenCall, WrittenCallGroup, WrittenCallShape } from "./written-call-tokens";

/** Options of {@link readWrittenToolCalls}. */
export interface WrittenToolCallReadOptions {
  /** The agent's tool names: bare JSON and pythonic calls count only when they name one. */
  readonly toolNames: readonly string[];
  /** Longest text handed to the JSON repair library. @default 20000 */
  readonly maxRepairChars?: number;
}

/** What {@link readWrittenToolCalls} found. */
export interface WrittenToolCalls {
  /** The calls, in the order written, each with its family. */
  readonly calls: ReadonlyArray<WrittenCall & { readonly shape: WrittenCallShape; readonly markup: string }>;
  /** Call markup was written (tokens, call tags), also when no call could be read from it. */
  readonly markup: boolean;
  /** The calls were read from inside a reasoning block (nothing stood outside it). */
  readonly fromReasoning: boolean;
  /** Leftovers of call markup stand in the text (a stray closing tag, a control token). */
  readonly junk: boolean;
  /** The text without the call markup and stray call tokens or closing tags, trimmed. */
  readonly rest: string;
}

/** Markup that only a written call has (a call tag, a call token), tested when no call was read. */
const CALL_MARKUP = /<\s*(?:tool_call|tool_calls|function_call|function_calls|tool_use|invoke)\b|<function\s*=|\[TOOL_CALLS\]|<\|python_tag\|>|<\|python_start\|>|to=functions\.|<\|tool_calls?_(?:section_)?begin\|>|<[|\uff5c]tool[\u2581_ ]calls?[\u2581_ ]begin[|\uff5c]>/i;
/** Leftovers of call markup that carry no call: closing tags, empty wrappers. */
const STRAY_CALL_TAGS = /<\/?\s*(?:tool_call|tool_calls|function_calls|function|tool_use|parameter)\s*>/gi;

function nameIsBound(name: string, toolNames: readonly string[]): boolean {
  const compact = compactCallName(stripControlTokens(name).text.replace(/^(?:functions?|tools?)\./i, "").replace(/:\d+$/, ""));
  return compact.length > 0 && toolNames.some((tool) => compactCallName(tool) === compact);
}

/** Calls from one JSON value (an object, an array of them, `{"tool_calls": […]}`). */
function callsOfJson(json: string, start: number, end: number, truncated: boolean, options: Required<WrittenToolCallReadOptions>): WrittenCall[] {
  const parsed = parseLooseJson(json, options.maxRepairChars);
  if (parsed === undefined) {
    const name = /"(?:name|tool|function|action)"\s*:\s*"([^"]{1,100})"/.exec(json)?.[1];
    return name === undefined ? [] : [{ name, args: json, truncated, start, end }];
  }
  const value = isPlainObject(parsed.value) && Array.isArray(parsed.value.tool_calls) ? parsed.value.tool_calls : parsed.value;
  const entries = Array.isArray(value) ? value : [value];
  const calls: WrittenCall[] = [];
  for (const entry of entries) {
    const unwrapped = isPlainObject(entry) && isPlainObject(entry.function) ? entry.function : entry;
    const blob = blobFrom(unwrapped, options.toolNames) ?? blobFrom(entry, options.toolNames);
    if (blob !== undefined) calls.push({ name: blob.tool, args: blob.hasInput ? blob.input : {}, truncated, start, end });
  }
  return calls;
}

/** After `<|python_tag|>` / `<|python_start|>`: JSON objects joined by `;`, or pythonic calls. */
function readPythonTagCalls(text: string, options: Required<WrittenToolCallReadOptions>): WrittenCallGroup[] {
  const groups: WrittenCallGroup[] = [];
  for (const token of [LLAMA_CALL_TOKENS.pythonTag, LLAMA_CALL_TOKENS.pythonStart]) {
    for (let index = text.indexOf(token); index >= 0 && groups.length < MAX_WRITTEN_CALLS; index = text.indexOf(token, index + token.length)) {
      let cursor = index + token.length;
      while (cursor < text.length && /\s/.test(text[cursor] as string)) cursor += 1;
      const calls: WrittenCall[] = [];
      let end = cursor;
      if (text[cursor] === "[" && pythonicCallNameAt(text, cursor) !== undefined) {
        const read = readPythonicCalls(text, (pythonicCallNameAt(text, cursor) as { start: number }).start, options.maxRepairChars, true);
        calls.push(...read.calls);
        end = read.end;
      } else if (text[cursor] === "{" || text[cursor] === "[") {
        for (let json = jsonAt(text, cursor); json !== undefined; json = jsonAt(text, end + 1)) {
          const repairs = jsonRepairsAt(json);
          calls.push(...callsOfJson(jsonTextAt(text, json), json.start, json.end, json.truncated, options).map((call) => ({ ...call, ...repairs })));
          end = json.end;
          if (json.truncated || text[end] !== ";") break;
        }
      } else {
        const read = readPythonicCalls(text, cursor, options.maxRepairChars, false);
        calls.push(...read.calls);
        end = read.end;
      }
      for (const close of [LLAMA_CALL_TOKENS.pythonEnd, "<|eom_id|>", "<|eot_id|>"]) {
        let after = end;
        while (after < text.length && /\s/.test(text[after] as string)) after += 1;
        if (text.startsWith(close, after)) end = after + close.length;
      }
      groups.push({ shape: "python_tag", start: index, end: Math.max(end, index + token.length), calls });
    }
  }
  return groups;
}

/** Pythonic lists `[name(…), …]` naming one of the agent's tools. */
function readPythonicGroups(text: string, options: Required<WrittenToolCallReadOptions>): WrittenCallGroup[] {
  const groups: WrittenCallGroup[] = [];
  for (let index = text.indexOf("["); index >= 0 && groups.length < MAX_WRITTEN_CALLS; index = text.indexOf("[", index + 1)) {
    const name = pythonicCallNameAt(text, index);
    if (name === undefined || !nameIsBound(text.slice(name.start, name.end).replace(/\.call$/, ""), options.toolNames)) continue;
    const read = readPythonicCalls(text, name.start, options.maxRepairChars, true);
    if (read.calls.length === 0) continue;
    groups.push({ shape: "pythonic", start: index, end: read.end, calls: read.calls });
    index = read.end - 1;
  }
  return groups;
}

/** Fenced and bare JSON calls (`{"name": …, "arguments"|"parameters": …}`, arrays of them) naming a tool of the agent. */
function readJsonGroups(text: string, options: Required<WrittenToolCallReadOptions>): WrittenCallGroup[] {
  const groups: WrittenCallGroup[] = [];
  let from = 0;
  for (;;) {
    const brace = text.indexOf("{", from);
    const bracket = text.indexOf("[", from);
    const start = brace < 0 ? bracket : bracket < 0 ? brace : Math.min(brace, bracket);
    if (start < 0) return groups;
    const balanced = findBalancedEnd(text, start);
    const end = balanced < 0 ? text.length : balanced;
    // A call complete but for its last brace(s) at the end of the reply (Llama 3's slip) is closed; a cut-off one stays truncated.
    const closers = balanced < 0 ? missingClosers(text.trimEnd(), start) : undefined;
    const json = closers === undefined ? text.slice(start, end) : text.slice(start).trimEnd() + closers;
    const calls = callsOfJson(json, start, end, balanced < 0 && closers === undefined, options)
      .filter((call) => nameIsBound(call.name, options.toolNames))
      .map((call) => (closers === undefined ? call : { ...call, repairs: ["closing_brace_added"] }));
    if (groups.length >= MAX_WRITTEN_CALLS) return groups;
    if (calls.length > 0) {
      const fenceOpen = /```[a-z]*\s*$/i.exec(text.slice(Math.max(0, start - 16), start));
      const fenceClose = /^\s*```/.exec(text.slice(end, end + 8));
      const fenced = fenceOpen !== null && fenceClose !== null;
      groups.push({ shape: fenced ? "fenced_json" : "json", start: fenced ? start - fenceOpen[0].length : start, end: fenced ? end + fenceClose[0].length : end, calls });
    }
    if (balanced < 0) return groups;
    from = end;
  }
}

function readGroups(text: string, options: Required<WrittenToolCallReadOptions>): WrittenCallGroup[] {
  const tagGroups: WrittenCallGroup[] = findToolCallTags(text, options).map((span) => ({
    shape: "tool_call_tag",
    start: span.start,
    end: span.end,
    calls: [{ name: span.call.tool, args: span.call.hasInput ? span.call.input : {}, truncated: span.truncated, start: span.start, end: span.end }],
  }));
  const candidates = [
    ...readHarmonyCalls(text),
    ...readKimiCalls(text),
    ...readDeepSeekCalls(text),
    ...readMistralCalls(text, (json, start, end, truncated) => callsOfJson(json, start, end, truncated, options)),
    ...readPythonTagCalls(text, options),
    ...tagGroups,
    ...readPythonicGroups(text, options),
    ...readJsonGroups(text, options),
  ];
  // Earlier and longer markup wins; a span inside one already taken is part of it.
  candidates.sort((left, right) => left.start - right.start || right.end - left.end);
  const taken: WrittenCallGroup[] = [];
  for (const group of candidates) {
    const last = taken.at(-1);
    if (last !== undefined && group.start < last.end) continue;
    taken.push(group);
  }
  return taken;
}

/** `text` without the markup strings (each removed once, in order), stray call tokens and closing tags. */
function withoutMarkup(text: string, markups: readonly string[]): string {
  let rest = "";
  let cursor = 0;
  for (const markup of markups) {
    const at = text.indexOf(markup, cursor);
    if (at < 0) continue;
    rest += text.slice(cursor, at);
    cursor = at + markup.length;
  }
  rest += text.slice(cursor);
  // Harmony messages left around the calls: their text (analysis, final), not their headers.
  const harmony = rest.includes("<|channel|>") ? readHarmony(rest) : undefined;
  if (harmony !== undefined) rest = [harmony.analysis, harmony.rest, harmony.final ?? ""].filter((part) => part.length > 0).join("\n");
  rest = stripControlTokens(rest).text.replace(STRAY_CALL_TAGS, "");
  return rest.replace(/\n{3,}/g, "\n\n").trim();
}

/**
 * Reads every tool call written in `text`.
 *
 * @param text - the model's own reply text (never tool output or user text)
 * @param options - the agent's tool names and the JSON repair limit
 * @returns the calls (arguments as written: a value, or the text for the repair to read), whether
 *   call markup was written, and the text without it
 */
export function readWrittenToolCalls(text: string, options: WrittenToolCallReadOptions): WrittenToolCalls {
  const resolved: Required<WrittenToolCallReadOptions> = { toolNames: options.toolNames, maxRepairChars: options.maxRepairChars ?? 20_000 };
  const body = normalizeLineBreaks(text);
  const reasoning = stripReasoningBlocks(body);
  let groups = readGroups(reasoning.text, resolved);
  let source = reasoning.text;
  let fromReasoning = false;
  const outsideCalls = groups.some((group) => group.calls.length > 0);
  if (!outsideCalls && reasoning.inner.trim().length > 0 && withoutMarkup(reasoning.text, []).length === 0) {
    const inner = readGroups(reasoning.inner, resolved);
    if (inner.some((group) => group.calls.length > 0)) {
      groups = inner;
      source = reasoning.inner;
      fromReasoning = true;
    }
  }
  const markups = groups.map((group) => source.slice(group.start, group.end));
  const calls = groups.flatMap((group, index) => group.calls.map((call) => ({ ...call, shape: group.shape, markup: markups[index] as string })));
  const markup = groups.length > 0 || CALL_MARKUP.test(reasoning.text);
  STRAY_CALL_TAGS.lastIndex = 0;
  const junk = STRAY_CALL_TAGS.test(body) || findControlTokens(body).length > 0;
  STRAY_CALL_TAGS.lastIndex = 0;
  return { calls, markup, fromReasoning, junk, rest: withoutMarkup(body, markups) };
}
