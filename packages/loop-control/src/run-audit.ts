import type { ReinsEvent, StopReason } from "@reins/core";
import type { LoopAuditRecord } from "./audit";
import type { LoopAuditOptions } from "./loop-control-options";
import { EXCEPTION_TOOL_NAME } from "./messages";
import type { RunState, StepState } from "./run-state";
import { finishAuditRecord, contentTextOf, stepAuditRecord, stepEndMs, writeAuditRecord } from "./step-audit";

/**
 * `LoopControlHandler`'s JSONL audit trail: one record per step, written once (when its tool has
 * run, when it was refused, or when the run moves on), redacted by `writeAuditRecord`. A sink that
 * throws is reported to `reportError`, never to the run.
 */
export class RunAudit {
  constructor(
    private readonly audit: LoopAuditOptions | undefined,
    private readonly reportError: (error: unknown) => void,
    private readonly emit?: (event: ReinsEvent) => void,
  ) {}

  /** Writes the record of every step of `state` not written yet. */
  flush(state: RunState): void {
    for (const step of state.steps) if (!step.audited) this.step(state, step);
  }

  /** Writes the record of `step` unless it was written already. */
  step(state: RunState, step: StepState): void {
    if (step.audited) return;
    step.audited = true;
    if (this.audit === undefined) return;
    const previous = state.steps[step.index - 1];
    const question = step.index === 0 ? contentTextOf(state.input) : undefined;
    this.write(
      stepAuditRecord(state.runId, {
        ...step,
        tool: step.action.tool,
        toolInput: step.action.toolInput,
        // What the model read: the tool's output with the notes the wrapped tool appended.
        ...(step.seenObservation !== undefined ? { observation: step.seenObservation } : {}),
        previousEndMs: previous === undefined ? state.startedAtMs : stepEndMs(previous),
        ...(question !== undefined ? { question } : {}),
        refused: step.refused === true,
        failed: step.toolError === true,
        parseError: step.action.tool === EXCEPTION_TOOL_NAME,
      }),
    );
  }

  /**
   * Writes the run's finish record (after the records of its steps): the model's answer, or the
   * answer of a stop. Numbered one past the run's last step record.
   */
  finish(state: RunState, finish: { readonly atMs: number; readonly cycleMs: number; readonly thought: string; readonly stopReason: StopReason; readonly answer: unknown }): void {
    this.flush(state);
    const last = state.steps[state.steps.length - 1];
    const question = last === undefined ? contentTextOf(state.input) : undefined;
    this.write(
      finishAuditRecord({
        runId: state.runId,
        step: state.steps.length + 1,
        atMs: finish.atMs,
        ...(state.lastLlmMs !== undefined ? { llmMs: state.lastLlmMs } : {}),
        cycleMs: finish.cycleMs,
        previousEndMs: last === undefined ? state.startedAtMs : stepEndMs(last),
        thought: finish.thought,
        stopReason: finish.stopReason,
        ...(finish.answer !== undefined ? { answer: contentTextOf(finish.answer) } : {}),
        ...(question !== undefined ? { question } : {}),
      }),
    );
  }

  /** Writes one record. */
  write(record: LoopAuditRecord): void {
    writeAuditRecord(this.audit, record, this.reportError, this.emit);
  }
}
