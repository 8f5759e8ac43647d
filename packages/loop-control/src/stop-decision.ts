import type { ReinsEvent, RunContext } from "@reins/core";
import { checkStepBudget, checkUsageBudgets, type BudgetDecision } from "./budgets";
import { BudgetExceededError, LoopStoppedError, type BudgetStopReason, type LoopStopReason, type RunStoppedError } from "./errors";
import { detectLoop } from "./loop-detection";
import type { ResolvedLoopControlOptions } from "./loop-control-options";
import { renderLoopNote } from "./messages";
import { completedSteps, type RunState, type StepState } from "./run-state";

/** What {@link RunStopDecisions} needs from its handler. */
export interface RunStopDecisionsDeps {
  readonly options: ResolvedLoopControlOptions;
  /** Emits a Reins event (`loop_detection`). */
  readonly emit: (event: ReinsEvent) => void;
  /** Writes the audit record of a refused step. */
  readonly audit: (state: RunState, step: StepState) => void;
}

/**
 * The one stop decision object of `LoopControlHandler`: it runs the loop detectors and budgets on
 * a step, queues notes, and owns the stop bookkeeping of a run — `RunContext.loop.stop`, the stop
 * deferred until the last allowed step has run (`deferredStop`), the error kept for the next model
 * start or action in `mode: "throw"` (`pending`), and whether it was thrown (`thrown`, a step's
 * `refused`).
 */
export class RunStopDecisions {
  constructor(private readonly deps: RunStopDecisionsDeps) {}

  /**
   * The kept stop error to throw now (`mode: "throw"`, not yet thrown), or `undefined`. With
   * `step` (a new action), the step is refused.
   */
  pendingError(state: RunState, step?: StepState): RunStoppedError | undefined {
    if (this.deps.options.mode !== "throw" || state.pending === undefined || state.thrown) return undefined;
    return step === undefined ? state.pending() : this.refuse(state, step, state.pending);
  }

  /** Runs loop detectors and budgets for a new step; returns the error to throw, if any. */
  decide(state: RunState, context: RunContext, step: StepState): RunStoppedError | undefined {
    const detection = detectLoop(state.steps.slice(0, -1), step, this.deps.options);
    if (detection !== undefined) {
      step.detection = detection;
      this.deps.emit({ type: "loop_detection", runId: state.runId, kind: detection.kind, level: detection.level });
      if (detection.level === "stop") {
        const makeError = (): RunStoppedError =>
          new LoopStoppedError({
            stopReason: detection.kind as LoopStopReason,
            runId: state.runId,
            steps: completedSteps(state),
            action: step.action,
            repetitions: detection.count,
            ...(detection.period !== undefined ? { period: detection.period } : {}),
            ...(detection.sameResult === true ? { sameResult: true } : {}),
          });
        const error = this.stop(state, context, step, makeError, true);
        if (error !== undefined) return error;
      } else if (detection.note !== undefined) {
        this.addNote(state, context, renderLoopNote(detection.note));
      }
    }
    // Step budget: a step past the limit is refused; the step that reaches it is the last one.
    const stepBudget = checkStepBudget(state.steps.length, this.deps.options, state.budgetNotes);
    if (stepBudget.stop !== undefined && context.loop.stop === undefined) {
      const { reason, limit, used, refuseStep } = stepBudget.stop;
      const error = this.stop(state, context, step, () => this.budgetError(state, reason, limit, used), refuseStep);
      if (refuseStep) return error;
    }
    this.addBudgetNotes(state, context, stepBudget.notes);
    return this.checkBudgets(state, context, step);
  }

  private budgetError(state: RunState, stopReason: BudgetStopReason, limit: number, used: number): BudgetExceededError {
    return new BudgetExceededError({ stopReason, runId: state.runId, steps: completedSteps(state), limit, used });
  }

  /**
   * Checks time, token and cost budgets. With `refuseStep` (a new action), a used-up budget
   * refuses it at once in `mode: "throw"`; otherwise the stop waits for the next model start or
   * action.
   */
  checkBudgets(state: RunState, context: RunContext, refuseStep?: StepState): RunStoppedError | undefined {
    if (context.loop.stop !== undefined) return undefined;
    const usage = { elapsedMs: this.deps.options.now() - state.startedAtMs, tokens: state.inputTokens + state.outputTokens, costUsd: state.costUsd };
    const decision = checkUsageBudgets(usage, this.deps.options, state.budgetNotes, refuseStep !== undefined);
    this.addBudgetNotes(state, context, decision.notes);
    if (decision.stop === undefined) return undefined;
    const { reason, limit, used } = decision.stop;
    const step = refuseStep ?? state.steps[state.steps.length - 1];
    return this.stop(state, context, step, () => this.budgetError(state, reason, limit, used), refuseStep !== undefined);
  }

  private addBudgetNotes(state: RunState, context: RunContext, notes: BudgetDecision["notes"]): void {
    for (const note of notes) {
      state.budgetNotes.add(note.budget);
      this.addNote(state, context, renderLoopNote(note));
    }
  }

  /**
   * Records a stop decision in `RunContext.loop.stop`. In `mode: "throw"`, returns the error to
   * throw now when `refuse` (the step's tool never runs), or keeps it for the next model start or
   * action.
   */
  private stop(
    state: RunState,
    context: RunContext,
    step: StepState | undefined,
    makeError: () => RunStoppedError,
    refuse: boolean,
  ): RunStoppedError | undefined {
    const refusing = refuse && step !== undefined && this.deps.options.mode === "throw" && !state.thrown;
    if (refusing) step.refused = true;
    const decision = makeError();
    if (context.loop.stop === undefined) {
      const stop = { reason: decision.stopReason, message: decision.message };
      // The step that reaches a limit still runs: wrapped tools refuse calls once a stop is set.
      if (refuse || step === undefined) context.loop.stop = stop;
      else state.deferredStop ??= stop;
    }
    if (step !== undefined) step.stopReason = decision.stopReason;
    if (this.deps.options.mode !== "throw" || state.thrown) return undefined;
    if (!refusing) {
      state.pending ??= makeError;
      return undefined;
    }
    return this.refuse(state, step, makeError);
  }

  /** Publishes a stop decided for the last allowed step, once that step has run. */
  publishDeferred(state: RunState, context: RunContext): void {
    if (state.deferredStop === undefined) return;
    context.loop.stop ??= state.deferredStop;
    state.deferredStop = undefined;
  }

  /** Marks `step` as refused (its tool never runs) and returns the error to throw. */
  private refuse(state: RunState, step: StepState, makeError: () => RunStoppedError): RunStoppedError {
    step.refused = true;
    state.thrown = true;
    const error = makeError();
    step.stopReason = error.stopReason;
    this.deps.audit(state, step);
    return error;
  }

  /** Queues a note for the model's next observation (appended by Reins' wrapped tools). */
  private addNote(state: RunState, context: RunContext, note: string): void {
    context.loop.pendingNotes.push(note);
    state.issuedNotes.add(note);
  }
}
