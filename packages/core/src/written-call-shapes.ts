/**
 * Tool calls that models write into their message text, declared once (part of the one grammar,
 * next to `react-grammar.ts`). The ReAct parser and the `createAgent` tool-call rescue read these
 * shapes through `@reins/react-output-parser`'s `readWrittenToolCalls`; `neutralizeUntrustedText`
 * neutralises them in tool output through {@link findWrittenCallShapes}. The formats follow the
 * chat templates and vLLM's tool parsers of each family:
 *
 * - Hermes / Qwen 2.5–3 `<tool_call>{"name": …, "arguments": …}</tool_call>` and Qwen3-Coder
 *   `<function=NAME><parameter=KEY>…</parameter></function>`: the tags of `TOOL_CALL_TAG_NAMES`;
 * - Llama 3.x: a JSON object `{"name": …, "parameters": …}` (the action-blob keys), after
 *   `<|python_tag|>` or alone, several joined by `;`; Llama 4: `<|python_start|>…<|python_end|>`
 *   around pythonic calls;
 * - pythonic calls (Llama 3.2 / 4, vLLM's `pythonic` parser): `[get_weather(city="Oslo"), …]`;
 * - Mistral: `[TOOL_CALLS][{"name": …, "arguments": …}]`, and the v11 form
 *   `[TOOL_CALLS]NAME[ARGS]{…}` (optionally `[CALL_ID]id` before `[ARGS]`);
 * - DeepSeek V3 `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>`
 *   and V3.1 `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>` (full-width bars, `▁` for spaces);
 * - Kimi K2 `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|>`;
 * - gpt-oss harmony `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`
 *   (`HARMONY_RECIPIENT_PREFIX`);
 * - fenced JSON (```` ```json {"name": …, "arguments": …} ``` ````) and JSON arrays of such objects.
 */
import { NEUTRALIZED_CLOSE, NEUTRALIZED_OPEN, NEUTRALIZED_TAG_OPEN } from "./neutralized-marks";
import { nextIndexFinder, type Edit } from "./untrusted-text-view";

/** Mistral's call tokens, written in square brackets (`[TOOL_CALLS]`, v11 `[ARGS]`, `[CALL_ID]`). */
export const MISTRAL_CALL_TOKENS = Object.freeze({ toolCalls: "[TOOL_CALLS]", args: "[ARGS]", callId: "[CALL_ID]" });

/** DeepSeek V3 / V3.1 / R1 call tokens (full-width bars `｜`, `▁` for spaces). */
export const DEEPSEEK_CALL_TOKENS = Object.freeze({
  callsBegin: "<\uff5ctool\u2581calls\u2581begin\uff5c>",
  callsEnd: "<\uff5ctool\u2581calls\u2581end\uff5c>",
  callBegin: "<\uff5ctool\u2581call\u2581begin\uff5c>",
  callEnd: "<\uff5ctool\u2581call\u2581end\uff5c>",
  separator: "<\uff5ctool\u2581sep\uff5c>",
});

/** Kimi K2's call section tokens. */
export const KIMI_CALL_TOKENS = Object.freeze({
  sectionBegin: "<|tool_calls_section_begin|>",
  sectionEnd: "<|tool_calls_section_end|>",
  callBegin: "<|tool_call_begin|>",
  argumentBegin: "<|tool_call_argument_begin|>",
  callEnd: "<|tool_call_end|>",
});

/** Llama 3.x / 4 tokens around written calls. */
export const LLAMA_CALL_TOKENS = Object.freeze({ pythonTag: "<|python_tag|>", pythonStart: "<|python_start|>", pythonEnd: "<|python_end|>" });

/**
 * Control tokens of chat templates other than `<|name|>` that models leave glued to a tool name or
 * an input: DeepSeek's `<｜name｜>` (full-width bars), Gemma's `<end_of_turn>`, `<start_of_turn>`,
 * `<eos>`, `<bos>`, and Mistral's square-bracket tokens (`[INST]`, `[/INST]`, `[TOOL_CALLS]`, …).
 */
export const CONTROL_TOKEN_WORDS = Object.freeze({
  angle: Object.freeze(["end_of_turn", "start_of_turn", "eos", "bos", "end_of_text", "endoftext", "eot"]),
  square: Object.freeze(["INST", "/INST", "TOOL_CALLS", "ARGS", "CALL_ID", "TOOL_RESULTS", "/TOOL_RESULTS", "AVAILABLE_TOOLS", "/AVAILABLE_TOOLS", "SYSTEM_PROMPT", "/SYSTEM_PROMPT", "THINK", "/THINK"]),
});

/** A control token found in a text: `[start, end)`. */
export interface ControlTokenSpan {
  readonly start: number;
  readonly end: number;
}

const MAX_TOKEN_CHARS = 48;
const TOKEN_NAME = /^[A-Za-z0-9_.:\-\u2581]+$/;

/**
 * Every control token in `text`: `<|name|>`, `<｜name｜>`, the angle words and the square words of
 * {@link CONTROL_TOKEN_WORDS}, and `</s>`/`<s>`. Linear: one pass over `<` and `[`.
 */
export function findControlTokens(text: string): ControlTokenSpan[] {
  const spans: ControlTokenSpan[] = [];
  // One finder per closer: each search resumes where the last ended, so runs of openers stay linear.
  const nextBarClose = nextIndexFinder(text, "|>");
  const nextWideBarClose = nextIndexFinder(text, "\uff5c>");
  const nextAngleClose = nextIndexFinder(text, ">");
  const nextSquareClose = nextIndexFinder(text, "]");
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (character === "<") {
      const bar = text[index + 1];
      if (bar === "|" || bar === "\uff5c") {
        const close = (bar === "|" ? nextBarClose : nextWideBarClose)(index + 2);
        if (close > index + 1 && close - index <= MAX_TOKEN_CHARS && TOKEN_NAME.test(text.slice(index + 2, close))) {
          spans.push({ start: index, end: close + 2 });
          index = close + 1;
        }
        continue;
      }
      const close = nextAngleClose(index + 1);
      if (close < 0 || close - index > 16) continue;
      const word = text.slice(index + 1, close).toLowerCase();
      if (word === "s" || word === "/s" || CONTROL_TOKEN_WORDS.angle.includes(word)) {
        spans.push({ start: index, end: close + 1 });
        index = close;
      }
    } else if (character === "[") {
      const close = nextSquareClose(index + 1);
      if (close < 0 || close - index > 20) continue;
      if (CONTROL_TOKEN_WORDS.square.includes(text.slice(index + 1, close))) {
        spans.push({ start: index, end: close + 1 });
        index = close;
      }
    }
  }
  return spans;
}

/**
 * `text` without its control tokens ({@link findControlTokens}).
 *
 * @returns the text and whether anything was removed
 */
export function stripControlTokens(text: string): { text: string; removed: boolean } {
  if (!text.includes("<") && !text.includes("[")) return { text, removed: false };
  const spans = findControlTokens(text);
  if (spans.length === 0) return { text, removed: false };
  let result = "";
  let cursor = 0;
  for (const span of spans) {
    result += text.slice(cursor, span.start);
    cursor = span.end;
  }
  return { text: result + text.slice(cursor), removed: true };
}

function isIdentifierStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || (code >= 48 && code <= 57) || code === 46 || code === 45;
}

/**
 * The pythonic call list (`[get_weather(city="Oslo"), search(q="x")]`) starting at `index` (a `[`):
 * the span of the first name, or `undefined`. The name may be dotted (`functions.search`).
 */
export function pythonicCallNameAt(text: string, index: number): { start: number; end: number } | undefined {
  let cursor = index + 1;
  while (text[cursor] === " " || text[cursor] === "\n" || text[cursor] === "\t") cursor += 1;
  if (!isIdentifierStart(text.charCodeAt(cursor))) return undefined;
  const start = cursor;
  while (cursor < text.length && cursor - start < 100 && isIdentifierPart(text.charCodeAt(cursor))) cursor += 1;
  const end = cursor;
  while (text[cursor] === " ") cursor += 1;
  return text[cursor] === "(" ? { start, end } : undefined;
}

/**
 * Finds the written-call shapes of this module in the decoded view of untrusted text and pushes the
 * edits that make them unreadable: `‹` for the `<` of a DeepSeek token (`<｜tool▁call▁begin｜>`,
 * which the view reads as `<|…|>` with `▁`), quotes inside Mistral's tokens (`[«TOOL_CALLS»]`,
 * `[«ARGS»]`) and around the first name of a pythonic call list (`[«get_weather»(city="x")]`).
 * (Kimi's, Llama's and harmony's `<|name|>` tokens, the tags and the JSON blobs are neutralised by
 * the other finders.) Linear in the view's length.
 */
export function findWrittenCallShapes(view: string, edits: Edit[], found: string[]): void {
  if (view.includes("\u2581")) {
    const nextClose = nextIndexFinder(view, "|>");
    let index = view.indexOf("<|");
    while (index >= 0) {
      const close = nextClose(index + 2);
      if (close < 0) break;
      const name = view.slice(index + 2, close);
      if (close - index <= MAX_TOKEN_CHARS && name.includes("\u2581") && TOKEN_NAME.test(name)) {
        edits.push({ at: index, replace: true, text: NEUTRALIZED_TAG_OPEN });
        found.push(`token <|${name}|>`);
      }
      index = view.indexOf("<|", index + 2);
    }
  }
  if (!view.includes("[")) return;
  for (let index = view.indexOf("["); index >= 0; index = view.indexOf("[", index + 1)) {
    for (const token of [MISTRAL_CALL_TOKENS.toolCalls, MISTRAL_CALL_TOKENS.args, MISTRAL_CALL_TOKENS.callId]) {
      if (view.startsWith(token, index)) {
        edits.push({ at: index + 1, replace: false, text: NEUTRALIZED_OPEN });
        edits.push({ at: index + token.length - 1, replace: false, text: NEUTRALIZED_CLOSE });
        found.push(`token ${token}`);
      }
    }
    const name = pythonicCallNameAt(view, index);
    if (name !== undefined) {
      edits.push({ at: name.start, replace: false, text: NEUTRALIZED_OPEN });
      edits.push({ at: name.end, replace: false, text: NEUTRALIZED_CLOSE });
      found.push(`call ${view.slice(name.start, name.end)}`);
    }
  }
}
