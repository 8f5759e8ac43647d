import type { LoopAuditRecord } from "./audit";
import type { LoopAuditOptions } from "./loop-control-options";
import { EXCEPTION_TOOL_NAME } from "./messages";
import type { RunState, StepState } from "./run-state";
import { stepAuditRecord, writeAuditRecord } from "./step-audit";

/**
 * `LoopControlHandler`'s JSONL audit trail: one record per step, written once (when its tool has
 * run, when it was refused, or when the run moves on), redacted by `writeAuditRecord`. A sink that
 * throws is reported to `reportError`, never to the run.
 */
export class RunAudit {
  constructor(
    private readonly audit: LoopAuditOptions | undefined,
    private readonly reportError: (error: unknown) => void,
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
    this.write(
      stepAuditRecord(state.runId, {
        ...step,
        tool: step.action.tool,
        toolInput: step.action.toolInput,
        refused: step.refused === true,
        failed: step.toolError === true,
        parseError: step.action.tool === EXCEPTION_TOOL_NAME,
      }),
    );
  }

  /** Writes one record. */
  write(record: LoopAuditRecord): void {
    writeAuditRecord(this.audit, record, this.reportError);
  }
}
