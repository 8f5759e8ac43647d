/**
 * `rescueToolCalls`: what a native tool-calling agent should make of one assistant reply. Native
 * `tool_calls` and `invalid_tool_calls` are repaired ({@link repairToolCall}); when none is usable,
 * the calls the model wrote into its text are read ({@link readWrittenToolCalls}) and repaired the
 * same way. What cannot run safely becomes a refusal with a correction. The `createAgent`
 * middleware applies the result to the `AIMessage`; `reins-parse` prints it for logged replies.
 */
import { compactCallName } from "@reins/core";
import { missingClosers } from "./json-text";
import { TOOL_CALL_MESSAGES } from "./tool-call-messages";
import { repairToolCall, type RepairableTool, type ToolCallRefusal, type ToolCallRepairOptions } from "./tool-call-repair";
import { readWrittenToolCalls, type WrittenCallShape } from "./written-tool-calls";
import { isUntrustedCall } from "./untrusted-calls";

/** One assistant reply as the rescue reads it (an `AIMessage`, or an OpenAI chat `message`). */
export interface ReplyToRescue {
  /** The reply's text (text blocks joined). */
  readonly content: string;
  readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly args: unknown; readonly id?: string }>;
  /** LangChain's `invalid_tool_calls`: calls the provider returned but could not parse (`args` a string). */
  readonly invalidToolCalls?: ReadonlyArray<{ readonly name?: string; readonly args?: string; readonly id?: string }>;
  /** The provider's finish reason; `length` (or `max_tokens`) means the reply was cut off. */
  readonly finishReason?: string;
}

/** Options of {@link rescueToolCalls}. */
export interface ToolCallRescueOptions extends ToolCallRepairOptions {
  /** Texts of the tool results of the same run: a written call that stands in one is refused. @default [] */
  readonly toolResults?: readonly string[];
  /**
   * Keys of the calls seen in the run's untrusted text ({@link readUntrustedCalls}): a call the
   * model writes as text (or an `invalid_tool_calls` entry) that repeats one, by value, is refused
   * (`untrusted_call`). Native `tool_calls` are the provider's structured output and are not checked.
   * @default none
   */
  readonly untrustedCalls?: ReadonlySet<string>;
  /** Native calls passed through unchanged (createAgent's structured-output tools). @default none */
  readonly passThrough?: (name: string) => boolean;
}

/** Where a call came from: the provider's `tool_calls`, its `invalid_tool_calls`, or a written shape. */
export type ToolCallSource = "native" | "invalid" | WrittenCallShape;

/** A call that may run. */
export interface RescuedToolCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly id?: string;
  readonly source: ToolCallSource;
  /** Repairs applied (bounded identifiers; a call read from the text has `tool_call_from_text` and `written_<shape>`). */
  readonly repairs: readonly string[];
}

/** A call that does not run: the model gets `correction` instead. */
export interface RefusedToolCall {
  /** The registered tool meant (when read), else the name as written ("" for unreadable markup). */
  readonly name: string;
  readonly id?: string;
  readonly source: ToolCallSource | "markup";
  readonly reason: ToolCallRefusal;
  readonly correction: string;
}

/** What the rescue makes of one reply. */
export interface ToolCallRescue {
  /** `answer` (no call), `native` (valid as sent), `repaired`, `rescued` (read from the text), or `corrected` (nothing runs). */
  readonly outcome: "answer" | "native" | "repaired" | "rescued" | "corrected";
  readonly calls: readonly RescuedToolCall[];
  readonly refused: readonly RefusedToolCall[];
  /** The text to keep: call markup and stray call tags removed when there were any. */
  readonly content: string;
  readonly contentChanged: boolean;
}

/** Text as it is compared with tool results: neutraliser marks undone, no blanks, bars or escapes, lower case. */
function skeleton(text: string): string {
  return text.replace(/\u2039/g, "<").replace(/[\u00ab\u00bb\s|\\]/g, "").toLowerCase();
}

/** The verbatim-markup net (beside the by-value check) applies from this length: shorter markup is ambiguous. */
const SAME_CALL_MIN_CHARS = 12;
const EMPTY_KEYS: ReadonlySet<string> = new Set();

function isLengthStop(finishReason: string | undefined): boolean {
  return finishReason === "length" || finishReason === "max_tokens" || finishReason === "MAX_TOKENS";
}

/**
 * Decides what runs for one reply.
 *
 * @param reply - the reply's text, native calls and finish reason
 * @param tools - the agent's tools (only these can be called)
 * @param options - the run's tool results, structured-output names, the JSON repair limit
 * @returns the calls that may run (with their repairs), the refused ones with their corrections,
 *   and the text to keep
 */
export function rescueToolCalls(reply: ReplyToRescue, tools: readonly RepairableTool[], options: ToolCallRescueOptions = {}): ToolCallRescue {
  const toolNames = tools.map((tool) => tool.name);
  const untrusted = options.untrustedCalls ?? EMPTY_KEYS;
  const calls: RescuedToolCall[] = [];
  const refused: RefusedToolCall[] = [];
  const native = [
    ...(reply.toolCalls ?? []).map((call) => ({ ...call, source: "native" as const })),
    ...(reply.invalidToolCalls ?? []).map((call) => ({ name: call.name ?? "", args: call.args ?? "", id: call.id, source: "invalid" as const })),
  ];
  for (const call of native) {
    const id = call.id !== undefined ? { id: call.id } : {};
    if (options.passThrough?.(call.name) === true) {
      calls.push({ name: call.name, args: (call.args ?? {}) as Record<string, unknown>, ...id, source: call.source, repairs: [] });
      continue;
    }
    // Arguments a provider returned unparsed, when the reply stopped for length: cut off, never closed.
    const cutOff = call.source === "invalid" && isLengthStop(reply.finishReason) && typeof call.args === "string" && missingClosers(call.args.trim(), 0) !== undefined;
    const result = repairToolCall({ name: call.name, args: call.args, ...(cutOff ? { truncated: true } : {}) }, tools, options);
    if (call.source === "invalid" && untrusted.size > 0 && isUntrustedCall(result.ok ? [call, { name: result.name, args: result.args }] : [call], untrusted)) {
      const meant = result.ok ? result.name : (result.name ?? call.name);
      refused.push({ name: meant, ...id, source: call.source, reason: "untrusted_call", correction: TOOL_CALL_MESSAGES.untrustedCall(meant) });
      continue;
    }
    if (result.ok) calls.push({ name: result.name, args: result.args, ...id, source: call.source, repairs: call.source === "invalid" ? ["invalid_tool_call", ...result.repairs] : [...result.repairs] });
    else refused.push({ name: result.name ?? call.name, ...id, source: call.source, reason: result.reason, correction: result.correction });
  }
  const written = readWrittenToolCalls(reply.content, { toolNames, ...(options.maxRepairChars !== undefined ? { maxRepairChars: options.maxRepairChars } : {}) });
  const content = written.markup || written.junk ? written.rest : reply.content;
  const contentChanged = content !== reply.content;
  if (calls.length > 0 || (native.length > 0 && written.calls.length === 0)) return { outcome: outcomeOf(calls, refused, false), calls, refused, content, contentChanged };

  const results = (options.toolResults ?? []).map(skeleton);
  const last = written.calls.length - 1;
  written.calls.forEach((call, index) => {
    const truncated = call.truncated || (index === last && isLengthStop(reply.finishReason));
    const markup = skeleton(call.markup);
    const result = repairToolCall({ name: call.name, args: call.args, truncated }, tools, options);
    // Judged alone: the model's own calls of the same list still run.
    const repeated = isUntrustedCall(result.ok ? [call, { name: result.name, args: result.args }] : [call], untrusted);
    if (repeated || (markup.length >= SAME_CALL_MIN_CHARS && results.some((text) => text.includes(markup)))) {
      const meant = result.ok ? result.name : (toolNames.find((name) => compactCallName(name) === compactCallName(call.name)) ?? call.name);
      refused.push({ name: meant, source: call.shape, reason: "untrusted_call", correction: TOOL_CALL_MESSAGES.untrustedCall(meant) });
      return;
    }
    if (result.ok) calls.push({ name: result.name, args: result.args, source: call.shape, repairs: ["tool_call_from_text", `written_${call.shape}`, ...(call.repairs ?? []), ...result.repairs] });
    else refused.push({ name: result.name ?? call.name, source: call.shape, reason: result.reason, correction: result.correction });
  });
  if (written.markup && written.calls.length === 0) refused.push({ name: "", source: "markup", reason: "no_readable_call", correction: TOOL_CALL_MESSAGES.noReadableCall(toolNames) });
  return { outcome: outcomeOf(calls, refused, written.calls.length > 0), calls, refused, content, contentChanged };
}

function outcomeOf(calls: readonly RescuedToolCall[], refused: readonly RefusedToolCall[], fromText: boolean): ToolCallRescue["outcome"] {
  if (calls.length === 0) return refused.length > 0 ? "corrected" : "answer";
  if (fromText) return "rescued";
  return calls.some((call) => call.repairs.length > 0) || refused.length > 0 ? "repaired" : "native";
}
