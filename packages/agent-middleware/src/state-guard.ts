import { createHash } from "node:crypto";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { actionKey, countsAgainstCallCap, stableStringify, TOOL_CALL_OUTCOMES, TOOL_OUTCOME_METADATA_KEY, type StateSigner, type ToolCallOutcome } from "@reins/core";
import { runMessagesOf, STRUCTURED_OUTPUT_PREFIX, type ReinsRunRecord, type RunCall, type RunStep } from "./run-record";
import { CORRECTIONS_METADATA_KEY } from "./tool-call-rescue";

/**
 * Guard state that survives a checkpoint and cannot be forged. With a state key, everything Reins
 * writes into graph state is signed (HMAC-SHA256, `@reins/core`'s `createStateSigner`):
 *
 * - the run record (`reinsRun.signature`, over every other field of the record, whatever fields
 *   it holds);
 * - each model reply's tool calls and corrections (`response_metadata.reinsCalls`: the run, the
 *   model call's number, a digest of each call by id, signed with the corrections), written as the
 *   reply comes back from the model, before any other middleware or a checkpoint sees it;
 * - each `ToolMessage` outcome Reins writes (`metadata.reinsOutcomeSignature` over the run, the
 *   call id, the tool and the outcome).
 *
 * On adoption (every hook, so a run held by this process is checked too) a record that does not
 * verify, a reply whose calls are not the ones signed (a call added), a reply numbered beyond the
 * record's model calls (an older record restored, or its count reset), an outcome that does not
 * verify or was removed after the record saw it, and signed marks in a thread without a record (the
 * record removed) are refused: the run stops with `stopReason` `state_tampered`. The record keeps
 * every call with its outcome once seen, so call caps do not depend on the messages staying.
 */

/** Key of a model reply's signed call list in its `response_metadata`. */
export const CALLS_METADATA_KEY = "reinsCalls";
/** Key of a `ToolMessage` outcome's signature in its `metadata`. */
export const OUTCOME_SIGNATURE_METADATA_KEY = "reinsOutcomeSignature";
/** The outcome the record keeps for a call answered by a `ToolMessage` Reins did not write. */
export const EXTERNAL_OUTCOME = "external";

/** A model reply's signed calls (`response_metadata.reinsCalls`). */
interface SignedReplyCalls {
  readonly runId: string;
  /** The record's `modelCalls` when the reply came back (1 for the run's first model call). */
  readonly modelCall: number;
  /** Digest of each call (name and arguments) by call id (`@<index>` for a call without id). */
  readonly calls: Readonly<Record<string, string>>;
  readonly signature: string;
}

interface SignedOutcome {
  readonly runId: string;
  readonly signature: string;
}

type ToolCallLike = { readonly id?: string; readonly name: string; readonly args?: unknown };

const callKeyOf = (call: ToolCallLike, index: number): string => call.id ?? `@${index}`;

/** Digest of one tool call: its name and arguments (canonical serialisation). Not secret: the reply's signature covers it. */
export function callDigestOf(name: string, args: unknown): string {
  return createHash("sha256").update(stableStringify({ name, args })).digest("base64url").slice(0, 32);
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function repliedCallsOf(message: AIMessage): ToolCallLike[] {
  return (message.tool_calls ?? []).filter((call) => !call.name.startsWith(STRUCTURED_OUTPUT_PREFIX));
}

/** Signs and checks the middleware's guard state; without a signer it only keeps the record's calls up to date. */
export class StateGuard {
  constructor(private readonly signer: StateSigner | undefined) {}

  /** True when a state key is set. */
  get signing(): boolean {
    return this.signer !== undefined;
  }

  /** The record as it is saved: signed over every field but `signature` (unsigned without a key). */
  seal(record: ReinsRunRecord): ReinsRunRecord {
    const { signature: _previous, ...fields } = record;
    return this.signer === undefined ? fields : { ...fields, signature: this.signer.sign(fields) };
  }

  /** True when the record's signature verifies. */
  recordVerified(record: ReinsRunRecord): boolean {
    if (this.signer === undefined) return true;
    const { signature, ...fields } = record;
    return this.signer.verify(fields, signature);
  }

  /** Signs a model reply's calls and corrections in its `response_metadata` (in place: the reply is the middleware's own). */
  signReply(reply: AIMessage, runId: string, modelCall: number): AIMessage {
    if (this.signer === undefined) return reply;
    const calls = Object.fromEntries((reply.tool_calls ?? []).map((call, index) => [callKeyOf(call, index), callDigestOf(call.name, call.args)]));
    const corrections = recordOf(reply.response_metadata?.[CORRECTIONS_METADATA_KEY]) ?? {};
    const signature = this.signer.sign({ runId, modelCall, calls, corrections });
    const signed: SignedReplyCalls = { runId, modelCall, calls, signature };
    reply.response_metadata = { ...(reply.response_metadata ?? {}), [CALLS_METADATA_KEY]: signed };
    return reply;
  }

  /** The reply's signed calls when their signature verifies (corrections included), else `undefined`. */
  replyCallsOf(message: AIMessage): SignedReplyCalls | undefined {
    if (this.signer === undefined) return undefined;
    const saved = recordOf(message.response_metadata?.[CALLS_METADATA_KEY]);
    if (saved === undefined || typeof saved.runId !== "string" || typeof saved.modelCall !== "number" || recordOf(saved.calls) === undefined) return undefined;
    const corrections = recordOf(message.response_metadata?.[CORRECTIONS_METADATA_KEY]) ?? {};
    const { runId, modelCall, calls } = saved;
    return this.signer.verify({ runId, modelCall, calls, corrections }, saved.signature) ? (saved as unknown as SignedReplyCalls) : undefined;
  }

  /**
   * Whether a tool call about to run is the one the model made: `signed` (as signed), `edited` (its
   * id was signed, its name or arguments changed since, e.g. by a human-in-the-loop edit),
   * `unsigned` (not in a reply signed for `runId`: added, or replayed from another run),
   * `unchecked` without a key.
   */
  callStatus(call: ToolCallLike, messages: readonly BaseMessage[], runId?: string): "signed" | "edited" | "unsigned" | "unchecked" {
    if (this.signer === undefined) return "unchecked";
    for (let index = messages.length - 1; index >= 0; index -= 1) {
      const message = messages[index];
      if (!AIMessage.isInstance(message)) continue;
      const position = (message.tool_calls ?? []).findIndex((each) => each.id === call.id);
      if (position < 0) continue;
      const signed = this.replyCallsOf(message);
      const digest = runId !== undefined && signed?.runId !== runId ? undefined : signed?.calls[callKeyOf(call, position)];
      if (digest === undefined) return "unsigned";
      return digest === callDigestOf(call.name, call.args) ? "signed" : "edited";
    }
    return "unsigned";
  }

  /** Signs the outcome a `ToolMessage` of the middleware carries (in place: the message is the middleware's own). */
  signOutcome(message: ToolMessage, runId: string): ToolMessage {
    const outcome = message.metadata?.[TOOL_OUTCOME_METADATA_KEY];
    if (this.signer === undefined || typeof outcome !== "string") return message;
    const signed: SignedOutcome = { runId, signature: this.signer.sign({ runId, toolCallId: message.tool_call_id, tool: message.name ?? "", outcome }) };
    message.metadata = { ...(message.metadata ?? {}), [OUTCOME_SIGNATURE_METADATA_KEY]: signed };
    return message;
  }

  /** The run whose signature the message's outcome carries, when it verifies. */
  private outcomeRunOf(message: ToolMessage): string | undefined {
    if (this.signer === undefined) return undefined;
    const saved = recordOf(message.metadata?.[OUTCOME_SIGNATURE_METADATA_KEY]);
    const outcome = message.metadata?.[TOOL_OUTCOME_METADATA_KEY];
    if (saved === undefined || typeof saved.runId !== "string" || typeof outcome !== "string") return undefined;
    const payload = { runId: saved.runId, toolCallId: message.tool_call_id, tool: message.name ?? "", outcome };
    return this.signer.verify(payload, saved.signature) ? saved.runId : undefined;
  }

  /** True when the messages hold anything Reins signed (a signed reply or outcome): a thread Reins has run in. */
  hasSignedMarks(messages: readonly BaseMessage[]): boolean {
    if (this.signer === undefined) return false;
    return messages.some((message) => (AIMessage.isInstance(message) ? this.replyCallsOf(message) !== undefined : ToolMessage.isInstance(message) && this.outcomeRunOf(message) !== undefined));
  }

  /**
   * Why the saved state cannot be trusted, or `undefined` when it verifies (always without a key).
   * @param record - the record in the state (its signature already verified)
   */
  tamperedReason(record: ReinsRunRecord, messages: readonly BaseMessage[]): string | undefined {
    if (this.signer === undefined) return undefined;
    if (!this.recordVerified(record)) return "the run record's signature does not verify (the record was changed or replaced outside Reins)";
    const known = new Map((record.calls ?? []).map((call) => [call.id, call]));
    for (const message of runMessagesOf(record, messages)) {
      if (AIMessage.isInstance(message)) {
        const calls = repliedCallsOf(message);
        if (calls.length === 0) continue;
        const signed = this.replyCallsOf(message);
        if (signed === undefined) return "a saved model reply's tool calls carry no valid signature (the reply was added or changed outside Reins)";
        // An earlier run's reply (the run's input trimmed away, e.g. by summarization): checked in its own run; its calls never run in this one (callStatus).
        if (signed.runId !== record.runId) continue;
        if (signed.modelCall > record.modelCalls) {
          return `the run record counts ${record.modelCalls} model calls but the saved messages hold model call ${signed.modelCall} (an older record restored, or its counts reset)`;
        }
        const all = message.tool_calls ?? [];
        for (const call of calls) {
          if (!(callKeyOf(call, all.indexOf(call as never)) in signed.calls)) return `tool call ${call.id ?? "(no id)"} was added to a saved model reply`;
        }
      } else if (ToolMessage.isInstance(message)) {
        const outcome = message.metadata?.[TOOL_OUTCOME_METADATA_KEY];
        const seen = known.get(message.tool_call_id)?.outcome;
        if (outcome !== undefined) {
          const outcomeRun = this.outcomeRunOf(message);
          if (outcomeRun === undefined || (known.has(message.tool_call_id) && outcomeRun !== record.runId)) {
            return `the outcome saved with the result of tool call ${message.tool_call_id} does not verify (changed, or copied from another call or run)`;
          }
          if (seen !== undefined && seen !== outcome) return `the outcome of tool call ${message.tool_call_id} differs from the one the run record saw`;
        } else if (seen !== undefined && seen !== EXTERNAL_OUTCOME) {
          return `the outcome of tool call ${message.tool_call_id} was removed from its saved result`;
        }
      }
    }
    return undefined;
  }

  /**
   * The record with the run's calls and their outcomes as the messages show them now: calls of
   * the run's replies it did not list yet, and the outcome of each listed call whose `ToolMessage`
   * appeared. An outcome, once kept, is never changed here.
   */
  absorb(record: ReinsRunRecord, messages: readonly BaseMessage[]): ReinsRunRecord {
    const calls: RunCall[] = [...(record.calls ?? [])];
    const index = new Map(calls.map((call, position) => [call.id, position]));
    let changed = record.calls === undefined;
    for (const message of runMessagesOf(record, messages)) {
      if (AIMessage.isInstance(message)) {
        // With a key, only this run's replies (an earlier run's are there when the run's input was trimmed away).
        const signedRun = this.signing ? this.replyCallsOf(message)?.runId : undefined;
        if (signedRun !== undefined && signedRun !== record.runId) continue;
        for (const call of repliedCallsOf(message)) {
          if (call.id === undefined || index.has(call.id)) continue;
          index.set(call.id, calls.length);
          calls.push({ id: call.id, tool: call.name });
          changed = true;
        }
      } else if (ToolMessage.isInstance(message)) {
        const position = index.get(message.tool_call_id);
        const call = position === undefined ? undefined : calls[position];
        if (position === undefined || call === undefined || call.outcome !== undefined) continue;
        const outcome = message.metadata?.[TOOL_OUTCOME_METADATA_KEY];
        calls[position] = { ...call, outcome: typeof outcome === "string" && (TOOL_CALL_OUTCOMES as readonly string[]).includes(outcome) ? outcome : EXTERNAL_OUTCOME };
        changed = true;
      }
    }
    return changed ? { ...record, calls } : record;
  }

  /**
   * Calls per tool that count against `maxCallsPerRun`, from the record's calls: a typed outcome
   * that passed the cap, and an answer Reins did not write (on the safe side: a thread saved
   * before Reins, or an outcome stripped before the record saw it; the tool may have run).
   */
  callCounts(record: ReinsRunRecord): Map<string, number> {
    const counts = new Map<string, number>();
    for (const call of record.calls ?? []) {
      const counted = call.outcome === EXTERNAL_OUTCOME || (call.outcome !== undefined && countsAgainstCallCap(call.outcome as ToolCallOutcome));
      if (counted) counts.set(call.tool, (counts.get(call.tool) ?? 0) + 1);
    }
    return counts;
  }
}

/**
 * A run record for a thread saved before Reins kept one (or whose record cannot be trusted and
 * carries nothing Reins signed): the run is the messages from the last human message on; its
 * model calls are the AI messages there, its steps and calls the replies' tool calls, so call
 * caps, `maxSteps` and the loop detectors go on from what the thread holds.
 * @param ignoreTools - tools the loop detectors skip
 */
export function legacyRunRecord(runId: string, messages: readonly BaseMessage[], nowMs: number, ignoreTools: readonly string[]): ReinsRunRecord {
  let start = messages.length - 1;
  while (start > 0 && !HumanMessage.isInstance(messages[start])) start -= 1;
  start = Math.max(0, start);
  const run = messages.slice(start);
  const steps: RunStep[] = [];
  let modelCalls = 0;
  for (const message of run) {
    if (!AIMessage.isInstance(message)) continue;
    modelCalls += 1;
    for (const call of repliedCallsOf(message)) {
      steps.push({ ...(call.id !== undefined ? { toolCallId: call.id } : {}), toolName: call.name, key: actionKey(call.name, call.args), detected: !ignoreTools.includes(call.name) });
    }
  }
  const id = messages[start]?.id;
  return {
    runId,
    ...(typeof id === "string" ? { inputMessageId: id } : {}),
    inputMessageIndex: start,
    startedAtMs: nowMs,
    activeMs: 0,
    modelCalls,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    notedBudgets: [],
    steps,
    notes: [],
    calls: [],
  };
}

/** A stable run id for a legacy thread (the same in every hook and process): a digest of the thread and its run's first message. */
export function legacyRunIdOf(threadId: string | undefined, messages: readonly BaseMessage[]): string {
  let start = messages.length - 1;
  while (start > 0 && !HumanMessage.isInstance(messages[start])) start -= 1;
  const first = messages[Math.max(0, start)];
  const anchor = stableStringify({ threadId: threadId ?? null, index: Math.max(0, start), id: first?.id ?? null, content: first?.content ?? null });
  return `reins-legacy-${createHash("sha256").update(anchor).digest("hex").slice(0, 24)}`;
}

/**
 * The arguments of an edited call without a confirmation (`confirm`, also inside a string-input
 * tool's `{"input", "confirm"}` text): a call changed after the model made it never runs as
 * confirmed; a side-effect tool gives it a dry run first.
 */
export function withoutConfirmation(args: unknown): unknown {
  const fields = recordOf(args);
  if (fields === undefined) return args;
  const { confirm: _confirm, ...rest } = fields;
  if (typeof rest.input === "string") {
    try {
      const inner = recordOf(JSON.parse(rest.input) as unknown);
      if (inner !== undefined && "confirm" in inner) {
        const { confirm: _innerConfirm, ...kept } = inner;
        rest.input = typeof kept.input === "string" ? kept.input : JSON.stringify(kept);
      }
    } catch {
      // Not JSON: plain text, no confirmation in it.
    }
  }
  return rest;
}
