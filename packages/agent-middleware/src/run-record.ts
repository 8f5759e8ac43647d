import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { countsAgainstCallCap, fingerprintObservation, outcomeFailed, STOP_REASONS, toolOutcomeOf, type StopReason, type ToolCallOutcome } from "@reins/core";
import { z } from "zod/v4";

/**
 * The run record of a `createAgent` run, kept in the agent's graph state (`reinsRun`) so that every
 * LangGraph checkpointer (MemorySaver, SQLite, Postgres, …) saves it with the run. A resume in
 * another process, after an interrupt or a crash, or by a rebuilt agent continues from it: loop
 * detection, call caps, step / time / token / cost budgets and the stop decision.
 *
 * What each tool call returned is not copied here: it is in the run's `ToolMessage`s (the
 * observation, and the typed outcome the `ToolExecutor` writes in `metadata.reinsOutcome`), which
 * the same checkpoint holds. The record keeps what the messages do not say.
 */

/** Key of the character offset where the loop notes start in a `ToolMessage`'s content (`metadata`). */
export const NOTES_AT_METADATA_KEY = "reinsNotesAt";

const simHashSchema = z.object({ high: z.number(), low: z.number(), wordCount: z.number() });

/** One tool call the loop detectors saw, in call order. */
export const runStepSchema = z.object({
  /** The `tool_call.id` (its `ToolMessage` holds the observation and the outcome). */
  toolCallId: z.string().optional(),
  toolName: z.string(),
  /** `actionKey(tool, input)` from `@reins/core`. */
  key: z.string(),
  /** False for a call the detectors skip (`ignoreTools`). */
  detected: z.boolean(),
  /** SimHash of the turn's text, on the turn's first call (stall detection). */
  thoughtHash: simHashSchema.optional(),
});

/** A loop note waiting for the model: typed facts, rendered at the `ToolMessage` (`renderLoopNote`). */
export const pendingNoteSchema = z.object({
  note: z.record(z.string(), z.unknown()),
  /** The tool call whose `ToolMessage` carries it; unset until the next turn's calls are known. */
  forToolCallId: z.string().optional(),
});

/** The run record (`state.reinsRun`). Times are epoch milliseconds; durations milliseconds. */
export const reinsRunSchema = z.object({
  /** The run's id (the `runId` of its events and audit records). */
  runId: z.string(),
  /** Id of the first message of the run's input (the new human input on the thread). */
  inputMessageId: z.string().optional(),
  /** Index of that message when the run started (used when the message has no id). */
  inputMessageIndex: z.number().int().nonnegative(),
  startedAtMs: z.number(),
  /** Run time so far, in ms, without the time the run was paused at an interrupt. */
  activeMs: z.number().nonnegative(),
  /** Model calls made (the step budget `maxSteps` counts these). */
  modelCalls: z.number().int().nonnegative(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
  /** Budgets the model was already warned about ("answer soon" notes go once per run). */
  notedBudgets: z.array(z.string()),
  steps: z.array(runStepSchema),
  notes: z.array(pendingNoteSchema),
  /**
   * Keys of the calls seen in the run's untrusted text (tool results, prompts, human messages;
   * `@reins/react-output-parser`'s `untrustedCallKeys`: hashes, no tool input). A call the model
   * writes as text that repeats one does not run. Absent in records saved before it existed.
   */
  untrustedCalls: z.array(z.string()).optional(),
  /** The stop decision, once made (never withdrawn). */
  stop: z.object({ reason: z.enum(STOP_REASONS as unknown as [StopReason, ...StopReason[]]), message: z.string() }).optional(),
});

/** The run record kept in graph state. */
export type ReinsRunRecord = z.infer<typeof reinsRunSchema>;
/** One step of {@link ReinsRunRecord}. */
export type RunStep = z.infer<typeof runStepSchema>;

/**
 * A new run record for the input at the end of `messages`: the run's input is the block of
 * messages after the last AI or tool message (the thread's new human input).
 */
export function newRunRecord(runId: string, messages: readonly BaseMessage[], nowMs: number): ReinsRunRecord {
  let index = messages.length;
  while (index > 0 && !AIMessage.isInstance(messages[index - 1]) && !ToolMessage.isInstance(messages[index - 1])) index -= 1;
  if (index === messages.length) index = Math.max(0, messages.length - 1);
  const id = messages[index]?.id;
  return {
    runId,
    ...(typeof id === "string" ? { inputMessageId: id } : {}),
    inputMessageIndex: index,
    startedAtMs: nowMs,
    activeMs: 0,
    modelCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    notedBudgets: [],
    steps: [],
    notes: [],
  };
}

/** The messages of the run: from its input on (all of them when the input was trimmed away). */
export function runMessagesOf(record: ReinsRunRecord, messages: readonly BaseMessage[]): readonly BaseMessage[] {
  if (record.inputMessageId !== undefined) {
    const index = messages.findIndex((message) => message.id === record.inputMessageId);
    return index < 0 ? messages : messages.slice(index);
  }
  return messages.slice(Math.min(record.inputMessageIndex, messages.length));
}

/** What one tool call of the run returned, read from its `ToolMessage`. */
export interface CallResultFacts {
  /** The observation the model saw, without the loop notes appended to it. */
  readonly observation: string;
  readonly fingerprint: string;
  /** The typed outcome, when the `ToolExecutor` (or the middleware) wrote one. */
  readonly outcome: ToolCallOutcome | undefined;
  readonly failed: boolean;
}

/** The text of a message: its string content, or its text blocks joined. */
export function textOf(message: BaseMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => (typeof block === "string" ? block : block !== null && typeof block === "object" && "text" in block && typeof block.text === "string" ? block.text : ""))
    .join("");
}

/** The facts of one `ToolMessage`: observation without notes, fingerprint, typed outcome. */
export function resultFactsOf(message: ToolMessage): CallResultFacts {
  const text = textOf(message);
  const notesAt = (message.metadata as Record<string, unknown> | undefined)?.[NOTES_AT_METADATA_KEY];
  const observation = typeof notesAt === "number" && notesAt >= 0 && notesAt <= text.length ? text.slice(0, notesAt).trimEnd() : text;
  const outcome = toolOutcomeOf(message);
  // A typed outcome decides (a dry run or a refusal is not a finding); else the message's status.
  return { observation, fingerprint: fingerprintObservation(observation), outcome, failed: message.status === "error" || (outcome !== undefined && outcomeFailed(outcome)) };
}

/** The run's `ToolMessage`s by `tool_call_id`. */
export function toolResultsOf(messages: readonly BaseMessage[]): Map<string, ToolMessage> {
  const results = new Map<string, ToolMessage>();
  for (const message of messages) if (ToolMessage.isInstance(message)) results.set(message.tool_call_id, message);
  return results;
}

/**
 * Calls per tool name that count against `maxCallsPerRun`, from the run's saved `ToolMessage`s
 * (their typed outcomes): what a resumed run starts its call caps from.
 */
export function callCountsOf(messages: readonly BaseMessage[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of messages) {
    if (!ToolMessage.isInstance(message) || message.name === undefined) continue;
    const outcome = toolOutcomeOf(message);
    if (outcome !== undefined && countsAgainstCallCap(outcome)) counts.set(message.name, (counts.get(message.name) ?? 0) + 1);
  }
  return counts;
}
