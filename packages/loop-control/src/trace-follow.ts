/**
 * `reins-trace --follow`: reads an audit trail as it grows, prints each step when its record is
 * written, and a progress line while a run's next step is under way.
 *
 * The trail records a step when its tool call ends (loop control writes one record per step, at
 * the tool's end), so what is running between two records is the next step's model call and then
 * its tool call: the progress line counts from the end of the last recorded step and says so. It
 * cannot name the tool before the step's record arrives.
 */
import type { LoopAuditRecord } from "./audit";
import { appendAll } from "./trace-read";
import { printable, readAuditTrail, stepLinesText } from "./trace-timeline";

/** Options of {@link AuditFollower}. */
export interface AuditFollowerOptions {
  /** Only the run with this id. */
  readonly runId?: string;
  /** Progress lines of an open run: the first after this long without a record, then one per interval, in milliseconds. @default 5000 */
  readonly progressEveryMs?: number;
}

/** What one {@link AuditFollower.push} produced. */
export interface FollowOutput {
  /** Step lines for stdout. */
  readonly out: string;
  /** Skipped-line notes for stderr. */
  readonly err: string;
}

interface FollowedRun {
  readonly startMs: number;
  /** End of the last recorded step: its start plus its tool time, in epoch milliseconds. */
  lastEndMs: number;
  lastStep: number;
  ended: boolean;
  lastProgressAtMs: number | undefined;
}

/**
 * Turns appended chunks of a JSONL audit trail into timeline lines. Chunks may end mid-line (a
 * line is read once its newline arrives, or at {@link AuditFollower.end}).
 */
export class AuditFollower {
  private buffer = "";
  private lineNumber = 0;
  private skippedLines = 0;
  private readonly runs = new Map<string, FollowedRun>();
  /** The run the last record belongs to: the one a progress line is about. */
  private current: string | undefined;
  private readonly runId: string | undefined;
  private readonly progressEveryMs: number;

  constructor(options: AuditFollowerOptions = {}) {
    const everyMs = options.progressEveryMs ?? 5000;
    if (!Number.isFinite(everyMs) || everyMs <= 0) throw new RangeError(`progressEveryMs must be a positive number of milliseconds, got ${String(everyMs)}.`);
    this.runId = options.runId;
    this.progressEveryMs = everyMs;
  }

  /** Lines that were not audit records so far. */
  get skipped(): number {
    return this.skippedLines;
  }

  /** Reads the complete lines of `text` (appended to what came before). */
  push(text: string): FollowOutput {
    this.buffer += text;
    const lines = this.buffer.split("\n");
    this.buffer = lines.pop() ?? "";
    return this.readLines(lines);
  }

  /** Reads a last line that never got its newline. */
  end(): FollowOutput {
    const rest = this.buffer;
    this.buffer = "";
    return this.readLines(rest === "" ? [] : [rest]);
  }

  /**
   * The progress line of the current run, when it has not ended, its last record is at least one
   * interval old, and the last progress line is too; otherwise "".
   *
   * @param nowMs - the reader's clock, in epoch milliseconds
   */
  progress(nowMs: number): string {
    const runId = this.current;
    const run = runId === undefined ? undefined : this.runs.get(runId);
    if (runId === undefined || run === undefined || run.ended) return "";
    const elapsedMs = nowMs - run.lastEndMs;
    if (elapsedMs < this.progressEveryMs) return "";
    if (run.lastProgressAtMs !== undefined && nowMs - run.lastProgressAtMs < this.progressEveryMs) return "";
    run.lastProgressAtMs = nowMs;
    return `  … run ${printable(runId)} step ${run.lastStep + 1} running ${Math.floor(elapsedMs / 1000)} s (its model call or tool call; a step is recorded when its tool ends)\n`;
  }

  private readLines(lines: readonly string[]): FollowOutput {
    const out: string[] = [];
    const err: string[] = [];
    for (const raw of lines) {
      this.lineNumber += 1;
      if (raw.trim() === "") continue;
      const trail = readAuditTrail(raw);
      const skipped = trail.skipped[0];
      if (skipped !== undefined) {
        this.skippedLines += 1;
        err.push(`reins-trace: skipped line ${this.lineNumber}: ${skipped.reason}\n`);
        continue;
      }
      const step = trail.runs[0].steps[0];
      if (this.runId !== undefined && step.runId !== this.runId) continue;
      appendAll(out, this.readStep(step));
    }
    return { out: out.length === 0 ? "" : `${out.join("\n")}\n`, err: err.join("") };
  }

  private readStep(step: LoopAuditRecord): string[] {
    const startedAtMs = Date.parse(step.startedAt);
    const endMs = startedAtMs + (step.durations.toolMs ?? 0);
    let run = this.runs.get(step.runId);
    const out: string[] = [];
    if (run === undefined) {
      run = { startMs: startedAtMs, lastEndMs: endMs, lastStep: step.step, ended: false, lastProgressAtMs: undefined };
      this.runs.set(step.runId, run);
      out.push(`run ${printable(step.runId)} (following)`);
    }
    run.lastEndMs = Math.max(run.lastEndMs, endMs);
    run.lastStep = Math.max(run.lastStep, step.step);
    run.lastProgressAtMs = undefined;
    if (step.stopReason !== undefined) run.ended = true;
    this.current = step.runId;
    appendAll(out, stepLinesText(step, run.startMs));
    return out;
  }
}
