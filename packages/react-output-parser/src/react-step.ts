/**
 * The outcome of reading one reply ({@link ReActStep}), the reader's configuration, and the small
 * builders every reading stage ends with (`act`, `finish`, `fail`).
 */
import type { ReActLabelSet } from "@reins/core";
import { PARSER_MESSAGES, type MessageLabels } from "./messages";
import type { ParserErrorReason } from "./parser-error-reasons";
import type { ToolInputSpec } from "./tool-schema";

export type { ParserErrorReason } from "./parser-error-reasons";

/** What to do when one reply holds both an action and a final answer. */
export type ConflictPolicy = "first" | "action" | "final" | "error";

/** The tool input handed to the executor: a string for string tools, an object otherwise. */
export type ParsedToolInput = string | Record<string, unknown>;

/** The outcome of reading one reply. */
export type ReActStep =
  | {
      readonly ok: true;
      readonly kind: "action";
      readonly tool: string;
      readonly toolInput: ParsedToolInput;
      readonly thought: string;
      readonly repairs: readonly string[];
    }
  | {
      readonly ok: true;
      readonly kind: "finish";
      readonly output: string;
      readonly thought: string;
      readonly repairs: readonly string[];
    }
  | {
      readonly ok: false;
      readonly reason: ParserErrorReason;
      readonly observation: string;
      readonly thought: string;
      readonly repairs: readonly string[];
    };

/** Everything the reader needs, resolved once by the parser. */
export interface ReaderConfig {
  readonly labels: ReActLabelSet;
  readonly messageLabels: MessageLabels;
  readonly tools: ReadonlyMap<string, ToolInputSpec>;
  readonly toolNames: readonly string[];
  readonly onConflict: ConflictPolicy;
  readonly fuzzyMaxDistance: number;
  readonly acceptUnlabelledReply: boolean;
  readonly maxRepairChars: number;
  /** The canonical LangChain labels are in force (no label replaced), so the fast path applies. */
  readonly canonicalLabels: boolean;
}

export class RepairLog {
  readonly items: string[] = [];
  add(repair: string): void {
    if (!this.items.includes(repair)) this.items.push(repair);
  }
}

export interface Work {
  readonly config: ReaderConfig;
  readonly repairs: RepairLog;
  thought: string;
  cutContinuation: boolean;
}

export type Finished = ReActStep;

export function fail(work: Work, reason: ParserErrorReason, observation: string): Finished {
  const note = work.cutContinuation && reason !== "final_answer_then_action" ? PARSER_MESSAGES.hallucinatedContinuation(work.config.messageLabels) : "";
  return { ok: false, reason, observation: observation + note, thought: work.thought, repairs: work.repairs.items };
}

export function finish(work: Work, output: string): Finished {
  if (output.trim().length === 0) return fail(work, "empty_final_answer", PARSER_MESSAGES.emptyFinalAnswer(work.config.messageLabels));
  return { ok: true, kind: "finish", output: output.trim(), thought: work.thought, repairs: work.repairs.items };
}

export function act(work: Work, tool: string, toolInput: ParsedToolInput): Finished {
  return { ok: true, kind: "action", tool, toolInput, thought: work.thought, repairs: work.repairs.items };
}
