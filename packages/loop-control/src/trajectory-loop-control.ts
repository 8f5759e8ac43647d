import { randomUUID } from "node:crypto";
import type { AgentAction, AgentStep } from "@langchain/core/agents";
import { actionKey, emitEvent, fingerprintObservation, outcomeFailed, toolMessageStatusOf, wantsContent, type ReinsEvent, type RunStatus, type StopReason, type ToolCallOutcome } from "@reins/core";
import type { LoopAuditRecord } from "./audit";
import { contentTextOf, eventRedactorOf, finishAuditRecord, stepAuditRecord, stepEndMs, writeAuditRecord } from "./step-audit";
import { checkStepBudget, checkUsageBudgets, type BudgetDecision, type BudgetStop } from "./budgets";
import { intendedActionOf } from "./detectors";
import { BudgetExceededError, LoopStoppedError, type LoopStopReason, type RunStoppedError } from "./errors";
import { detectLoop, type LoopNote } from "./loop-detection";
import { resolveLoopControlOptions, type LoopControlOptions, type ResolvedLoopControlOptions } from "./loop-control-options";
import { EXCEPTION_TOOL_NAME, renderLoopNote } from "./messages";
import { costUsdOf, findModelPrice } from "./model-prices";
import { simHash } from "./simhash";
import { thoughtOf } from "./thought";
import { estimateTokensSafely, modelNameOfReply, textOf, usageOfReply } from "./token-usage";
import { reportToOnError } from "./report-error";
import type { ActionVerdict, TrajectoryRun, TrajectoryStepRecord } from "./trajectory-run";

export type { ActionVerdict, TrajectoryRun, TrajectoryStepRecord } from "./trajectory-run";

/** Most orphaned first-call states kept (a run whose first reply was rejected on `stream()`). */
const MAX_ORPHANS = 1024;

/**
 * Loop control fed by the agent itself, with no LangChain callback handler: the agent calls it
 * before planning (with the executor's trajectory), after the model replies (usage from the
 * reply's `usage_metadata`) and when it has chosen an action. Same detectors, budgets, notes,
 * events and audit records as {@link LoopControlHandler}, from the same pure modules.
 *
 * **Run identity.** A run is found from the trajectory `plan(steps, …)` receives, never from run
 * ids, which LangChain hands out only when callbacks are on: on `invoke()` the executor passes
 * the same `steps` array on every call of a run; on `stream()`/`streamEvents()` it passes a new
 * array each step, holding the same step and action objects. The controller keys each run by
 * those objects (weakly: the state goes with the trajectory). One exception: a run whose *first*
 * reply was rejected on `stream()` starts with an `_Exception` action the executor made, so its
 * first call's state is matched by that action's text (observation and rejected reply); two
 * concurrent runs rejected with the same text at the same moment may swap their first-call
 * timings, never their steps.
 *
 * @example
 * ```ts
 * const loop = new TrajectoryLoopControl({ maxSteps: 8 });
 * const run = loop.runOf(steps);
 * const stop = loop.beforePlan(run, steps); // a decision → return the graceful finish
 * ```
 */
export class TrajectoryLoopControl {
  readonly options: ResolvedLoopControlOptions;
  private readonly runsByKey = new WeakMap<object, TrajectoryRun>();
  private readonly orphans = new Map<string, TrajectoryRun[]>();
  private orphanCount = 0;

  /**
   * @param options - see {@link LoopControlOptions} (`runContext`, `runIdleTimeoutMs` and
   *   `maxActiveRuns` do not apply: no registry is kept)
   * @throws {LoopControlOptionsError} when an option is invalid (naming the field)
   */
  constructor(options: LoopControlOptions = {}) {
    this.options = resolveLoopControlOptions(options);
  }

  /**
   * The run a trajectory belongs to, created when the trajectory is new.
   * @param steps - the steps the executor passed to `plan` (AgentStep[])
   * @param input - the run's input (the executor's input values): the question of the audit's first
   *   record and, when a target captures content, of `run_start`
   */
  runOf(steps: readonly AgentStep[], input?: unknown): TrajectoryRun {
    let run = this.runsByKey.get(steps);
    if (run === undefined && steps.length > 0) {
      run = this.runsByKey.get(steps[steps.length - 1].action) ?? this.runsByKey.get(steps[0].action);
      if (run === undefined && steps[0].action.tool === EXCEPTION_TOOL_NAME) run = this.adoptOrphan(steps[0].action);
    }
    if (run === undefined) run = this.startRun(input);
    // Found another way (invoke()'s array): no longer waiting to be adopted by a stream() step.
    if (run.orphanKey !== undefined && steps.length > 0) this.dropOrphan(run);
    this.runsByKey.set(steps, run);
    return run;
  }

  /**
   * Takes in the steps completed since the last planning call (observations, timings, parse-error
   * steps the executor made), publishes a stop deferred to them, and checks the time budget.
   *
   * @param outcomeOf - the typed outcome of a step's call (`tool_calls_total`'s `outcome`), or
   *   only whether it failed, when the caller knows it (from the tool wrapper): kept on the step
   *   for the audit (a timeout reads "timeout") and the graceful answer
   * @returns the run's stop decision when it must end now (return the graceful finish)
   */
  beforePlan(run: TrajectoryRun, steps: readonly AgentStep[], outcomeOf?: (step: AgentStep) => ToolCallOutcome | boolean | undefined): TrajectoryRun["stop"] {
    for (let index = run.seen; index < steps.length; index += 1) this.takeStep(run, steps[index], outcomeOf);
    run.seen = Math.max(run.seen, steps.length);
    if (run.deferredStop !== undefined) {
      run.stop ??= run.deferredStop;
      run.deferredStop = undefined;
    }
    if (run.stop === undefined) this.applyUsageBudgets(run, undefined);
    return run.stop;
  }

  /**
   * Records a model reply: its duration, its token usage from the reply's metadata (estimated when
   * absent), its cost; checks the token and cost budgets (a stop waits for the step the reply chooses).
   * @param reply - the model's reply (`AIMessage`, concatenated chunks, or an LLM's string)
   * @param inputText - the prompt text (for the token estimate; only built when the reply has no usage)
   * @param durationMs - how long the model call took
   * @param requestedModel - the agent's `llm.model`, priced when the reply reports none (`findModelPrice`)
   */
  modelReplied(run: TrajectoryRun, reply: unknown, inputText: () => string, durationMs: number, requestedModel?: string): void {
    run.lastLlmMs = durationMs;
    this.emit({ type: "step_duration", runId: run.runId, phase: "llm", durationMs });
    const usage = usageOfReply(reply, inputText, (text) => estimateTokensSafely(this.options.estimateTokens, text, (error) => this.reportError(error)));
    run.inputTokens += usage.inputTokens;
    run.outputTokens += usage.outputTokens;
    const price = findModelPrice(this.options.prices, [modelNameOfReply(reply), requestedModel]);
    if (price !== undefined) run.costUsd += costUsdOf(usage, price);
    this.emit({ type: "token_usage", runId: run.runId, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, estimated: usage.estimated });
    if (run.stop === undefined && run.deferredStop === undefined) this.applyUsageBudgets(run, undefined, false);
  }

  /**
   * Runs the detectors and budgets on the action the agent has chosen, before its tool runs.
   * @param repairs - the parser's repairs for the reply
   * @returns a stop when the action must not run
   */
  actionChosen(run: TrajectoryRun, action: AgentAction, repairs: readonly string[] = []): ActionVerdict {
    const step = this.addStep(run, action, repairs);
    this.runsByKey.set(action, run);
    return { stop: this.decide(run, step) };
  }

  /**
   * The model-facing notes to show after a step's observation, as typed records (render them with
   * `renderLoopNote`). Notes decided before the run's first step are returned for the first step.
   */
  notesOf(run: TrajectoryRun, action: AgentAction): readonly LoopNote[] {
    const step = run.steps.find((candidate) => candidate.action === action);
    if (step === undefined) return [];
    if (step.index === 0 && run.looseNotes.length > 0) return [...run.looseNotes, ...step.notes];
    return step.notes;
  }

  /**
   * The failed/succeeded outcome of a step's call, when the agent learnt it (typed, from the
   * tool wrapper), for the graceful answer's findings.
   */
  setOutcome(run: TrajectoryRun, action: AgentAction, failed: boolean): void {
    const step = run.steps.find((candidate) => candidate.action === action);
    if (step !== undefined) step.failed = failed;
  }

  /**
   * Ends a run the agent finished: a model's final answer (`final_answer`), or a stop decision.
   * Emits the finish step (a model turn only: not a stop, nor a `returnDirect` tool's result)
   * and `run_end`; writes the finish audit record.
   * @param answer - the answer the caller gets (the model's, or the graceful stop text)
   */
  finished(run: TrajectoryRun, stopReason: StopReason, log: string, modelTurn = stopReason === "final_answer", answer?: unknown): void {
    if (run.ended) return;
    const now = this.options.now();
    const cycleMs = now - run.lastDecisionAtMs;
    const answered = stopReason === "final_answer";
    if (modelTurn) {
      this.emit({ type: "step", runId: run.runId, step: "thought" });
      this.emit({ type: "step_duration", runId: run.runId, phase: "cycle", durationMs: cycleMs });
      this.emit({ type: "step", runId: run.runId, step: "finish" });
    }
    for (const step of run.steps) this.audit(run, step);
    const answerText = answer === undefined ? undefined : contentTextOf(answer);
    const question = run.auditedSteps === 0 ? contentTextOf(run.input) : undefined;
    this.writeAudit(
      finishAuditRecord({
        runId: run.runId,
        // One past the last record written (a refused step left run.steps but has its record).
        step: run.auditedSteps + 1,
        atMs: now,
        ...(run.lastLlmMs !== undefined ? { llmMs: run.lastLlmMs } : {}),
        cycleMs,
        previousEndMs: run.lastEndMs ?? run.startedAtMs,
        thought: modelTurn ? thoughtOf(log) : "",
        stopReason,
        ...(answerText !== undefined ? { answer: answerText } : {}),
        ...(question !== undefined ? { question } : {}),
      }),
    );
    this.endRun(run, answered ? "success" : "stopped", stopReason, answerText);
  }

  /** Ends a run whose planning failed with an error that is not a parse error. */
  failed(run: TrajectoryRun): void {
    if (!run.ended) this.endRun(run, "error", "error");
  }

  /**
   * Remembers the state of a run whose first reply was rejected, so the next planning call, on
   * `stream()`, finds it from the `_Exception` action the executor builds from the rejection.
   * @param observation - the rejection's `observation` (the executor's `toolInput`)
   * @param llmOutput - the rejected reply (the executor's `log`)
   */
  rejectedFirstReply(run: TrajectoryRun, observation: string, llmOutput: string): void {
    if (run.steps.length > 0 || run.seen > 0) return;
    const key = `${observation}\u0000${llmOutput}`;
    if (run.orphanKey !== undefined) return;
    run.orphanKey = key;
    const list = this.orphans.get(key);
    if (list === undefined) this.orphans.set(key, [run]);
    else list.push(run);
    this.orphanCount += 1;
    while (this.orphanCount > MAX_ORPHANS) {
      const oldestKey = this.orphans.keys().next().value;
      if (oldestKey === undefined) break;
      const oldest = this.orphans.get(oldestKey) ?? [];
      const dropped = oldest.shift();
      if (dropped !== undefined) dropped.orphanKey = undefined;
      this.orphanCount -= 1;
      if (oldest.length === 0) this.orphans.delete(oldestKey);
    }
  }

  // ---------------------------------------------------------------------------------------------

  private startRun(input: unknown): TrajectoryRun {
    const now = this.options.now();
    const run: TrajectoryRun = {
      runId: randomUUID(),
      startedAtMs: now,
      input,
      auditedSteps: 0,
      steps: [],
      seen: 0,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      lastDecisionAtMs: now,
      budgetNotes: new Set(),
      observationFingerprints: new Set(),
      ended: false,
      looseNotes: [],
    };
    const content = input !== undefined && this.wantsContent() ? { input: contentTextOf(input) } : {};
    this.emit({ type: "run_start", runId: run.runId, ...content });
    return run;
  }

  private adoptOrphan(action: AgentAction): TrajectoryRun | undefined {
    const key = `${typeof action.toolInput === "string" ? action.toolInput : textOf(action.toolInput)}\u0000${action.log ?? ""}`;
    const list = this.orphans.get(key);
    const run = list?.shift();
    if (run === undefined) return undefined;
    run.orphanKey = undefined;
    this.orphanCount -= 1;
    if (list !== undefined && list.length === 0) this.orphans.delete(key);
    return run;
  }

  private dropOrphan(run: TrajectoryRun): void {
    const key = run.orphanKey;
    if (key === undefined) return;
    run.orphanKey = undefined;
    const list = this.orphans.get(key);
    const index = list?.indexOf(run) ?? -1;
    if (list === undefined || index < 0) return;
    list.splice(index, 1);
    this.orphanCount -= 1;
    if (list.length === 0) this.orphans.delete(key);
  }

  /** Takes in one completed step of the trajectory. */
  private takeStep(run: TrajectoryRun, agentStep: AgentStep, outcomeOf?: (step: AgentStep) => ToolCallOutcome | boolean | undefined): void {
    let step = run.steps.find((candidate) => candidate.action === agentStep.action);
    if (step === undefined) {
      // A step the agent did not choose: the executor's parse-error step (or a trajectory handed
      // in from elsewhere). Counted and checked like any step, after the fact.
      step = this.addStep(run, agentStep.action, []);
      this.runsByKey.set(agentStep.action, run);
      this.decide(run, step, true);
    }
    if (step.observation !== undefined) return;
    const known = outcomeOf?.(agentStep);
    if (typeof known === "string") {
      step.callOutcome = known;
      step.failed = outcomeFailed(known);
    } else if (known !== undefined) step.failed = known;
    const now = this.options.now();
    const observation = textOf(agentStep.observation);
    step.observation = observation;
    step.observationFingerprint = fingerprintObservation(observation);
    step.novelObservation = !run.observationFingerprints.has(step.observationFingerprint);
    run.observationFingerprints.add(step.observationFingerprint);
    if (step.action.tool !== EXCEPTION_TOOL_NAME) {
      step.toolMs = Math.max(0, now - step.chosenAtMs);
      this.emit({ type: "step_duration", runId: run.runId, phase: "tool", durationMs: step.toolMs });
      this.emit({ type: "step", runId: run.runId, step: "observation" });
    }
  }

  private addStep(run: TrajectoryRun, action: AgentAction, repairs: readonly string[]): TrajectoryStepRecord {
    const now = this.options.now();
    const thought = thoughtOf(action.log ?? "");
    const ignored = this.options.ignoreTools.includes(action.tool);
    const intended = ignored ? intendedActionOf(action.log ?? "") : undefined;
    const detected = !ignored || intended !== undefined;
    const counted = intended ?? action;
    const step: TrajectoryStepRecord = {
      index: run.steps.length,
      action,
      key: actionKey(counted.tool, counted.toolInput),
      toolName: counted.tool,
      detected,
      thought,
      thoughtHash: detected && this.options.stall !== false ? simHash(thought) : undefined,
      chosenAtMs: now,
      llmMs: run.lastLlmMs,
      cycleMs: now - run.lastDecisionAtMs,
      repairs,
      notes: [],
    };
    run.lastLlmMs = undefined;
    run.lastDecisionAtMs = now;
    run.steps.push(step);
    this.emit({ type: "step", runId: run.runId, step: "thought" });
    if (action.tool !== EXCEPTION_TOOL_NAME) this.emit({ type: "step", runId: run.runId, step: "action" });
    this.emit({ type: "step_duration", runId: run.runId, phase: "cycle", durationMs: step.cycleMs });
    return step;
  }

  /**
   * Detectors, then the step budget, then the usage budgets. `afterTheFact` is for a step that has
   * already run (a parse-error step): a stop then takes effect at once, nothing is refused.
   */
  private decide(run: TrajectoryRun, step: TrajectoryStepRecord, afterTheFact = false): ActionVerdict["stop"] {
    if (run.stop !== undefined) return afterTheFact ? undefined : run.stop;
    const detection = detectLoop(run.steps.slice(0, -1), step, this.options);
    if (detection !== undefined) {
      step.detection = detection;
      this.emit({ type: "loop_detection", runId: run.runId, kind: detection.kind, level: detection.level });
      if (detection.level === "stop") {
        const error = new LoopStoppedError({
          stopReason: detection.kind as LoopStopReason,
          runId: run.runId,
          steps: this.completedSteps(run),
          action: step.action,
          repetitions: detection.count,
          ...(detection.period !== undefined ? { period: detection.period } : {}),
          ...(detection.sameResult === true ? { sameResult: true } : {}),
        });
        return this.stopNow(run, step, error, !afterTheFact);
      }
      if (detection.note !== undefined) step.notes.push(detection.note);
    }
    const stepBudget = checkStepBudget(run.steps.length, this.options, run.budgetNotes);
    this.addBudgetNotes(run, step, stepBudget);
    if (stepBudget.stop !== undefined) {
      const error = this.budgetError(run, stepBudget.stop);
      if (stepBudget.stop.refuseStep && !afterTheFact) return this.stopNow(run, step, error);
      step.stopReason = error.stopReason;
      run.deferredStop ??= { reason: error.stopReason, message: error.message, error };
      return undefined;
    }
    return this.applyUsageBudgets(run, afterTheFact ? undefined : step);
  }

  /** Time, token and cost budgets; a stop refuses `refuseStep` when given, else takes effect next. */
  private applyUsageBudgets(run: TrajectoryRun, refuseStep: TrajectoryStepRecord | undefined, now = true): ActionVerdict["stop"] {
    const usage = { elapsedMs: this.options.now() - run.startedAtMs, tokens: run.inputTokens + run.outputTokens, costUsd: run.costUsd };
    const decision = checkUsageBudgets(usage, this.options, run.budgetNotes, refuseStep !== undefined);
    this.addBudgetNotes(run, refuseStep ?? run.steps[run.steps.length - 1], decision);
    if (decision.stop === undefined) return undefined;
    const error = this.budgetError(run, decision.stop);
    if (refuseStep !== undefined) return this.stopNow(run, refuseStep, error);
    const stop = { reason: error.stopReason, message: error.message, error };
    if (now) run.stop ??= stop;
    else run.deferredStop ??= stop;
    return undefined;
  }

  private addBudgetNotes(run: TrajectoryRun, step: TrajectoryStepRecord | undefined, decision: BudgetDecision): void {
    for (const note of decision.notes) {
      run.budgetNotes.add(note.budget);
      (step?.notes ?? run.looseNotes).push(note);
    }
  }

  private stopNow(run: TrajectoryRun, step: TrajectoryStepRecord, error: RunStoppedError, refuse = true): TrajectoryRun["stop"] {
    step.stopReason = error.stopReason;
    run.stop ??= { reason: error.stopReason, message: error.message, error };
    if (!refuse) return undefined;
    // The refused action never runs: it leaves the run's steps (it stays in the audit, in order).
    for (const earlier of run.steps) if (earlier !== step) this.audit(run, earlier);
    this.audit(run, step, true);
    run.steps.splice(run.steps.indexOf(step), 1);
    return run.stop;
  }

  private budgetError(run: TrajectoryRun, stop: BudgetStop): BudgetExceededError {
    return new BudgetExceededError({ stopReason: stop.reason, runId: run.runId, steps: this.completedSteps(run), limit: stop.limit, used: stop.used });
  }

  private completedSteps(run: TrajectoryRun): AgentStep[] {
    return run.steps.filter((step) => step.observation !== undefined).map((step) => ({ action: step.action, observation: step.observation ?? "" }));
  }

  private readonly audited = new WeakSet<TrajectoryStepRecord>();

  private audit(run: TrajectoryRun, step: TrajectoryStepRecord, refused = false): void {
    if (this.audited.has(step) || (!refused && step.observation === undefined)) return;
    this.audited.add(step);
    const previousEndMs = run.lastEndMs ?? run.startedAtMs;
    run.lastEndMs = stepEndMs({ startedAtMs: step.chosenAtMs, ...(step.toolMs !== undefined ? { toolMs: step.toolMs } : {}) });
    run.auditedSteps += 1;
    if (this.options.audit === undefined) return;
    const question = run.auditedSteps === 1 ? contentTextOf(run.input) : undefined;
    this.writeAudit(
      stepAuditRecord(run.runId, {
        ...step,
        index: run.auditedSteps - 1,
        // What the model read: the observation, then the loop notes the scratchpad shows after it.
        ...(step.observation !== undefined ? { observation: [step.observation, this.notesOf(run, step.action).map(renderLoopNote).join("\n")].filter((part) => part !== "").join("\n\n") } : {}),
        previousEndMs,
        ...(question !== undefined ? { question } : {}),
        startedAtMs: step.chosenAtMs,
        tool: step.action.tool,
        toolInput: step.action.toolInput,
        refused,
        // A failed call is one whose ToolMessage would be an error (a dry run is not), as on every path.
        failed: step.callOutcome !== undefined ? toolMessageStatusOf(step.callOutcome) === "error" : step.failed === true,
        parseError: step.action.tool === EXCEPTION_TOOL_NAME,
      }),
    );
  }

  private writeAudit(record: LoopAuditRecord): void {
    writeAuditRecord(this.options.audit, record, (error) => this.reportError(error), (event) => this.emit(event));
  }

  private endRun(run: TrajectoryRun, status: RunStatus, stopReason: StopReason, answer?: string): void {
    run.ended = true;
    const content = answer !== undefined && this.wantsContent() ? { output: answer } : {};
    this.emit({ type: "run_end", runId: run.runId, status, stopReason, durationMs: this.options.now() - run.startedAtMs, ...content });
  }

  /** True when a target asks for content (the run's input and answer on `run_start`/`run_end`). */
  private wantsContent(): boolean {
    return wantsContent([this.options.metrics, this.options.onEvent]);
  }

  private emit(event: ReinsEvent): void {
    emitEvent(event, [this.options.metrics, this.options.onEvent], (error) => this.reportError(error), eventRedactorOf(this.options.audit));
  }

  private reportError(error: unknown): void {
    reportToOnError(this.options.onError, error, "TrajectoryLoopControl");
  }
}
