/**
 * The middleware's side of the tool-call rescue: `@reins/react-output-parser`'s `rescueToolCalls`
 * applied to one `AIMessage` in `wrapModelCall`. Calls that may run become `tool_calls` (fresh ids
 * where the model gave none); refused ones stay as calls with empty arguments whose `ToolMessage`
 * is the correction (`wrapToolCall` answers them from the run's corrections), so the history
 * never holds malformed arguments nor a call without its `ToolMessage`; call markup and stray call
 * tags leave the content. Each repair is a `parser_repair` event (`parser_repairs_total{repair}`),
 * as on the classic path.
 */
import { randomUUID } from "node:crypto";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ReinsEvent } from "@reins/core";
import { rescueToolCalls, type RepairableTool, type ToolCallRepairOptions } from "@reins/react-output-parser";
import { textOf, type RunSlot } from "./middleware-run-state";
import { STRUCTURED_OUTPUT_PREFIX } from "./run-record";
import { reasoningOfReply } from "./reply-reasoning";

/** The name a refused call stands under when no tool name could be read from the markup. */
const UNREADABLE_CALL_NAME = "unreadable_tool_call";

/** What the rescue of one reply needs from the middleware. */
export interface ReplyRescueContext {
  readonly tools: readonly RepairableTool[];
  readonly options: ToolCallRepairOptions;
  /** The run's corrections by call id; `undefined` outside a run (refused calls are then dropped). */
  readonly slot: RunSlot | undefined;
  /** The messages before the reply (their ToolMessages are the run's tool results). */
  readonly messages: readonly BaseMessage[];
  /** Keys of the calls seen in the run's untrusted text (`untrusted-provenance.ts`). @default none */
  readonly untrustedCalls?: ReadonlySet<string>;
  readonly emit: (event: ReinsEvent) => void;
}

function finishReasonOf(message: AIMessage): string | undefined {
  const metadata = message.response_metadata ?? {};
  const reason = metadata.finish_reason ?? metadata.stop_reason ?? metadata.done_reason;
  return typeof reason === "string" ? reason : undefined;
}

const freshId = (): string => `reins_call_${randomUUID().slice(0, 12)}`;

/** Key of the corrective texts of a reply's refused calls, by tool-call id, in its `response_metadata`. */
export const CORRECTIONS_METADATA_KEY = "reinsCorrections";

/**
 * The corrective text for a refused tool call. The latest AI message that holds a call with this
 * id decides: its `response_metadata` keeps its refused calls' corrections (saved with the
 * checkpoint), and a call it holds without one is a valid call, even when an earlier reply's
 * refused call had the same id (providers that number calls per reply reuse ids), so that call
 * runs as stock LangChain runs it. This process's slot answers only when no message holds the id.
 */
export function correctionOf(toolCallId: string | undefined, slot: RunSlot | undefined, messages: readonly BaseMessage[]): string | undefined {
  if (toolCallId === undefined) return undefined;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (!AIMessage.isInstance(message) || !(message.tool_calls ?? []).some((call) => call.id === toolCallId)) continue;
    const saved = (message.response_metadata?.[CORRECTIONS_METADATA_KEY] as Record<string, unknown> | undefined)?.[toolCallId];
    return typeof saved === "string" ? saved : undefined;
  }
  return slot?.corrections.get(toolCallId);
}

/**
 * Rescues and repairs the tool calls of one model reply.
 *
 * @returns the reply unchanged when nothing needed changing, else a new `AIMessage` (same id,
 *   metadata and usage) with the calls that run, the refused calls (empty arguments, their
 *   corrections kept in `slot.corrections`) and the content without call markup
 */
export function rescueReply(message: AIMessage, context: ReplyRescueContext): AIMessage {
  const toolResults = context.messages.filter((item) => ToolMessage.isInstance(item)).map(textOf);
  const finishReason = finishReasonOf(message);
  // vLLM's and DeepSeek's reasoning parsers put the reasoning beside the content: a reasoning block.
  const reasoning = reasoningOfReply(message);
  const text = textOf(message);
  const withReasoning = typeof reasoning === "string" && reasoning.trim().length > 0 && text.trim().length === 0;
  const rescue = rescueToolCalls(
    {
      content: withReasoning ? `<think>${reasoning}</think>` : text,
      toolCalls: (message.tool_calls ?? []).map((call) => ({ name: call.name, args: call.args as unknown, ...(call.id !== undefined ? { id: call.id } : {}) })),
      invalidToolCalls: (message.invalid_tool_calls ?? []).map((call) => ({ ...(call.name !== undefined ? { name: call.name } : {}), ...(call.args !== undefined ? { args: call.args } : {}), ...(call.id !== undefined ? { id: call.id } : {}) })),
      ...(finishReason !== undefined ? { finishReason } : {}),
    },
    context.tools,
    { ...context.options, toolResults, ...(context.untrustedCalls !== undefined ? { untrustedCalls: context.untrustedCalls } : {}), passThrough: (name) => name.startsWith(STRUCTURED_OUTPUT_PREFIX) },
  );
  const unchanged = rescue.outcome === "answer" || (rescue.outcome === "native" && rescue.refused.length === 0 && rescue.calls.every((call) => call.id !== undefined));
  if (unchanged && !rescue.contentChanged && (message.invalid_tool_calls ?? []).length === 0) return message;

  const toolCalls = rescue.calls.map((call) => {
    const id = call.id ?? freshId();
    for (const repair of call.repairs) context.emit({ type: "parser_repair", repair, detail: `tool call ${call.name}`, toolCallId: id });
    return { name: call.name, args: call.args, id, type: "tool_call" as const };
  });
  const corrections: Record<string, string> = {};
  if (context.slot !== undefined) {
    for (const refused of rescue.refused) {
      const id = refused.id ?? freshId();
      context.slot.corrections.set(id, refused.correction);
      corrections[id] = refused.correction;
      toolCalls.push({ name: refused.name.length > 0 ? refused.name : UNREADABLE_CALL_NAME, args: {}, id, type: "tool_call" as const });
    }
  }
  // The order the model wrote its calls in (their ToolMessages follow it).
  const written = [...(message.tool_calls ?? []), ...(message.invalid_tool_calls ?? [])].map((call) => call.id);
  const rank = (id: string): number => (written.includes(id) ? written.indexOf(id) : written.length);
  toolCalls.sort((left, right) => rank(left.id) - rank(right.id));
  // Text blocks are replaced by the cleaned text only when the markup was removed.
  const content = rescue.contentChanged && !withReasoning ? rescue.content : message.content;
  return new AIMessage({
    content,
    ...(message.id !== undefined ? { id: message.id } : {}),
    tool_calls: toolCalls,
    invalid_tool_calls: [],
    additional_kwargs: message.additional_kwargs,
    // The corrections travel with the reply (and its checkpoint): a resume in another process answers them too.
    response_metadata: Object.keys(corrections).length === 0 ? message.response_metadata : { ...message.response_metadata, [CORRECTIONS_METADATA_KEY]: corrections },
    ...(message.usage_metadata !== undefined ? { usage_metadata: message.usage_metadata } : {}),
  });
}
