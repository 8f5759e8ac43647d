import type { AgentAction } from "@langchain/core/agents";
import type { LoopStopDecision, StopReason, ToolCallOutcome } from "@reins/core";
import type { BudgetStopReason, RunStoppedError } from "./errors";
import type { LoopDetection, LoopNote, LoopStepRecord } from "./loop-detection";

/** One step of a run as the controller keeps it (typed facts; no model-facing text). */
export interface TrajectoryStepRecord extends LoopStepRecord {
  readonly index: number;
  readonly action: AgentAction;
  readonly thought: string;
  readonly chosenAtMs: number;
  readonly llmMs: number | undefined;
  readonly cycleMs: number;
  /** Repairs the parser applied to the reply (from its report, not from the action). */
  readonly repairs: readonly string[];
  observation?: string;
  observationFingerprint?: string;
  novelObservation?: boolean;
  toolMs?: number;
  detection?: LoopDetection;
  /** Notes for the model, shown after this step's observation. */
  readonly notes: LoopNote[];
  stopReason?: StopReason;
  /** The call's outcome when the agent learnt it from the tool wrapper: true for failed or refused. */
  failed?: boolean;
  /** The call's typed outcome (`tool_calls_total`'s `outcome`), when the agent learnt it. */
  callOutcome?: ToolCallOutcome;
}

/**
 * The loop state of one run on the callback-free path. Found from the trajectory (see
 * {@link TrajectoryLoopControl.runOf}); freed with the trajectory's objects.
 */
export interface TrajectoryRun {
  /** A random id for events and audit records (no LangChain run id exists on this path). */
  readonly runId: string;
  readonly startedAtMs: number;
  /** The run's input (the executor's input values), for the audit's question. */
  readonly input?: unknown;
  /** Audit records of steps written so far (refused steps included): numbers the next record. */
  auditedSteps: number;
  /** End of the last audited step (its decision plus its tool time), in epoch milliseconds. */
  lastEndMs?: number;
  readonly steps: TrajectoryStepRecord[];
  /** Steps of the executor's trajectory already taken in. */
  seen: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  lastDecisionAtMs: number;
  lastLlmMs?: number;
  readonly budgetNotes: Set<BudgetStopReason>;
  readonly observationFingerprints: Set<string>;
  /** The run's stop decision, once made. Never withdrawn. */
  stop?: LoopStopDecision & { readonly error: RunStoppedError };
  /** A stop decided for the last allowed step: it takes effect once that step has run. */
  deferredStop?: LoopStopDecision & { readonly error: RunStoppedError };
  ended: boolean;
  /** Notes not yet tied to a step (a budget crossed before the run's first action). */
  readonly looseNotes: LoopNote[];
  /** Set while the run waits to be adopted from its rejected first reply (see `rejectedFirstReply`). */
  orphanKey?: string;
}

/** What {@link TrajectoryLoopControl.actionChosen} decided. */
export interface ActionVerdict {
  /** Set when the action must not run: the run stops now, before its tool is called. */
  readonly stop?: LoopStopDecision & { readonly error: RunStoppedError };
}
