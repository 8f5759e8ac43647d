import type { StopReason, ToolCallOutcome } from "@reins/core";

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
 * Content fields (`question`, `thought`, `toolInput`, `observation`, `answer`) hold what the model
 * read and wrote; the audit's `redact` option rewrites them before a record is written.
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
    /**
     * The step's own work: from the start of the model call that chose it to the end of its tool
     * call (the model call alone for a finish; from the previous step's end when the model call was
     * not timed). `reins-trace` shows a step's cycle from the records' `startedAt` instead: from the
     * model reply that chose the step to the next model reply (the next record's `startedAt`), so
     * the cycles of a run add up; this field is the cycle only of a run's last step.
     */
    readonly cycleMs?: number;
  };
  /** The run's input (the question), on the run's first record. */
  readonly question?: string;
  /** The Thought text of the step (may be empty). */
  readonly thought: string;
  /** The tool called (`_Exception` for a parse-error step); absent for a finish. */
  readonly tool?: string;
  readonly toolInput?: unknown;
  /**
   * `createAgent`: the model turn this call belongs to (1-based). The parallel calls of one turn
   * share it; each has its own record and `step`.
   */
  readonly turn?: number;
  /** `createAgent`: the tool call's id (`tool_call_id`). */
  readonly callId?: string;
  /** `fingerprintObservation` of the observation, when the handler saw it. */
  readonly observationFingerprint?: string;
  /** Length of `observation`, in UTF-16 code units. */
  readonly observationChars?: number;
  /**
   * The observation exactly as the model received it: cleaned, with the cleaner's cut and
   * neutralise marks and the loop notes appended to it.
   */
  readonly observation?: string;
  /** Size of the tool's raw result before cleaning, in characters, when the cleaner reported it. */
  readonly observationRawChars?: number;
  /** How the tool call ended (`tool_calls_total`'s `outcome`), when the path learnt it. */
  readonly callOutcome?: ToolCallOutcome;
  /** The step's tool never ran: the run was stopped at it. */
  readonly refused?: boolean;
  /**
   * Repairs applied to this step's action or call: the parser's on the action (`action.repairs`);
   * on `createAgent`, this call's own (its name or arguments repaired, the call rescued from text),
   * never a parallel call's.
   */
  readonly repairs: readonly string[];
  /**
   * `createAgent`: repairs of the model reply as a whole, not of one of its calls (e.g.
   * `duplicate_message_id`: the reply reused an earlier message's id and was kept under a fresh
   * one), on each record of the turn; `reins-trace` shows them once, on the turn. (A finish
   * record's reply repairs are in its `repairs`.)
   */
  readonly replyRepairs?: readonly string[];
  readonly outcome: LoopAuditOutcome;
  /** The loop detection raised at this step, if any. */
  readonly detection?: { readonly kind: "repeat" | "cycle" | "stall"; readonly level: "warn" | "stop"; readonly count: number };
  /** Set on the step where the run was stopped or finished. */
  readonly stopReason?: StopReason;
  /** On the finish record: the final answer, or the graceful stop text the caller received. */
  readonly answer?: string;
}

/** Where audit records go: a function, or a stream-like object that receives one JSON line each. */
export type LoopAuditSink =
  | ((record: LoopAuditRecord) => void)
  | { write(line: string): unknown };
