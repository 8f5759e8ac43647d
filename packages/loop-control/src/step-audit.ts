import { DEFAULT_SECRET_REDACTOR, createSecretRedactor, type ReinsEvent, type SecretRedactor, type StopReason, type ToolCallOutcome } from "@reins/core";
import type { LoopAuditOutcome, LoopAuditRecord } from "./audit";
import type { LoopDetection } from "./loop-detection";
import type { LoopAuditOptions } from "./loop-control-options";

/** The facts of one step an audit record is built from (both loop-control paths keep these). */
export interface AuditedStep {
  /** 0-based position in the run. */
  readonly index: number;
  readonly startedAtMs: number;
  readonly llmMs?: number;
  readonly toolMs?: number;
  readonly cycleMs: number;
  readonly thought: string;
  readonly tool: string;
  readonly toolInput: unknown;
  readonly observation?: string;
  readonly observationFingerprint?: string;
  readonly repairs: readonly string[];
  /** Repairs of the whole model reply (`createAgent`), on each record of its turn. */
  readonly replyRepairs?: readonly string[];
  readonly detection?: LoopDetection;
  readonly stopReason?: StopReason;
  /** The step's tool never ran: the run was stopped at it. */
  readonly refused: boolean;
  /** The call failed (a tool error, or a failed outcome the tool wrapper reported). */
  readonly failed: boolean;
  /** The step is the executor's parse-error step. */
  readonly parseError: boolean;
  /** End of the run's previous step (its tool's end, or its decision), in epoch milliseconds. */
  readonly previousEndMs?: number;
  /** The run's question, for the run's first record. */
  readonly question?: string;
  readonly observationRawChars?: number;
  readonly callOutcome?: ToolCallOutcome;
  readonly turn?: number;
  readonly callId?: string;
}

/**
 * The step's own cycle, in milliseconds: its model call plus its tool call. Without a timed model
 * call, from the previous step's end (or the decision the recorded `cycleMs` counts from) to the
 * end of its tool call.
 */
export function ownCycleMs(step: Pick<AuditedStep, "startedAtMs" | "llmMs" | "toolMs" | "cycleMs" | "previousEndMs">): number {
  const beforeDecisionMs = step.llmMs ?? (step.previousEndMs !== undefined ? Math.max(0, step.startedAtMs - step.previousEndMs) : step.cycleMs);
  return beforeDecisionMs + (step.toolMs ?? 0);
}

/** Where a step ended: its decision plus its tool time, in epoch milliseconds. */
export function stepEndMs(step: { readonly startedAtMs: number; readonly toolMs?: number }): number {
  return step.startedAtMs + (step.toolMs ?? 0);
}

/** The outcome an audit record gives a step: stopped, parse error, tool error, warned, or observed. */
export function auditOutcomeOf(step: AuditedStep): LoopAuditOutcome {
  if (step.refused || (step.detection?.level === "stop" && step.stopReason !== undefined)) return "stopped";
  if (step.parseError) return "parse_error";
  if (step.failed) return "tool_error";
  if (step.detection?.level === "warn") return "warned";
  return "observed";
}

/** The JSONL audit record of one step (`type: "reins.loop_control.step"`). */
export function stepAuditRecord(runId: string, step: AuditedStep): LoopAuditRecord {
  return {
    type: "reins.loop_control.step",
    runId,
    step: step.index + 1,
    startedAt: new Date(step.startedAtMs).toISOString(),
    durations: {
      ...(step.llmMs !== undefined ? { llmMs: step.llmMs } : {}),
      ...(step.toolMs !== undefined ? { toolMs: step.toolMs } : {}),
      cycleMs: ownCycleMs(step),
    },
    ...(step.question !== undefined ? { question: step.question } : {}),
    thought: step.thought,
    tool: step.tool,
    toolInput: step.toolInput,
    ...(step.turn !== undefined ? { turn: step.turn } : {}),
    ...(step.callId !== undefined ? { callId: step.callId } : {}),
    ...(step.observationFingerprint !== undefined
      ? { observationFingerprint: step.observationFingerprint, observationChars: step.observation?.length ?? 0 }
      : {}),
    ...(step.observation !== undefined ? { observation: step.observation } : {}),
    ...(step.observationRawChars !== undefined ? { observationRawChars: step.observationRawChars } : {}),
    ...(step.callOutcome !== undefined ? { callOutcome: step.callOutcome } : {}),
    ...(step.refused ? { refused: true } : {}),
    repairs: step.repairs,
    ...(step.replyRepairs !== undefined && step.replyRepairs.length > 0 ? { replyRepairs: step.replyRepairs } : {}),
    outcome: auditOutcomeOf(step),
    ...(step.detection !== undefined ? { detection: { kind: step.detection.kind, level: step.detection.level, count: step.detection.count } } : {}),
    ...(step.stopReason !== undefined ? { stopReason: step.stopReason } : {}),
  };
}

/** The audit record of a run's finish: the model's answer (with its thought) or a stop. */
export function finishAuditRecord(finish: {
  readonly runId: string;
  /** 1-based: one past the run's last step. */
  readonly step: number;
  readonly atMs: number;
  readonly llmMs?: number;
  /** Since the previous decision; used as the cycle only when neither `llmMs` nor `previousEndMs` is known. */
  readonly cycleMs: number;
  /** End of the run's last step, in epoch milliseconds (absent for a run with no step). */
  readonly previousEndMs?: number;
  readonly thought: string;
  readonly stopReason: StopReason;
  /** The final answer, or the graceful stop text the caller received. */
  readonly answer?: string;
  /** The run's question, when this is the run's first record. */
  readonly question?: string;
  /** Repairs applied to the final reply (e.g. `duplicate_message_id`). @default [] */
  readonly repairs?: readonly string[];
}): LoopAuditRecord {
  return {
    type: "reins.loop_control.step",
    runId: finish.runId,
    step: finish.step,
    startedAt: new Date(finish.atMs).toISOString(),
    durations: {
      ...(finish.llmMs !== undefined ? { llmMs: finish.llmMs } : {}),
      cycleMs: ownCycleMs({ startedAtMs: finish.atMs, llmMs: finish.llmMs, cycleMs: finish.cycleMs, previousEndMs: finish.previousEndMs }),
    },
    ...(finish.question !== undefined ? { question: finish.question } : {}),
    thought: finish.thought,
    repairs: finish.repairs ?? [],
    outcome: "finish",
    stopReason: finish.stopReason,
    ...(finish.answer !== undefined ? { answer: finish.answer } : {}),
  };
}

/**
 * The run's input as the question text of its first audit record: a string as is, the `input`
 * (or `question`, or last `messages` entry's content) of an object, else its JSON.
 */
export function contentTextOf(input: unknown): string | undefined {
  if (input === undefined || input === null) return undefined;
  if (typeof input === "string") return input;
  if (typeof input === "object" && !Array.isArray(input)) {
    const values = input as Record<string, unknown>;
    for (const key of ["input", "question", "query"]) if (typeof values[key] === "string") return values[key] as string;
  }
  try {
    return JSON.stringify(input) ?? String(input);
  } catch {
    return String(input);
  }
}

const secretRedactors = new WeakMap<LoopAuditOptions, SecretRedactor>();

function secretRedactorOf(audit: LoopAuditOptions): SecretRedactor {
  let redactor = secretRedactors.get(audit);
  if (redactor === undefined) {
    redactor = createSecretRedactor(audit.secretRedaction ?? {});
    secretRedactors.set(audit, redactor);
  }
  return redactor;
}

/**
 * The redactor a loop controller's events pass (see core's `emitEvent`): the audit's
 * `secretRedaction` when an audit is configured (so its extra patterns cover events too), else
 * the default one.
 */
export function eventRedactorOf(audit: LoopAuditOptions | undefined): SecretRedactor {
  return audit === undefined ? DEFAULT_SECRET_REDACTOR : secretRedactorOf(audit);
}

/**
 * Writes one record to the audit sink, redacted first: the user's `redact`, then secrets (on by
 * default, `audit.secretRedaction`). The one place every audit record of every path
 * (LoopControlHandler, createReactAgent, the createAgent middleware) passes before it is written.
 * What the secret redaction removed is emitted as one `secret_redaction` event (`surface: "audit"`).
 * A throwing sink or redactor is handed to `onError`; the run goes on.
 */
export function writeAuditRecord(audit: LoopAuditOptions | undefined, record: LoopAuditRecord, onError: (error: unknown) => void, emit?: (event: ReinsEvent) => void): void {
  if (audit === undefined) return;
  try {
    const rewritten = audit.redact === undefined ? record : audit.redact(record);
    const { value: redacted, kinds } = secretRedactorOf(audit).redactValue(rewritten);
    if (kinds.length > 0) emit?.({ type: "secret_redaction", surface: "audit", kinds, ...(typeof record.runId === "string" ? { runId: record.runId } : {}) });
    if (typeof audit.sink === "function") audit.sink(redacted);
    else audit.sink.write(`${JSON.stringify(redacted)}\n`);
  } catch (error) {
    onError(error);
  }
}
