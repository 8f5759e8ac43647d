// Kept for @reins/agent-middleware's loop-monitor.ts: the pure detectors (countRepeats, detectCycle,
// countStalledThoughts, toolNameOf, ActionRecord, ThoughtRecord), simHash and the note texts
// (repeatNote, cycleNote, stallNote, budgetNote, previewObservation).
export { LoopControlHandler } from "./loop-control-handler";
export type { LoopRunSnapshot } from "./run-state";
export {
  DEFAULT_LOOP_CONTROL_OPTIONS,
  estimateTokensFromChars,
  resolveLoopControlOptions,
  type LoopAuditOptions,
  type LoopControlOptions,
  type ModelPrice,
  type ResolvedLoopControlOptions,
} from "./loop-control-options";
export {
  countRepeats,
  countStalledThoughts,
  detectCycle,
  toolNameOf,
  type ActionRecord,
  type CycleDetectorOptions,
  type CycleMatch,
  type RepeatDetectorOptions,
  type StallDetectorOptions,
  type ThoughtRecord,
} from "./detectors";
export { simHash, type SimHash } from "./simhash";
export type { LoopAuditOutcome, LoopAuditRecord, LoopAuditSink } from "./audit";
export {
  budgetNote,
  renderLoopNote,
  cycleNote,
  previewObservation,
  repeatNote,
  stallNote,
  type NoteFacts,
} from "./messages";
export {
  BudgetExceededError,
  LoopControlOptionsError,
  LoopStoppedError,
  ReinsLoopControlError,
  RunEvictedError,
  RunStoppedError,
  type BudgetExceededErrorOptions,
  type BudgetStopReason,
  type LoopStopReason,
  type LoopStoppedErrorOptions,
  type ReinsLoopControlErrorOptions,
  type RunEvictedErrorOptions,
  type RunEvictionReason,
  type RunStoppedErrorOptions,
} from "./errors";
export {
  TrajectoryLoopControl,
  type ActionVerdict,
  type TrajectoryRun,
  type TrajectoryStepRecord,
} from "./trajectory-loop-control";
export { detectLoop, type LoopDetection, type LoopDetectionOptions, type LoopNote, type LoopStepRecord } from "./loop-detection";
export { checkStepBudget, checkUsageBudgets, type BudgetDecision, type BudgetOptions, type BudgetStop } from "./budgets";
export { findModelPrice, costUsdOf } from "./model-prices";
export { estimateTokensSafely, modelNameOfReply, usageOfLlmResult, usageOfReply, type TokenUsage } from "./token-usage";
export {
  AUDIT_RECORD_TYPE,
  readAuditTrail,
  turnsOf,
  type AuditRun,
  type AuditTrail,
  type SkippedAuditLine,
  type TraceCall,
  type TraceLabel,
  type TraceRunOutcome,
  type TraceTurn,
} from "./trace-read";
export { renderTimelineText } from "./trace-timeline";
export { renderTimelineHtml } from "./trace-html";
export { contentTextOf, finishAuditRecord, ownCycleMs, stepAuditRecord, writeAuditRecord, type AuditedStep } from "./step-audit";
