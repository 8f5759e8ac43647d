import type { AgentAction, AgentStep } from "@langchain/core/agents";
import { actionKey, type LoopStopDecision, type RunContext, type StopReason, type ToolCallOutcome } from "@reins/core";
import { intendedActionOf } from "./detectors";
import type { ResolvedLoopControlOptions } from "./loop-control-options";
import { simHash } from "./simhash";
import { thoughtOf } from "./thought";
import type { BudgetStopReason, RunStoppedError } from "./errors";
import type { LoopDetection } from "./loop-detection";
import type { SimHash } from "./simhash";

/**
 * The per-run state `LoopControlHandler` keeps: one record per step, the open model calls and the
 * run's usage. The stop bookkeeping on it (`pending`, `deferredStop`, `thrown`, `refused`) is
 * written only by {@link RunStopDecisions} (`stop-decision.ts`).
 */

/** One agent action of a run, with what the handler learnt about it. */
export interface StepState {
  readonly index: number;
  readonly action: AgentAction;
  readonly key: string;
  /** The tool the detectors count: the action's, or for a rejected reply the one it named. */
  readonly toolName: string;
  readonly detected: boolean;
  readonly thought: string;
  readonly thoughtHash: SimHash | undefined;
  readonly startedAtMs: number;
  readonly llmMs: number | undefined;
  readonly cycleMs: number;
  readonly repairs: readonly string[];
  toolRunId?: string;
  toolStartedAtMs?: number;
  toolMs?: number;
  /** The tool's output, loop notes left out (what the detectors compare). */
  observation?: string;
  /** The tool's output as the model read it (loop notes included), for the audit. */
  seenObservation?: string;
  observationFingerprint?: string;
  /** True when this observation's fingerprint had not been seen earlier in the run. */
  novelObservation?: boolean;
  toolError?: boolean;
  /** How the ToolExecutor ended the call (from the run's call records), when it wrapped the tool. */
  callOutcome?: ToolCallOutcome;
  detection?: LoopDetection;
  refused?: boolean;
  stopReason?: StopReason;
  audited?: boolean;
}

export interface LlmRunState {
  readonly startedAtMs: number;
  readonly inputText: string;
  readonly model: string | undefined;
}

export interface RunState {
  readonly runId: string;
  readonly startedAtMs: number;
  /** The top-level chain's inputs (the question), for the audit and content-capturing events. */
  input?: unknown;
  /** The run's answer (the executor's `output`), once known. */
  answer?: unknown;
  /** When the handler last saw a callback of this run (idle eviction). */
  lastSeenAtMs: number;
  /** Nested chain run ids linked to this run, remembered when the run is evicted. */
  readonly chainIds: Set<string>;
  executorRunId?: string;
  readonly steps: StepState[];
  readonly llmRuns: Map<string, LlmRunState>;
  lastLlmMs?: number;
  lastDecisionAtMs: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Builds the stop error thrown at the next model start or action (`mode: "throw"`). */
  pending?: () => RunStoppedError;
  /**
   * A stop decided when the last allowed step was chosen: published to the run context only once
   * that step's tool has run (or the next planning starts), so the step itself is not refused.
   */
  deferredStop?: LoopStopDecision;
  thrown: boolean;
  readonly budgetNotes: Set<BudgetStopReason>;
  /** Fingerprints of every observation seen in the run. */
  readonly observationFingerprints: Set<string>;
  /** Notes this handler queued; removed again from observations before they are compared. */
  readonly issuedNotes: Set<string>;
  finishStopReason?: StopReason;
}

/** A read-only view of a live run, for diagnostics and demos. */
export interface LoopRunSnapshot {
  readonly runId: string;
  readonly steps: number;
  readonly elapsedMs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly stop: RunContext["loop"]["stop"];
  readonly pendingNotes: readonly string[];
}

/** A fresh run's state, started at `now`. */
export function newRunState(runId: string, now: number): RunState {
  return {
    runId,
    startedAtMs: now,
    lastSeenAtMs: now,
    chainIds: new Set(),
    steps: [],
    llmRuns: new Map(),
    lastDecisionAtMs: now,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    thrown: false,
    budgetNotes: new Set(),
    observationFingerprints: new Set(),
    issuedNotes: new Set(),
  };
}

/** The read-only view of `state` at `now`. */
export function snapshotOf(state: RunState, context: RunContext, now: number): LoopRunSnapshot {
  return {
    runId: state.runId,
    steps: state.steps.length,
    elapsedMs: now - state.startedAtMs,
    inputTokens: state.inputTokens,
    outputTokens: state.outputTokens,
    costUsd: state.costUsd,
    stop: context.loop.stop,
    pendingNotes: [...context.loop.pendingNotes],
  };
}

/** Repairs a hand-built agent put on the action (`action.repairs`, string[]), for the audit. */
export function repairsOf(action: AgentAction): readonly string[] {
  const repairs = (action as AgentAction & { repairs?: unknown }).repairs;
  return Array.isArray(repairs) ? repairs.filter((repair): repair is string => typeof repair === "string") : [];
}

/**
 * The tool's own output: the notes the handler queued, which the wrapped tool appended, are
 * removed so they neither make equal results look different nor get quoted back in a note.
 */
export function withoutNotes(state: RunState, observation: string): string {
  let result = observation;
  for (const note of state.issuedNotes) {
    if (result.includes(note)) result = result.split(note).join("");
  }
  return result === observation ? observation : result.trim();
}

/** The steps whose tool ran (refused ones left out), as AgentExecutor's `AgentStep`s. */
export function completedSteps(state: RunState): AgentStep[] {
  return state.steps
    .filter((step) => !step.refused)
    .map((step) => ({ action: step.action, observation: step.observation ?? "" }));
}

/**
 * The record of `action`, chosen at `now`. A skipped step (an ignored tool such as a parse
 * error's `_Exception`) still counts for the detectors when the rejected reply named an action.
 */
export function newStep(
  state: RunState,
  action: AgentAction,
  options: Pick<ResolvedLoopControlOptions, "ignoreTools" | "stall">,
  now: number,
): StepState {
  const thought = thoughtOf(action.log ?? "");
  const ignored = options.ignoreTools.includes(action.tool);
  const intended = ignored ? intendedActionOf(action.log ?? "") : undefined;
  const detected = !ignored || intended !== undefined;
  const counted = intended ?? action;
  return {
    index: state.steps.length,
    action,
    key: actionKey(counted.tool, counted.toolInput),
    toolName: counted.tool,
    detected,
    thought,
    thoughtHash: detected && options.stall !== false ? simHash(thought) : undefined,
    startedAtMs: now,
    llmMs: state.lastLlmMs,
    cycleMs: now - state.lastDecisionAtMs,
    repairs: repairsOf(action),
  };
}

/**
 * The step a tool run named `toolName` (lower-cased) executes: the latest open step (no tool run
 * yet, not refused) calling that tool, else the latest open step.
 */
export function openStepForTool(state: RunState, toolName: string): StepState | undefined {
  const open = state.steps.filter((step) => step.toolRunId === undefined && !step.refused);
  return [...open].reverse().find((candidate) => candidate.action.tool.toLowerCase() === toolName) ?? open[open.length - 1];
}
