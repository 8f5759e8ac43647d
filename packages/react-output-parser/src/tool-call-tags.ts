/**
 * Stage 5: tool calls written as tags inside a ReAct reply (the one grammar's `TOOL_CALL_TAG_NAMES`):
 * - Hermes `<tool_call>{"name": …, "arguments": …}</tool_call>` (also `<tool_use>`, `<tools>`,
 *   `<function_call>`), with or without newlines;
 * - Qwen3-Coder `<function=NAME><parameter=KEY>value</parameter></function>`;
 * - tags with attributes: `<tool_call name="…">input</tool_call>`, Anthropic-style
 *   `<invoke name="…"><parameter name="…">value</parameter></invoke>` (in `<function_calls>`);
 * - `<action><name>…</name><input>…</input></action>`-style child tags
 *   (`TOOL_CALL_CHILD_TAG_NAMES`).
 * Several calls in one reply: the first is taken and `extra_actions_ignored` is reported (the
 * executor runs one action per step). Linear: each tag is found with `indexOf`, attributes are
 * bounded.
 */
import { TOOL_CALL_CHILD_TAG_NAMES, TOOL_CALL_NAME_ATTRIBUTES, TOOL_CALL_TAG_NAMES } from "@reins/core";
import { blobFrom, type ActionBlob } from "./action-blob";
import { findBalancedEnd, parseLooseJson } from "./json-text";
import type { Work } from "./react-step";

/** What reading a tag needs: the agent's tool names and the JSON repair limit (a `ReaderConfig` has both). */
export interface TagReadConfig {
  readonly toolNames: readonly string[];
  readonly maxRepairChars: number;
}
import { isPlainObject } from "./text-lines";

/** Call tags, longest name first so `<tool_calls>` is not read as `<tool_call>`. */
const CALL_TAG_NAMES = TOOL_CALL_TAG_NAMES.filter((name) => name !== "parameter" && name !== "tool_result" && name !== "tool_response" && name !== "action_input" && name !== "answer" && name !== "final").sort((left, right) => right.length - left.length);

/** Wrapper tags that may hold `<invoke>` or `<function=…>` calls rather than one call themselves. */
const WRAPPERS = new Set(["tool_calls", "function_calls", "tools", "tool_call", "tool_use"]);

const MAX_ATTRIBUTE_CHARS = 300;

interface OpenTag {
  readonly name: string;
  /** Text between the name and `>` (`=read_file`, ` name="search"`). */
  readonly attributes: string;
  readonly start: number;
  /** Index after `>`. */
  readonly end: number;
}

/** First letters of the call tag names (lower case), tested before anything is cut from the text. */
const FIRST_CODES = new Set(CALL_TAG_NAMES.map((name) => name.charCodeAt(0)));

/** The next opening call tag at or after `from`. */
function nextOpenTag(text: string, from: number): OpenTag | undefined {
  let index = text.indexOf("<", from);
  // The next ">" is searched again only once passed, so a text of unclosed tags is scanned once.
  let close = -2;
  while (index >= 0) {
    if (!FIRST_CODES.has(text.charCodeAt(index + 1) | 0x20)) {
      index = text.indexOf("<", index + 1);
      continue;
    }
    const window = text.slice(index + 1, index + 16).toLowerCase();
    const name = CALL_TAG_NAMES.find((candidate) => window.startsWith(candidate) && /[\s>=]/.test(window[candidate.length] ?? ""));
    if (name !== undefined) {
      if (close !== -1 && close < index) close = text.indexOf(">", index);
      if (close < 0) return undefined;
      if (close - index <= MAX_ATTRIBUTE_CHARS) {
        return { name, attributes: text.slice(index + 1 + name.length, close), start: index, end: close + 1 };
      }
    }
    index = text.indexOf("<", index + 1);
  }
  return undefined;
}

/**
 * The tag's content: up to `</name>`, or (cut off by a stop sequence) up to the next `<name` or the
 * end of the text.
 */
/** The next `<name` that opens the same tag (not `<name_input`). */
function nextSameTag(text: string, name: string, from: number): number {
  let next = text.indexOf(`<${name}`, from);
  while (next >= 0 && !/[\s>=/]/.test(text[next + name.length + 1] ?? ">")) next = text.indexOf(`<${name}`, next + 1);
  return next;
}

/** Closing tags of the wrappers a call stands in: they end a call whose own closer is missing. */
const WRAPPER_CLOSERS: readonly string[] = [...WRAPPERS].map((name) => `</${name}>`);

/** The first wrapper closing tag at or after `from` (of another tag than `name`), or -1. */
function wrapperCloseAfter(text: string, name: string, from: number): number {
  let first = -1;
  for (const closer of WRAPPER_CLOSERS) {
    if (closer === `</${name}>`) continue;
    const at = text.indexOf(closer, from);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first;
}

function contentOf(text: string, tag: OpenTag): { content: string; end: number; closed: boolean } {
  const close = text.indexOf(`</${tag.name}>`, tag.end);
  const next = nextSameTag(text, tag.name, tag.end);
  if (close >= 0 && (next < 0 || next > close || WRAPPERS.has(tag.name))) return { content: text.slice(tag.end, close), end: close + tag.name.length + 3, closed: true };
  // Its own closer missing (Qwen3-Coder's `</function>`): the wrapper's closer (`</tool_call>`) ends it, complete.
  const wrapperClose = WRAPPERS.has(tag.name) ? -1 : wrapperCloseAfter(text, tag.name, tag.end);
  if (wrapperClose >= 0 && (next < 0 || wrapperClose < next)) return { content: text.slice(tag.end, wrapperClose), end: wrapperClose, closed: true };
  const end = next < 0 ? text.length : next;
  return { content: text.slice(tag.end, end), end, closed: false };
}

/** An unclosed tag's content that stops inside its input: an unbalanced JSON object or an open `<parameter>`. */
function endsInsideInput(content: string): boolean {
  const brace = content.indexOf("{");
  if (brace >= 0 && findBalancedEnd(content, brace) < 0) return true;
  return content.lastIndexOf("<parameter") > content.lastIndexOf("</parameter>");
}

/** `name="search"`, `name='search'` or `name=search` among a tag's attributes. */
function attribute(attributes: string, names: readonly string[]): string | undefined {
  for (const name of names) {
    const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]{0,200})"|'([^']{0,200})'|([^\\s"'>]{1,200}))`, "i").exec(attributes);
    if (match !== null) return (match[1] ?? match[2] ?? match[3] ?? "").trim();
  }
  return undefined;
}

/** Python's literals, as models trained on pythonic calls write them in XML parameters. */
const PYTHON_LITERALS: Readonly<Record<string, unknown>> = Object.freeze({ True: true, False: false, None: null });

/** Marks a parameter written as Python's `None`: the field is left out (not given), as Python means it. */
const NOT_GIVEN = Symbol("not given");

/**
 * A parameter's text as a value: JSON when it reads as JSON (numbers, booleans, objects), Python's
 * `True`/`False` as booleans, `None` as not given, a single-quoted string as its text, else the text.
 */
function parameterValue(raw: string, config: TagReadConfig): unknown {
  const text = raw.trim();
  if (text in PYTHON_LITERALS) return text === "None" ? NOT_GIVEN : PYTHON_LITERALS[text];
  if (/^'[^'\n]*'$/.test(text)) return text.slice(1, -1);
  if (/^(?:[[{"]|-?\d|true$|false$|null$)/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // A Python dict or list (`{'a': True}`): the JSON repair reads single quotes and Python's literals.
      if (/^[[{]/.test(text) && /'|\b(?:True|False|None)\b/.test(text)) {
        const parsed = parseLooseJson(text, config.maxRepairChars);
        if (parsed !== undefined) return parsed.value;
      }
      return text;
    }
  }
  return text;
}

/** Where a parameter's value ends when its `</parameter>` is missing: the next parameter or the call's closer. */
const PARAMETER_ENDS: readonly string[] = ["</parameter>", "<parameter", "</function>", ...WRAPPER_CLOSERS];

function parameterEnd(content: string, from: number): { at: number; closed: boolean } {
  let first = -1;
  let closer = "";
  for (const end of PARAMETER_ENDS) {
    const at = content.indexOf(end, from);
    if (at >= 0 && (first < 0 || at < first)) {
      first = at;
      closer = end;
    }
  }
  return first < 0 ? { at: content.length, closed: false } : { at: first, closed: closer === "</parameter>" };
}

/**
 * `<parameter=KEY>v</parameter>` and `<parameter name="KEY">v</parameter>` in a call's content; a
 * missing `</parameter>` is closed by the next `<parameter` or the call's closing tag.
 */
function parametersOf(content: string, config: TagReadConfig): Record<string, unknown> | undefined {
  const result: Record<string, unknown> = {};
  let found = false;
  let from = 0;
  for (;;) {
    const open = content.indexOf("<parameter", from);
    if (open < 0) break;
    const close = content.indexOf(">", open);
    if (close < 0 || close - open > MAX_ATTRIBUTE_CHARS) break;
    const attributes = content.slice(open + "<parameter".length, close);
    const key = attributes.trimStart().startsWith("=") ? attributes.trim().slice(1).replace(/^["']|["']$/g, "").trim() : attribute(attributes, ["name"]);
    const end = parameterEnd(content, close + 1);
    const value = parameterValue(content.slice(close + 1, end.at), config);
    if (key !== undefined && key.length > 0) {
      if (value !== NOT_GIVEN) result[key] = value;
      found = true;
    }
    if (end.at >= content.length) break;
    from = end.closed ? end.at + "</parameter>".length : end.at;
  }
  return found ? result : undefined;
}

/** `<name>x</name>` (or `<name attr=…>x`) child tags of a call; the closing tag may be missing. */
function childTag(content: string, names: readonly string[]): string | undefined {
  for (const name of names) {
    let open = content.indexOf(`<${name}`);
    while (open >= 0 && !/[\s>]/.test(content[open + name.length + 1] ?? "")) open = content.indexOf(`<${name}`, open + 1);
    if (open < 0) continue;
    const start = content.indexOf(">", open);
    if (start < 0 || start - open > MAX_ATTRIBUTE_CHARS) continue;
    const close = content.indexOf(`</${name}>`, start);
    return content.slice(start + 1, close < 0 ? content.length : close);
  }
  return undefined;
}

/** A call's input written as text: JSON when it is JSON, else the text. */
function inputText(text: string, config: TagReadConfig): unknown {
  const trimmed = text.trim();
  if (trimmed[0] === "{" || trimmed[0] === "[") {
    const parsed = parseLooseJson(trimmed, config.maxRepairChars);
    if (parsed !== undefined) return parsed.value;
  }
  return trimmed;
}

/** One call from a tag, or `undefined` when the tag holds none. */
function callOf(content: string, tag: OpenTag, config: TagReadConfig): ActionBlob | undefined {
  const attributes = tag.attributes;
  // Qwen: <function=NAME>
  const named = attributes.trimStart().startsWith("=") ? attributes.trim().slice(1).replace(/^["']|["']$/g, "").trim() : attribute(attributes, TOOL_CALL_NAME_ATTRIBUTES);
  if (named !== undefined && named.length > 0) {
    const parameters = parametersOf(content, config);
    if (parameters !== undefined) return { tool: named, input: parameters, hasInput: true };
    // <action name="search"><action_input format="json">{…}: the input in its own child tag.
    const child = content.trimStart().startsWith("<") ? childTag(content, [...TOOL_CALL_CHILD_TAG_NAMES.input, `${tag.name}_input`]) : undefined;
    if (child !== undefined) return { tool: named, input: inputText(child, config), hasInput: child.trim().length > 0 };
    const body = content.trim();
    if (body.length > 0) return { tool: named, input: inputText(body, config), hasInput: true };
    // The input as an attribute: <tool_call name="search" arguments='{"query": "x"}'/>.
    const written = attribute(attributes.replace(/\/\s*$/, ""), TOOL_CALL_CHILD_TAG_NAMES.input);
    return { tool: named, input: written !== undefined ? inputText(written, config) : undefined, hasInput: written !== undefined && written.length > 0 };
  }
  const childName = childTag(content, TOOL_CALL_CHILD_TAG_NAMES.name);
  if (childName !== undefined && childName.trim().length > 0 && !childName.includes("<")) {
    const childInput = childTag(content, TOOL_CALL_CHILD_TAG_NAMES.input);
    const parameters = childInput === undefined ? parametersOf(content, config) : undefined;
    if (parameters !== undefined) return { tool: childName.trim(), input: parameters, hasInput: true };
    return { tool: childName.trim(), input: childInput !== undefined ? inputText(childInput, config) : undefined, hasInput: childInput !== undefined && childInput.trim().length > 0 };
  }
  const brace = content.indexOf("{");
  if (brace >= 0) {
    const end = findBalancedEnd(content, brace);
    const parsed = parseLooseJson(content.slice(brace, end < 0 ? content.length : end), config.maxRepairChars);
    if (parsed !== undefined) {
      const value = isPlainObject(parsed.value) && isPlainObject(parsed.value.function) ? parsed.value.function : parsed.value;
      return blobFrom(value, config.toolNames) ?? blobFrom(parsed.value, config.toolNames);
    }
  }
  return undefined;
}

/** One call written as a tag, with where it stands in the text. */
export interface ToolCallTagSpan {
  readonly call: ActionBlob;
  /** Offset of the tag's `<`. */
  readonly start: number;
  /** Offset after its closing tag (or the end of what it holds). */
  readonly end: number;
  /** The tag was never closed and the text ends inside its input (cut off). */
  readonly truncated: boolean;
}

/**
 * Every tool call written as a tag in `text`, in order (at most `limit`), with their spans.
 *
 * @param text - the model's text
 * @param config - the agent's tool names and the JSON repair limit
 * @returns the calls; a wrapper (`<tool_calls>`, `<function_calls>`) is looked into, not returned
 */
export function findToolCallTags(text: string, config: TagReadConfig, limit = 32): ToolCallTagSpan[] {
  const spans: ToolCallTagSpan[] = [];
  if (!text.includes("<")) return spans;
  let from = 0;
  // At most a few dozen tags are looked at: enough for wrappers and a few calls.
  for (let looked = 0; looked < 64 && spans.length < limit; looked += 1) {
    const tag = nextOpenTag(text, from);
    if (tag === undefined) break;
    const { content, end, closed } = contentOf(text, tag);
    const call = callOf(content, tag, config);
    if (call !== undefined) {
      const previous = spans.at(-1);
      // A call inside the previous call's span (a <function=…> in its <tool_call>) is that call.
      if (previous === undefined || tag.start >= previous.end) spans.push({ call, start: tag.start, end, truncated: !closed && end === text.length && endsInsideInput(content) });
      from = end;
      continue;
    }
    // A wrapper (<function_calls>, <tool_calls>) without a call of its own: look inside it.
    from = WRAPPERS.has(tag.name) ? tag.end : end;
  }
  return spans;
}

/**
 * The first tool call written as a tag in `text`; more calls after it are reported
 * (`extra_actions_ignored`: the executor runs one action per step).
 *
 * @returns the call, or `undefined` when the text holds no call tag with a tool in it
 */
export function findToolCallTag(work: Work, text: string): ActionBlob | undefined {
  const spans = findToolCallTags(text, work.config, 2);
  if (spans.length === 0) return undefined;
  work.repairs.add("tool_call_tag");
  if (spans.length > 1) work.repairs.add("extra_actions_ignored");
  return spans[0].truncated ? { ...spans[0].call, truncated: true } : spans[0].call;
}
