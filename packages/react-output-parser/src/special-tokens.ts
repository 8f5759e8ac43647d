/**
 * Stage 0 of the reader: chat-template tokens models leave in their text.
 * - gpt-oss "harmony" messages (`<|start|>assistant<|channel|>analysis<|message|>…<|end|>`,
 *   `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`,
 *   `<|channel|>final<|message|>…<|return|>`), and the same with the tokens dropped by a server
 *   (`analysis…assistantfinal…`, `assistantcommentary to=functions.NAME json{…}`), after the
 *   harmony format spec (OpenAI, "OpenAI Harmony Response Format", 2025);
 * - leftover end tokens of other families in names and inputs (`<|eot_id|>`, `<|eom_id|>`,
 *   `<|im_end|>`, `<|endoftext|>`, `</s>`, DeepSeek's `<｜end▁of▁sentence｜>`, Gemma's
 *   `<end_of_turn>`, Mistral's `[/INST]`: core's `findControlTokens`), removed;
 * - a partial stop label at the very end (`Observ`, `Obs`, `Observation` without its colon), the
 *   start of the `\nObservation:` stop sequence the model was cut at, removed.
 * Every token shape here is declared in `@reins/core`'s grammar (`SPECIAL_TOKEN_PATTERN`,
 * `HARMONY_CHANNELS`, `FUSED_HARMONY_MARKERS`), which the neutraliser is derived from.
 */
import { FUSED_HARMONY_MARKERS, HARMONY_RECIPIENT_PREFIX, stripControlTokens, type ReActLabelSet } from "@reins/core";

/** A harmony reply read into its parts. */
export interface HarmonyReply {
  /** The analysis channel's text (the model's reasoning). */
  readonly analysis: string;
  /** The first tool call: `to=functions.NAME` and the message after it. */
  readonly call?: { readonly name: string; readonly input: string };
  /** More calls after the first (reported, not run: one action per step). */
  readonly extraCalls: number;
  /** The final channel's text. */
  readonly final?: string;
  /** Text of messages of no known channel (read as an ordinary reply). */
  readonly rest: string;
}

/** `<|name|>` tokens: letters, digits and `_` between `<|` and `|>`, at most 40 characters. */
const TOKEN = /<\|([A-Za-z0-9_]{1,40})\|>/g;

/** Whether the text holds a harmony structure token. */
function hasHarmonyTokens(text: string): boolean {
  return text.includes("<|channel|>") || text.includes("<|message|>");
}

/** Where `to=functions.NAME` names a tool, and the name. */
function recipientOf(header: string): string | undefined {
  const index = header.indexOf(HARMONY_RECIPIENT_PREFIX);
  if (index < 0) return undefined;
  let end = index + HARMONY_RECIPIENT_PREFIX.length;
  while (end < header.length && /[A-Za-z0-9_.\-]/.test(header[end])) end += 1;
  const name = header.slice(index + HARMONY_RECIPIENT_PREFIX.length, end);
  return name.length > 0 ? name : undefined;
}

/**
 * Reads a harmony reply: messages split at `<|start|>`/`<|end|>`/`<|call|>`/`<|return|>`, each a
 * header (`assistant<|channel|>commentary to=functions.x <|constrain|>json`) and the text after
 * `<|message|>`. One pass over the tokens.
 *
 * @returns the parts, or `undefined` when the text has no harmony tokens
 */
export function readHarmony(text: string): HarmonyReply | undefined {
  if (!hasHarmonyTokens(text)) return readFusedHarmony(text);
  const analysis: string[] = [];
  const rest: string[] = [];
  let call: { name: string; input: string } | undefined;
  let extraCalls = 0;
  let final: string | undefined;
  let header = "";
  let body: string | undefined;
  let cursor = 0;
  const close = (): void => {
    if (body === undefined) {
      if (header.trim().length > 0 && !/^\s*(assistant|user|system|developer)?\s*$/.test(header)) rest.push(header.trim());
      header = "";
      return;
    }
    const channel = /<\|channel\|>\s*([a-z]+)/.exec(header)?.[1] ?? "";
    const recipient = recipientOf(header);
    if (recipient !== undefined) {
      if (call === undefined) call = { name: recipient, input: body.trim() };
      else extraCalls += 1;
    } else if (channel === "analysis") analysis.push(body.trim());
    else if (channel === "final") final = final === undefined ? body.trim() : `${final}\n${body.trim()}`;
    else rest.push(body.trim());
    header = "";
    body = undefined;
  };
  TOKEN.lastIndex = 0;
  for (;;) {
    const token = TOKEN.exec(text);
    const end = token === null ? text.length : token.index;
    const chunk = text.slice(cursor, end);
    if (body !== undefined) body += chunk;
    else header += chunk;
    if (token === null) break;
    cursor = TOKEN.lastIndex;
    const name = token[1];
    if (name === "message") {
      if (body === undefined) body = "";
      else body += token[0];
    } else if (name === "start" || name === "end" || name === "call" || name === "return") close();
    else if (body === undefined) header += token[0];
    // Other tokens inside a message (a stray <|eot_id|>) are dropped.
  }
  close();
  return { analysis: analysis.filter((part) => part.length > 0).join("\n"), call, extraCalls, final, rest: rest.filter((part) => part.length > 0).join("\n") };
}

/**
 * The same messages with the tokens dropped by the server: `analysis…assistantfinal…` or
 * `analysis…assistantcommentary to=functions.NAME json{…}` (the text must start with `analysis`).
 */
function readFusedHarmony(text: string): HarmonyReply | undefined {
  let start = 0;
  while (start < text.length && (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 10 || text.charCodeAt(start) === 9)) start += 1;
  if (!text.startsWith(FUSED_HARMONY_MARKERS.analysis, start)) return undefined;
  const trimmed = text.slice(start);
  const finalAt = trimmed.indexOf(FUSED_HARMONY_MARKERS.final);
  const callAt = trimmed.indexOf(FUSED_HARMONY_MARKERS.commentary);
  if (finalAt < 0 && callAt < 0) return undefined;
  const first = finalAt < 0 ? callAt : callAt < 0 ? finalAt : Math.min(finalAt, callAt);
  const analysis = trimmed.slice(FUSED_HARMONY_MARKERS.analysis.length, first).trim();
  if (first === finalAt) return { analysis, final: trimmed.slice(finalAt + FUSED_HARMONY_MARKERS.final.length).trim(), extraCalls: 0, rest: "" };
  const after = trimmed.slice(callAt + FUSED_HARMONY_MARKERS.commentary.length);
  const name = recipientOf(after);
  if (name === undefined) return undefined;
  let input = after.slice(after.indexOf(name) + name.length).trimStart();
  if (input.startsWith("json")) input = input.slice(4);
  const next = input.indexOf(FUSED_HARMONY_MARKERS.commentary);
  return { analysis, call: { name, input: (next < 0 ? input : input.slice(0, next)).trim() }, extraCalls: next < 0 ? 0 : 1, rest: "" };
}

/** End-of-turn tokens of other template families, removed wherever they stand. */
const LEFTOVER_TOKENS = ["</s>", "<s>"];

/**
 * Removes leftover special tokens (`<|eot_id|>`, `<|im_end|>`, `</s>`…) from the text.
 *
 * @returns the text and whether anything was removed
 */
export function removeLeftoverTokens(text: string): { text: string; removed: boolean } {
  if (!text.includes("<") && !text.includes("[")) return { text, removed: false };
  let result = text.includes("<|") ? text.replace(TOKEN, "") : text;
  for (const token of LEFTOVER_TOKENS) if (result.includes(token)) result = result.split(token).join("");
  // The other control tokens of the grammar: DeepSeek's <｜…｜>, Gemma's <end_of_turn>, Mistral's [INST].
  result = stripControlTokens(result).text;
  return { text: result, removed: result.length !== text.length };
}

/**
 * Cuts a partial stop label left on the last line (`Observ`, `Obs`, `Observation` with no colon):
 * the start of the `Observation:` stop sequence. At least three letters, alone on its line.
 *
 * @returns the text without that line, or `undefined` when the last line is no such prefix
 */
export function cutPartialStopLabel(text: string, labels: ReActLabelSet): string | undefined {
  let end = text.length;
  while (end > 0 && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 10 || text.charCodeAt(end - 1) === 9)) end -= 1;
  const lineStart = text.lastIndexOf("\n", end - 1) + 1;
  if (lineStart === 0 || end - lineStart > 48 || end - lineStart < 3) return undefined;
  const last = text.slice(lineStart, end).trim().replace(/^[*_#>]+/, "").toLowerCase();
  if (last.length < 3 || last.length > 40) return undefined;
  for (const word of labels.observation) if (word.startsWith(last)) return text.slice(0, lineStart);
  return undefined;
}
