import type { StopReason } from "@reins/core";
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
  readonly detection?: LoopDetection;
  readonly stopReason?: StopReason;
  /** The step's tool never ran: the run was stopped at it. */
  readonly refused: boolean;
  /** The call failed (a tool error, or a failed outcome the tool wrapper reported). */
  readonly failed: boolean;
  /** The step is the executor's parse-error step. */
  readonly parseError: boolean;
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
      cycleMs: step.cycleMs,
    },
    thought: step.thought,
    tool: step.tool,
    toolInput: step.toolInput,
    ...(step.observationFingerprint !== undefined
      ? { observationFingerprint: step.observationFingerprint, observationChars: step.observation?.length ?? 0 }
      : {}),
    repairs: step.repairs,
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
  readonly cycleMs: number;
  readonly thought: string;
  readonly stopReason: StopReason;
}): LoopAuditRecord {
  return {
    type: "reins.loop_control.step",
    runId: finish.runId,
    step: finish.step,
    startedAt: new Date(finish.atMs).toISOString(),
    durations: { ...(finish.llmMs !== undefined ? { llmMs: finish.llmMs } : {}), cycleMs: finish.cycleMs },
    thought: finish.thought,
    repairs: [],
    outcome: "finish",
    stopReason: finish.stopReason,
  };
}

/**
 * Writes one record to the audit sink, redacted first. A throwing sink or redactor is handed to
 * `onError`; the run goes on.
 */
export function writeAuditRecord(audit: LoopAuditOptions | undefined, record: LoopAuditRecord, onError: (error: unknown) => void): void {
  if (audit === undefined) return;
  try {
    const redacted = audit.redact === undefined ? record : audit.redact(record);
    if (typeof audit.sink === "function") audit.sink(redacted);
    else audit.sink.write(`${JSON.stringify(redacted)}\n`);
  } catch (error) {
    onError(error);
  }
}
