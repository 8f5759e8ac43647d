import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { ChainValues } from "@langchain/core/utils/types";
import { RunContextStore, emitEvent, fingerprintObservation, runCallOf, toolMessageStatusOf, wantsContent, type ReinsEvent, type RunStatus, type StopReason } from "@reins/core";
import { contentTextOf, eventRedactorOf } from "./step-audit";
import { RunEvictedError, RunStoppedError } from "./errors";
import { EXCEPTION_TOOL_NAME } from "./messages";
import { costUsdOf, findModelPrice } from "./model-prices";
import { RunRegistry } from "./run-registry";
import { reportToOnError } from "./report-error";
import { finishKindOf, runEndOf } from "./run-outcome";
import { RunAudit } from "./run-audit";
import { newRunState, newStep, openStepForTool, snapshotOf, withoutNotes, type LoopRunSnapshot, type RunState, type StepState } from "./run-state";
import { RunStopDecisions } from "./stop-decision";
import { thoughtOf } from "./thought";
import { estimateTokensSafely, modelNameFrom, modelNamesOfLlmResult, textOf, usageOfLlmResult } from "./token-usage";
import { resolveLoopControlOptions, type LoopControlOptions, type ResolvedLoopControlOptions } from "./loop-control-options";

/**
 * A LangChain callback handler that ends ReAct runs that loop or overrun their budgets — the
 * brake `AgentExecutor` lacks beyond `maxIterations`.
 *
 * Per run (one top-level `AgentExecutor` invocation, found through `@reins/core`'s
 * `RunContextStore`; nested LLM, tool and chain runs are linked to it) it watches every agent
 * action and:
 * - **repeat**: the same tool with the same normalised input (`actionKey`) — warns at the 2nd
 *   call, stops at the 3rd (CrewAI's last-call guard, made run-wide and optionally
 *   observation-aware so polling is not flagged);
 * - **cycle**: the recent actions repeat with a period of 2..5 (A→B→A→B, after Gemini CLI's loop
 *   detector) — warns at 2 full periods, stops at 3; a repeat stop inside such a cycle is reported
 *   as a cycle;
 * - **stall**: near-duplicate Thought text (64-bit SimHash) — warns at 3, stops at 5;
 * - **budgets**: `maxSteps`, `maxDurationMs`, `maxTokens` (provider usage, estimated when absent),
 *   `maxCostUsd` (with `prices`), with one "answer soon" note at 80 %.
 *
 * A warning is a note in `RunContext.loop.pendingNotes`, which Reins' wrapped tools append to the
 * next observation. A stop sets `RunContext.loop.stop`; in `mode: "throw"` (the default) the
 * handler also throws {@link LoopStoppedError} or {@link BudgetExceededError} (both
 * {@link RunStoppedError}, carrying `stopReason` and the completed steps) from `handleAgentAction`
 * or the next model start — callbacks the executor awaits, on both `invoke()` and `stream()`. The
 * handler is constructed with `raiseError: true`, without which LangChain logs and swallows a
 * handler's throw. In `mode: "finish"` it never throws: Reins' agent sees the decision before
 * planning and returns `buildLoopStopFinish(...)` from `@reins/core`.
 *
 * Attach it in the `callbacks` of `invoke`/`stream` (it then sees model and tool runs too: token
 * usage, observations, timings). Attached to the executor's constructor only, it sees actions but
 * not observations or tokens.
 *
 * Events (`metrics`, `onEvent`): `run_start`, `run_end`, `step` (thought per model turn, action,
 * observation, finish), `step_duration` (llm, tool, cycle), `token_usage`, `loop_detection`.
 *
 * @example
 * ```ts
 * import { AgentExecutor, createReactAgent } from "@langchain/classic/agents";
 * import { LoopControlHandler, RunStoppedError } from "@reins/loop-control";
 *
 * const executor = new AgentExecutor({ agent: await createReactAgent({ llm, tools, prompt }), tools });
 * try {
 *   const result = await executor.invoke({ input }, { callbacks: [new LoopControlHandler({ maxSteps: 8 })] });
 * } catch (error) {
 *   if (!RunStoppedError.isInstance(error)) throw error;
 *   console.warn(`stopped: ${error.stopReason}`, error.steps);
 * }
 * ```
 */
export class LoopControlHandler extends BaseCallbackHandler {
  name = "LoopControlHandler";
  /** The resolved options. */
  readonly options: ResolvedLoopControlOptions;
  private readonly store: RunContextStore;
  /** Live runs, least recently active first, and the ids of evicted ones. */
  private readonly runs: RunRegistry<RunState>;
  /** The JSONL audit trail (`audit` option). */
  private readonly auditor: RunAudit;
  /** Loop detectors, budgets and the stop bookkeeping of every run. */
  private readonly stops: RunStopDecisions;

  /**
   * @param options - see {@link LoopControlOptions}
   * @throws {LoopControlOptionsError} when an option is invalid (naming the field)
   */
  constructor(options: LoopControlOptions = {}) {
    // raiseError must reach BaseCallbackHandler's constructor: as a class field it would be set
    // too late, and LangChain would log and swallow the stop errors.
    super({ raiseError: true });
    this.options = resolveLoopControlOptions(options);
    this.store = this.options.runContext ?? new RunContextStore({ now: this.options.now });
    this.runs = new RunRegistry(this.store, this.options.now);
    this.auditor = new RunAudit(this.options.audit, (error) => this.reportError(error), (event) => this.emit(event));
    this.stops = new RunStopDecisions({
      options: this.options,
      emit: (event) => this.emit(event),
      audit: (state, step) => this.auditor.step(state, step),
    });
  }

  /** The run-context store the handler registers runs in. */
  get runContext(): RunContextStore {
    return this.store;
  }

  /** Number of runs the handler is tracking (0 once every run has ended). */
  get activeRunCount(): number {
    return this.runs.size;
  }

  /** LangChain copies handlers in some paths; the copy must share the per-run state. */
  copy(): this {
    return this;
  }

  /** A view of a live run, found by any of its run ids; `undefined` once it ended. */
  snapshot(runId: string): LoopRunSnapshot | undefined {
    const context = this.store.contextOf(runId);
    const state = context === undefined ? undefined : this.runs.get(context.runId);
    if (context === undefined || state === undefined) return undefined;
    return snapshotOf(state, context, this.options.now());
  }

  // ---------------------------------------------------------------------------------------------
  // LangChain callbacks

  /**
   * Registers a top-level run (no known parent) or links a nested chain to its run.
   * LangChain calls this with `(chain, inputs, runId, parentRunId, tags, metadata, runType, runName)`
   * at run time although core 1.x declares another order; both positions are checked.
   */
  override async handleChainStart(
    _chain: Serialized,
    inputs: ChainValues,
    runId: string,
    runTypeOrParentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    _runName?: string,
    parentRunIdOrRunName?: string,
  ): Promise<void> {
    this.guard(() => {
      const parent = this.runs.knownParent(runTypeOrParentRunId, parentRunIdOrRunName);
      if (parent !== undefined) {
        this.store.link(runId, parent);
        const found = this.runs.find(runId);
        found?.state.chainIds.add(runId);
        if (found !== undefined) this.stops.publishDeferred(found.state, found.context);
        return;
      }
      // A late chain of a run that was evicted: not a new run.
      if (this.runs.wasEvicted(runId)) return;
      for (const candidate of [runTypeOrParentRunId, parentRunIdOrRunName]) {
        if (candidate !== undefined && this.runs.wasEvicted(candidate)) {
          this.runs.rememberEvicted(runId);
          return;
        }
      }
      if (this.runs.get(runId) !== undefined) return;
      const now = this.options.now();
      this.runs.evictStale(now, this.options.runIdleTimeoutMs, this.options.maxActiveRuns, (state, reason, idleMs) => {
        this.endRun(state, "error", "error");
        this.reportError(new RunEvictedError({ runId: state.runId, reason, idleMs, steps: state.steps.length }));
      });
      const context = this.store.start(runId);
      // Published so wrapped tools bound every call by the run's remaining time.
      if (Number.isFinite(this.options.maxDurationMs)) context.deadlineAtMs = now + this.options.maxDurationMs;
      this.runs.add({ ...newRunState(runId, now), input: inputs });
      this.emit({ type: "run_start", runId, ...(this.wantsContent() ? { input: contentTextOf(inputs) } : {}) });
    });
  }

  /** Starts timing a model call; in `mode: "throw"`, refuses it when the run must stop. */
  override async handleLLMStart(
    llm: Serialized,
    prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): Promise<void> {
    this.startLlm(llm, prompts.join("\n"), runId, parentRunId, extraParams, metadata);
  }

  /** Chat-model form of {@link LoopControlHandler.handleLLMStart}. */
  override async handleChatModelStart(
    llm: Serialized,
    messages: BaseMessage[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): Promise<void> {
    const text = messages.flat().map((message) => textOf(message)).join("\n");
    this.startLlm(llm, text, runId, parentRunId, extraParams, metadata);
  }

  /** Records the model call's duration and token usage, and checks the token and cost budgets. */
  override async handleLLMEnd(output: LLMResult, runId: string, _parentRunId?: string): Promise<void> {
    this.guard(() => {
      const found = this.runs.find(runId);
      if (found === undefined) return;
      const { state, context } = found;
      const llm = state.llmRuns.get(runId);
      state.llmRuns.delete(runId);
      const now = this.options.now();
      if (llm !== undefined) {
        state.lastLlmMs = now - llm.startedAtMs;
        this.emit({ type: "step_duration", runId: state.runId, phase: "llm", durationMs: state.lastLlmMs });
      }
      const usage = usageOfLlmResult(output, llm?.inputText, (text) => estimateTokensSafely(this.options.estimateTokens, text, (error) => this.reportError(error)));
      state.inputTokens += usage.inputTokens;
      state.outputTokens += usage.outputTokens;
      const price = findModelPrice(this.options.prices, modelNamesOfLlmResult(output, llm?.model));
      if (price !== undefined) state.costUsd += costUsdOf(usage, price);
      const { inputTokens, outputTokens, estimated } = usage;
      this.emit({ type: "token_usage", runId: state.runId, inputTokens, outputTokens, estimated });
      this.stops.checkBudgets(state, context);
    });
  }

  /** Forgets a failed model call's timer. */
  override async handleLLMError(_error: unknown, runId: string, _parentRunId?: string): Promise<void> {
    this.guard(() => {
      this.runs.find(runId)?.state.llmRuns.delete(runId);
    });
  }

  /**
   * Runs every detector on the new action. Warns with a note, or stops: sets
   * `RunContext.loop.stop` and, in `mode: "throw"`, throws before the tool runs.
   * @throws {LoopStoppedError} when a loop detector stops the run (`mode: "throw"`)
   * @throws {BudgetExceededError} when a budget is used up (`mode: "throw"`)
   */
  override async handleAgentAction(action: AgentAction, runId: string, _parentRunId?: string): Promise<void> {
    let stopError: RunStoppedError | undefined;
    this.guard(() => {
      const found = this.runs.find(runId);
      if (found === undefined) return;
      const { state, context } = found;
      state.executorRunId ??= runId;
      this.auditor.flush(state);
      const step = this.addStep(state, action);
      stopError = this.stops.pendingError(state, step) ?? this.stops.decide(state, context, step);
    });
    if (stopError !== undefined) throw stopError;
  }

  /** Links a tool run to its step and starts timing it. */
  override async handleToolStart(
    tool: Serialized,
    _input: string,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
  ): Promise<void> {
    this.guard(() => {
      if (parentRunId === undefined || this.store.contextOf(parentRunId) === undefined) return;
      this.store.link(runId, parentRunId);
      const found = this.runs.find(runId);
      if (found === undefined || parentRunId !== found.state.executorRunId) return;
      const toolName = (runName ?? (tool as { name?: unknown }).name ?? "").toString().toLowerCase();
      const step = openStepForTool(found.state, toolName);
      if (step === undefined) return;
      step.toolRunId = runId;
      step.toolStartedAtMs = this.options.now();
    });
  }

  /** Records the observation of a step (its fingerprint feeds the repeat detector and notes). */
  override async handleToolEnd(output: unknown, runId: string, _parentRunId?: string): Promise<void> {
    this.guard(() => {
      const found = this.runs.find(runId);
      const step = found?.state.steps.find((candidate) => candidate.toolRunId === runId);
      if (found === undefined || step === undefined) return;
      step.seenObservation = textOf(output);
      const observation = withoutNotes(found.state, step.seenObservation);
      step.observation = observation;
      step.observationFingerprint = fingerprintObservation(observation);
      step.novelObservation = !found.state.observationFingerprints.has(step.observationFingerprint);
      found.state.observationFingerprints.add(step.observationFingerprint);
      this.finishTool(found.state, step);
      // The call's typed outcome, from the ToolExecutor's record of the run (never from its wording):
      // the audit says "timeout" for a timeout, as the createAgent trail does.
      const call = runCallOf(found.context, { action: step.action, observation: step.seenObservation });
      if (call !== undefined && call.stoppedRun !== true) {
        step.callOutcome = call.outcome;
        step.toolError = toolMessageStatusOf(call.outcome) === "error";
      }
      // A call the ToolExecutor refused because this run was already stopping (the stock executor
      // runs the action the run was stopped at) brought no observation: Reins' agents never run it.
      const refusedByStop = call?.stoppedRun === true;
      if (step.action.tool !== EXCEPTION_TOOL_NAME && !refusedByStop) this.emit({ type: "step", runId: found.state.runId, step: "observation" });
      this.auditor.step(found.state, step);
      // Budgets first: the step has run, so a budget it used up is published now, before the
      // model plans again (a tool cut by the run's time budget must end the run).
      this.stops.checkBudgets(found.state, found.context);
      this.stops.publishDeferred(found.state, found.context);
    });
  }

  /** Records a tool failure (AgentExecutor turns it into an observation). */
  override async handleToolError(_error: unknown, runId: string, _parentRunId?: string): Promise<void> {
    this.guard(() => {
      const found = this.runs.find(runId);
      const step = found?.state.steps.find((candidate) => candidate.toolRunId === runId);
      if (found === undefined || step === undefined) return;
      step.toolError = true;
      this.finishTool(found.state, step);
      this.auditor.step(found.state, step);
      this.stops.publishDeferred(found.state, found.context);
    });
  }

  /**
   * Counts the model's final answer (a thought and a finish step), or notes that the agent
   * finished because of a stop decision, AgentExecutor's iteration limit or a returnDirect tool
   * (no model turn: no step counted).
   */
  override async handleAgentEnd(finish: AgentFinish, runId: string, _parentRunId?: string): Promise<void> {
    this.guard(() => {
      const found = this.runs.find(runId);
      if (found === undefined) return;
      const { state } = found;
      const { modelTurn, stopReason } = finishKindOf(finish, state.steps.length);
      const now = this.options.now();
      const cycleMs = now - state.lastDecisionAtMs;
      state.lastDecisionAtMs = now;
      // Only the model's own answer is a model turn (thought) and a finish; a graceful stop's
      // answer and AgentExecutor's iteration-limit answer are counted by stops_total instead, so
      // action + finish never exceeds thought (the thought/action gap stays ≥ 0).
      if (modelTurn) {
        this.emit({ type: "step", runId: state.runId, step: "thought" });
        this.emit({ type: "step_duration", runId: state.runId, phase: "cycle", durationMs: cycleMs });
        this.emit({ type: "step", runId: state.runId, step: "finish" });
      }
      state.finishStopReason = stopReason;
      state.answer = finish.returnValues?.output;
      this.auditor.finish(state, { atMs: now, cycleMs, thought: modelTurn ? thoughtOf(finish.log ?? "") : "", stopReason, answer: state.answer });
      state.lastLlmMs = undefined;
    });
  }

  /** Ends the run when its top-level chain ends: emits `run_end` and frees its state. */
  override async handleChainEnd(outputs: ChainValues, runId: string, _parentRunId?: string): Promise<void> {
    this.guard(() => {
      const state = this.runs.get(runId);
      if (state === undefined) {
        this.runs.forgetEvicted(runId);
        return;
      }
      const { status, stopReason } = runEndOf(state, this.store.contextOf(runId), outputs?.output);
      state.answer = outputs?.output ?? state.answer;
      this.endRun(state, status, stopReason);
    });
  }

  /** Ends the run when its top-level chain fails (including by this handler's own stop error). */
  override async handleChainError(error: unknown, runId: string, _parentRunId?: string): Promise<void> {
    this.guard(() => {
      const state = this.runs.get(runId);
      if (state === undefined) {
        this.runs.forgetEvicted(runId);
        return;
      }
      if (RunStoppedError.isInstance(error)) this.endRun(state, "stopped", error.stopReason);
      else this.endRun(state, "error", "error");
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Internals

  private guard(body: () => void): void {
    try {
      body();
    } catch (error) {
      this.reportError(error);
    }
  }

  /** Hands an error to `onError` (see `reportToOnError`: a throwing `onError` breaks nothing). */
  private reportError(error: unknown): void {
    reportToOnError(this.options.onError, error, "LoopControlHandler");
  }

  private emit(event: ReinsEvent): void {
    emitEvent(event, [this.options.metrics, this.options.onEvent], (error) => this.reportError(error), eventRedactorOf(this.options.audit));
  }

  private startLlm(
    llm: Serialized,
    inputText: string,
    runId: string,
    parentRunId: string | undefined,
    extraParams: Record<string, unknown> | undefined,
    metadata: Record<string, unknown> | undefined,
  ): void {
    let stopError: RunStoppedError | undefined;
    this.guard(() => {
      if (parentRunId === undefined || this.store.contextOf(parentRunId) === undefined) return;
      this.store.link(runId, parentRunId);
      const found = this.runs.find(runId);
      if (found === undefined) return;
      const { state, context } = found;
      const model = modelNameFrom(extraParams?.invocation_params, metadata, (llm as { kwargs?: unknown }).kwargs);
      state.llmRuns.set(runId, { startedAtMs: this.options.now(), inputText, model });
      this.stops.checkBudgets(state, context);
      // `thrown` stays false: a model call inside a tool (a nested chain) may have its error
      // swallowed by the executor's tool error handling, so the next action throws again.
      stopError = this.stops.pendingError(state);
      if (stopError !== undefined) state.llmRuns.delete(runId);
    });
    if (stopError !== undefined) throw stopError;
  }

  private addStep(state: RunState, action: AgentAction): StepState {
    const now = this.options.now();
    const step = newStep(state, action, this.options, now);
    state.lastLlmMs = undefined;
    state.lastDecisionAtMs = now;
    state.steps.push(step);
    this.emit({ type: "step", runId: state.runId, step: "thought" });
    if (action.tool !== EXCEPTION_TOOL_NAME) this.emit({ type: "step", runId: state.runId, step: "action" });
    this.emit({ type: "step_duration", runId: state.runId, phase: "cycle", durationMs: step.cycleMs });
    return step;
  }

  /** Times the step's tool run. */
  private finishTool(state: RunState, step: StepState): void {
    if (step.toolStartedAtMs === undefined) return;
    step.toolMs = this.options.now() - step.toolStartedAtMs;
    this.emit({ type: "step_duration", runId: state.runId, phase: "tool", durationMs: step.toolMs });
  }

  private endRun(state: RunState, status: RunStatus, stopReason: StopReason): void {
    this.auditor.flush(state);
    this.runs.delete(state.runId);
    this.store.release(state.runId);
    const output = this.wantsContent() && state.answer !== undefined ? { output: contentTextOf(state.answer) } : {};
    this.emit({ type: "run_end", runId: state.runId, status, stopReason, durationMs: this.options.now() - state.startedAtMs, ...output });
  }

  /** True when a target asks for content (the run's input and answer on `run_start`/`run_end`). */
  private wantsContent(): boolean {
    return wantsContent([this.options.metrics, this.options.onEvent]);
  }
}
