import type { StopReason } from "@reins/core";

/** How a step ended, as the audit trail records it. */
export type LoopAuditOutcome =
  | "observed"
  | "warned"
  | "stopped"
  | "tool_error"
  | "parse_error"
  | "finish";

/**
 * One structured record per step of a run. Timings are milliseconds; `startedAt` is ISO-8601.
 * The observation itself is not recorded, only its fingerprint and size.
 */
export interface LoopAuditRecord {
  readonly type: "reins.loop_control.step";
  /** The top-level run id. */
  readonly runId: string;
  /** 1-based step number within the run. */
  readonly step: number;
  readonly startedAt: string;
  readonly durations: {
    /** The model call that produced this step. */
    readonly llmMs?: number;
    /** The tool call. */
    readonly toolMs?: number;
    /** Since the previous step's decision (or the run's start). */
    readonly cycleMs?: number;
  };
  /** The Thought text of the step (may be empty). */
  readonly thought: string;
  /** The tool called (`_Exception` for a parse-error step); absent for a finish. */
  readonly tool?: string;
  readonly toolInput?: unknown;
  /** `fingerprintObservation` of the observation, when the handler saw it. */
  readonly observationFingerprint?: string;
  readonly observationChars?: number;
  /** Repairs the parser reported on the action (`action.repairs`), if any. */
  readonly repairs: readonly string[];
  readonly outcome: LoopAuditOutcome;
  /** The loop detection raised at this step, if any. */
  readonly detection?: { readonly kind: "repeat" | "cycle" | "stall"; readonly level: "warn" | "stop"; readonly count: number };
  /** Set on the step where the run was stopped or finished. */
  readonly stopReason?: StopReason;
}

/** Where audit records go: a function, or a stream-like object that receives one JSON line each. */
export type LoopAuditSink =
  | ((record: LoopAuditRecord) => void)
  | { write(line: string): unknown };
