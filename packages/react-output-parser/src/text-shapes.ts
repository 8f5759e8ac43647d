/**
 * Small, linear-time readers for the shapes around the ReAct labels: reasoning tags, code fences,
 * wrapping quotes, `Tool[input]` and `tool(input)` calls, "no action" words, prompt echoes and
 * replies written without a label.
 */
import { REASONING_TAG_NAMES } from "@reins/core";

/** Opening and closing tags of reasoning blocks that are never acted on (the one grammar's, `@reins/core`). */
const REASONING_OPEN = new RegExp(`<(${REASONING_TAG_NAMES.join("|")})>`, "gi");
const REASONING_CLOSE = new RegExp(`</(${REASONING_TAG_NAMES.join("|")})>`, "gi");

/** The text with reasoning blocks removed. */
export interface ReasoningStripped {
  readonly text: string;
  /** A complete block (or a stray closing tag with reasoning before it) was removed. */
  readonly removed: boolean;
  /** An opening tag was never closed: everything after it was reasoning. */
  readonly unclosed: boolean;
}

/**
 * Removes `<think>…</think>` (and `<thinking>`, `<reasoning>`, `<reflection>`) blocks. A closing
 * tag with no opening tag before it (templates that put `<think>` in the prompt) removes what
 * precedes it; an opening tag never closed removes the rest of the text.
 */
export function stripReasoningBlocks(text: string): ReasoningStripped {
  if (!text.includes("<")) return { text, removed: false, unclosed: false };
  let result = "";
  let cursor = 0;
  let removed = false;
  let unclosed = false;
  REASONING_OPEN.lastIndex = 0;
  REASONING_CLOSE.lastIndex = 0;
  // A closing tag before any opening tag: the prompt opened the block.
  const firstOpen = REASONING_OPEN.exec(text);
  const firstClose = REASONING_CLOSE.exec(text);
  if (firstClose !== null && (firstOpen === null || firstClose.index < firstOpen.index)) {
    cursor = firstClose.index + firstClose[0].length;
    removed = true;
  }
  REASONING_OPEN.lastIndex = cursor;
  for (;;) {
    const open = REASONING_OPEN.exec(text);
    if (open === null) break;
    result += text.slice(cursor, open.index);
    REASONING_CLOSE.lastIndex = open.index + open[0].length;
    const close = REASONING_CLOSE.exec(text);
    if (close === null) {
      cursor = text.length;
      unclosed = true;
      break;
    }
    removed = true;
    cursor = close.index + close[0].length;
    REASONING_OPEN.lastIndex = cursor;
  }
  result += text.slice(cursor);
  return { text: result, removed, unclosed };
}

const NOT_A_FENCE = Object.freeze({ isFence: false, rest: "" });

/** Cheap check: the first non-space character is a backtick or a tilde. */
function mayBeFence(line: string): boolean {
  for (let index = 0; index < line.length; index += 1) {
    const code = line.charCodeAt(index);
    if (code === 32 || code === 9) continue;
    return code === 96 || code === 126;
  }
  return false;
}

/** Whether a line (trimmed) is a code-fence marker (```lang, ``, ~~~). */
export function fenceMarker(line: string): { readonly isFence: boolean; readonly rest: string } {
  if (!mayBeFence(line)) return NOT_A_FENCE;
  const trimmed = line.trim();
  if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) return { isFence: true, rest: trimmed.slice(3) };
  if (trimmed.startsWith("``") && !trimmed.startsWith("```")) return { isFence: true, rest: trimmed.slice(2) };
  return { isFence: false, rest: trimmed };
}

/** Whether a fence line is bare (no language tag and nothing else): a closing fence. */
export function isBareFence(line: string): boolean {
  if (!mayBeFence(line)) return false;
  const marker = fenceMarker(line);
  return marker.isFence && marker.rest.replace(/[`~]/g, "").trim().length === 0;
}

const NEWLINES = new Set(["\n", "\r"]);

/**
 * Removes a code fence wrapped around the whole text: the opening line (```lang) and, when present,
 * the last closing fence.
 *
 * @returns the inner text, or `undefined` when the text does not start with a fence
 */
export function unwrapCodeFence(text: string): string | undefined {
  const trimmed = text.trim();
  const marker = fenceMarker(trimmed.slice(0, trimmed.indexOf("\n") < 0 ? trimmed.length : trimmed.indexOf("\n")));
  if (!marker.isFence) return undefined;
  const newline = trimmed.indexOf("\n");
  // A one-line fence: ```code```
  if (newline < 0) {
    const inner = trimmed.replace(/^(`{2,3}|~~~)/, "").replace(/(`{2,3}|~~~)$/, "");
    return inner.trim();
  }
  let body = trimmed.slice(newline + 1);
  const lastNewline = body.lastIndexOf("\n");
  const lastLine = lastNewline < 0 ? body : body.slice(lastNewline + 1);
  if (isBareFence(lastLine)) body = lastNewline < 0 ? "" : body.slice(0, lastNewline);
  else if (body.trimEnd().endsWith("```")) body = body.trimEnd().slice(0, -3);
  return trimCharacters(body, NEWLINES);
}

const QUOTE_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['"', '"'],
  ["'", "'"],
  ["\u201c", "\u201d"],
  ["\u2018", "\u2019"],
  ["`", "`"],
];

/**
 * Removes one pair of quotes wrapping the whole text when the pair really wraps it: the same quote
 * does not occur unescaped inside. A lone opening quote on a one-line text with no closing quote
 * is removed too (an artifact); a lone closing quote is kept (it may belong to the value, e.g. SQL).
 *
 * @returns the text and the repair applied, if any
 */
export function stripWrappingQuotes(text: string): { text: string; repair?: string } {
  if (text.length < 1) return { text };
  for (const [open, close] of QUOTE_PAIRS) {
    if (!text.startsWith(open)) continue;
    if (text.length >= 2 && text.endsWith(close)) {
      const inner = text.slice(open.length, text.length - close.length);
      if (!containsUnescaped(inner, open) && !containsUnescaped(inner, close)) return { text: inner.trim(), repair: "wrapping_quotes_removed" };
      return { text };
    }
    if (open !== "`" && !text.includes("\n") && !containsUnescaped(text.slice(open.length), close)) {
      return { text: text.slice(open.length).trim(), repair: "unbalanced_quote_removed" };
    }
    return { text };
  }
  return { text };
}

function containsUnescaped(text: string, quoteCharacter: string): boolean {
  let from = 0;
  for (;;) {
    const index = text.indexOf(quoteCharacter, from);
    if (index < 0) return false;
    if (index === 0 || text[index - 1] !== "\\") return true;
    from = index + 1;
  }
}

/** A call written inline on the Action line: `Tool[input]` (ReAct paper) or `tool(input)`. */
export interface InlineCall {
  readonly name: string;
  readonly input: string;
  readonly style: "bracket" | "parenthesis";
}

/**
 * Reads `Tool[input]` or `tool(input)`: the name runs to the first bracket, the input to the last
 * matching closing bracket at the end of the text (inner brackets are kept).
 */
export function readInlineCall(text: string): InlineCall | undefined {
  const trimmed = text.trim();
  for (const [open, close, style] of [["[", "]", "bracket"], ["(", ")", "parenthesis"]] as const) {
    const openIndex = trimmed.indexOf(open);
    if (openIndex <= 0 || !trimmed.endsWith(close)) continue;
    const name = trimmed.slice(0, openIndex).trim();
    if (name.length === 0 || name.length > 100) continue;
    return { name, input: trimmed.slice(openIndex + 1, trimmed.length - 1).trim(), style };
  }
  return undefined;
}

const NO_OP_DECORATION = new Set(["*", "`", '"', "'", "_", ".", " ", "\t"]);

/** Removes the given characters from both ends (a loop, not an end-anchored regex). */
export function trimCharacters(text: string, characters: ReadonlySet<string>): string {
  let start = 0;
  let end = text.length;
  while (start < end && characters.has(text[start])) start += 1;
  while (end > start && characters.has(text[end - 1])) end -= 1;
  return text.slice(start, end);
}

const NO_OP_PREFIXES = ["none", "n/a", "no tool", "no action", "no tools", "not applicable", "nothing"];
const NO_OP_ACTIONS = new Set(["-", "--", "\u2013", "\u2014", "\u2026", "...", "nil", "empty", "skip", "无", "なし",  "n/a", "na", "no action", "no tool", "nothing", "null", "no", "no tool needed", "no action needed", "not applicable", "no_action", "no-op", "noop"]);

/**
 * Whether an Action value means "no action" (`None`, `N/A`, `-`, `—`, `nothing`, `None: reason`,
 * `None (no tool needed)`).
 */
export function isNoOpAction(written: string): boolean {
  if (written.length > 200) return false;
  const cleaned = trimCharacters(written, NO_OP_DECORATION).toLowerCase();
  if (NO_OP_ACTIONS.has(cleaned)) return true;
  for (const prefix of NO_OP_PREFIXES) {
    if (cleaned.startsWith(prefix) && !/[\p{L}\p{N}_]/u.test(cleaned[prefix.length] ?? "")) return true;
  }
  for (const separator of [":", "(", " -", ",", " \u2014"]) {
    const index = cleaned.indexOf(separator);
    if (index > 0 && NO_OP_ACTIONS.has(cleaned.slice(0, index).trim())) return true;
  }
  return false;
}

const PROMPT_ECHO_ACTION_PREFIXES = ["one of", "should be one of", "the action to take", "the name of the tool", "name of the tool", "the tool to use", "tool name", "<tool", "[tool", "{tool"];

const PROMPT_ECHO_FIRST_CHARACTERS = new Set(["t", "T", "w", "W", "<", "i", "I"]);
const PROMPT_ECHO_INPUTS = new Set(["the input to the action", "what to send to the tool", "the input for the tool", "<input>", "<the input for the tool>", "the action input", "input to the action", "<tool input>"]);

/** Lengths a placeholder can have (with one trailing period or space): a cheap first filter. */
const PROMPT_ECHO_LENGTHS = new Set([...PROMPT_ECHO_INPUTS].flatMap((phrase) => [phrase.length, phrase.length + 1]));

/** Whether an Action Input is a template placeholder from the prompt ("the input to the action"). */
export function isPromptEchoInput(text: string): boolean {
  if (!PROMPT_ECHO_LENGTHS.has(text.length) || !PROMPT_ECHO_FIRST_CHARACTERS.has(text[0])) return false;
  return PROMPT_ECHO_INPUTS.has(text.trim().toLowerCase().replace(/[.\s]+$/, ""));
}

/** Whether an Action value is a template placeholder from the prompt ("one of [search]", "the action to take"). */
export function isPromptEchoAction(written: string): boolean {
  if (written.length > 300) return false;
  const lower = written.trim().toLowerCase();
  if (lower.includes("{tool_names}")) return true;
  return PROMPT_ECHO_ACTION_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

const NO_TOOL_NEEDED_PHRASES = [
  "no need to",
  "doesn't require",
  "does not require",
  "don't require",
  "do not require",
  "no lookup",
  "without looking",
  "already know",
  "know the answer",
  "from memory",
  "common knowledge",
  "general knowledge",
  "just a greeting",
  "simple greeting",
  "small talk",
  "i can reply",
  "i can respond",
  "know the final answer",
  "i can now answer",
  "i can answer without",
  "do i need to use a tool? no",
  "no tool is needed",
  "no tool needed",
  "no tools are needed",
  "no tools needed",
  "doesn't need any",
  "doesn't need a",
  "does not need any",
  "does not need a",
  "don't need any",
  "don't need a",
  "do not need any",
  "do not need a",
  "don't need to use",
  "do not need to use",
  "no need to use",
  "no need for a tool",
  "no need to look",
  "without using a tool",
  "without any tool",
  "without a tool",
  "answer directly",
  "reply directly",
  "respond directly",
  "i'll just",
  "i will just",
  "i can just",
  // The same said in other languages models answer in (the phrase, lower-cased).
  "kein werkzeug",
  "keine werkzeuge",
  "kein tool",
  "keine tools",
  "ohne werkzeug",
  "ohne tool",
  "direkt antworten",
  "pas besoin d'outil",
  "pas besoin d'un outil",
  "aucun outil",
  "sans outil",
  "répondre directement",
  "ninguna herramienta",
  "sin herramienta",
  "sin usar herramientas",
  "responder directamente",
  "nenhuma ferramenta",
  "sem ferramenta",
  "nessuno strumento",
  "senza strumenti",
  "不需要工具",
  "不需要使用工具",
  "不需要调用工具",
  "无需工具",
  "无需使用工具",
  "无需调用工具",
  "不用工具",
  "直接回答",
  "直接回复",
  "ツールは不要",
  "ツールは必要ありません",
  "ツールを使う必要はありません",
  "ツールを使う必要はない",
  "инструмент не нужен",
  "инструменты не нужны",
  "без инструментов",
  "도구가 필요 없",
  "도구 없이",
];

/** Whether a Thought says no tool is needed (then the text after it is the reply). */
export function saysNoToolNeeded(thought: string): boolean {
  const lower = thought.slice(0, HEURISTIC_WINDOW_CHARS).toLowerCase().replace(/\u2019/g, "'");
  return NO_TOOL_NEEDED_PHRASES.some((phrase) => lower.includes(phrase));
}

const PLAN_PREFIXES = ["plan:", "step 1", "steps:", "next steps", "next step:", "here is my plan", "here's my plan", "here is the plan", "the plan is", "action plan", "plan of action", "first,", "first i", "to answer this", "to do this", "next, i", "next i", "my plan"];
const PLAN_SUBJECTS = ["i will ", "i'll ", "i need to ", "i should ", "i must ", "i am going to ", "i'm going to ", "let me ", "we need to ", "we should ", "i have to "];
/** Heuristics read the start of a reply only: a plan or a "no tool needed" says so early. */
const HEURISTIC_WINDOW_CHARS = 2_000;
const PLAN_VERBS = ["use", "call", "search", "look", "check", "find", "fetch", "query", "run", "get", "calculate", "compute", "retrieve", "browse", "open", "invoke", "first", "start by"];
const PLAN_PHRASES = PLAN_SUBJECTS.flatMap((subject) => PLAN_VERBS.map((verb) => `${subject}${verb}`));

/** Whether unlabelled text reads as the model's plan rather than a reply to the user. */
export function looksLikePlan(text: string): boolean {
  const lower = text.slice(0, HEURISTIC_WINDOW_CHARS).trim().toLowerCase().replace(/\u2019/g, "'");
  return PLAN_PREFIXES.some((prefix) => lower.startsWith(prefix)) || PLAN_PHRASES.some((phrase) => lower.includes(phrase));
}

/** Words a sentence does not end on: text ending with one was cut off. */
const DANGLING_WORDS = new Set(["to", "the", "a", "an", "of", "and", "or", "with", "for", "in", "on", "at", "by", "from", "that", "is", "are", "was", "will", "would", "should", "need", "my", "your", "their", "this", "these", "if", "because", "but", "so", "then", "as", "into", "than"]);

/**
 * Whether text stops mid-sentence: it ends with a comma, dash, colon or opening bracket, or with a
 * word no sentence ends on ("… I will first need to"). A reply ending in a name or a number
 * ("The capital is Paris") is complete.
 */
export function looksTruncated(text: string): boolean {
  const trimmed = text.trimEnd();
  if (trimmed.length === 0) return false;
  const last = trimmed[trimmed.length - 1];
  if (last === "," || last === "-" || last === ":" || last === "(" || last === "\uff0c") return true;
  let start = trimmed.length;
  while (start > 0 && start > trimmed.length - 20 && /[A-Za-z]/.test(trimmed[start - 1])) start -= 1;
  return DANGLING_WORDS.has(trimmed.slice(start).toLowerCase());
}

/**
 * Whether a parsed input is a tool's argument schema echoed back (`{type: "object", properties}`,
 * or every argument given as `{type, description}`) rather than argument values.
 */
export function isSchemaEcho(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  if (record.type === "object" && (typeof record.properties === "object" || Array.isArray(record.required))) return true;
  if (isSchemaDocument(record)) return true;
  const entries = Object.entries(record);
  if (entries.length === 0) return false;
  return entries.every(([, field]) => isSchemaField(field));
}

/** Keys of a JSON-schema document besides `properties` (a schema without `"type": "object"`). */
const SCHEMA_DOCUMENT_KEYS = new Set(["type", "title", "description", "required", "additionalProperties", "$schema", "definitions", "$defs"]);

/**
 * A JSON-schema object document echoed without `"type": "object"`: `{"properties": {...}}` where
 * every property is a schema field, and any other key is a schema keyword (`required`, `title`, …).
 * Real arguments named `properties` (`{"database_id": …, "properties": {"Status": "Done"}}`) hold
 * values, not schema fields, so they are not mistaken for it.
 */
function isSchemaDocument(record: Record<string, unknown>): boolean {
  const properties = record.properties;
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return false;
  if (!Object.keys(record).every((key) => key === "properties" || SCHEMA_DOCUMENT_KEYS.has(key))) return false;
  const fields = Object.values(properties);
  if (fields.length === 0) return Array.isArray(record.required) || typeof record.type === "string";
  return fields.every((field) => isSchemaField(field));
}

const SCHEMA_KEYWORDS = new Set(["type", "description", "title", "default", "enum", "items", "properties", "required", "examples", "format", "minimum", "maximum", "anyOf", "oneOf"]);
const SCHEMA_TYPE_NAMES = new Set(["string", "str", "integer", "int", "number", "float", "boolean", "bool", "object", "dict", "array", "list", "null", "any"]);

function isSchemaField(field: unknown): boolean {
  if (typeof field !== "object" || field === null || Array.isArray(field)) return false;
  const keys = Object.keys(field);
  if (keys.length === 0 || !keys.every((key) => SCHEMA_KEYWORDS.has(key))) return false;
  const type = (field as Record<string, unknown>).type;
  const typeIsName = typeof type === "string" && SCHEMA_TYPE_NAMES.has(type.toLowerCase());
  return typeIsName || (keys.includes("description") && keys.includes("type"));
}

/**
 * Reads Python-style keyword arguments (`city="Paris", days=3`) into an object, or `undefined` when
 * the text is not of that shape. Values are JSON-parsed when they can be (numbers, booleans, quoted
 * strings), else kept as text.
 */
export function parseKeywordArguments(text: string): Record<string, unknown> | undefined {
  if (text.length > 10_000 || !/^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(text)) return undefined;
  const result: Record<string, unknown> = {};
  const parts: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (const character of text) {
    if (quote !== undefined) {
      current += character;
      if (character === quote) quote = undefined;
      continue;
    }
    if (character === '"' || character === "'") {
      quote = character;
      current += character;
      continue;
    }
    if (character === ",") {
      parts.push(current);
      current = "";
      continue;
    }
    current += character;
  }
  parts.push(current);
  for (const part of parts) {
    const equals = part.indexOf("=");
    if (equals <= 0) return undefined;
    const key = part.slice(0, equals).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return undefined;
    const raw = part.slice(equals + 1).trim();
    result[key] = keywordValue(raw);
  }
  return result;
}

function keywordValue(raw: string): unknown {
  if (raw === "True") return true;
  if (raw === "False") return false;
  if (raw === "None") return null;
  if (raw.length >= 2 && raw[0] === "'" && raw[raw.length - 1] === "'") return raw.slice(1, -1);
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
