import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { AgentAction, AgentFinish, AgentStep } from "@langchain/core/agents";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { ChainValues } from "@langchain/core/utils/types";
import {
  RunContextStore,
  STOP_REASONS,
  actionKey,
  emitEvent,
  fingerprintObservation,
  type LoopKind,
  type LoopStopDecision,
  type ReinsEvent,
  type RunContext,
  type RunStatus,
  type StopReason,
} from "@reins/core";
import type { LoopAuditRecord } from "./audit";
import { finishAuditRecord, stepAuditRecord, writeAuditRecord } from "./step-audit";
import { intendedActionOf } from "./detectors";
import {
  BudgetExceededError,
  LoopControlOptionsError,
  LoopStoppedError,
  RunEvictedError,
  RunStoppedError,
  type BudgetStopReason,
  type LoopStopReason,
} from "./errors";
import { detectLoop, type LoopDetection } from "./loop-detection";
import { EXCEPTION_TOOL_NAME, renderLoopNote } from "./messages";
import { checkStepBudget, checkUsageBudgets, type BudgetDecision } from "./budgets";
import { costUsdOf, findModelPrice } from "./model-prices";
import { RunRegistry } from "./run-registry";
import { thoughtOf } from "./thought";
import { modelNameFrom, textOf, usageOfLlmResult } from "./token-usage";
import {
  estimateTokensFromChars,
  resolveLoopControlOptions,
  type LoopControlOptions,
  type ModelPrice,
  type ResolvedLoopControlOptions,
} from "./loop-control-options";
import { simHash, type SimHash } from "./simhash";

const STOP_REASON_SET: ReadonlySet<string> = new Set<StopReason>(STOP_REASONS);

/** AgentExecutor's own answer when it runs out of iterations (LangChain 0.3 and 1.x wordings). */
const EXECUTOR_STOPPED_OUTPUT = /^Agent stopped due to (iteration limit|max iterations)/;


interface StepState {
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
  observation?: string;
  observationFingerprint?: string;
  /** True when this observation's fingerprint had not been seen earlier in the run. */
  novelObservation?: boolean;
  toolError?: boolean;
  detection?: LoopDetection;
  refused?: boolean;
  stopReason?: StopReason;
  audited?: boolean;
}

interface LlmRunState {
  readonly startedAtMs: number;
  readonly inputText: string;
  readonly model: string | undefined;
}

interface RunState {
  readonly runId: string;
  readonly startedAtMs: number;
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

/** Repairs a hand-built agent put on the action (`action.repairs`, string[]), for the audit. */
function repairsOf(action: AgentAction): readonly string[] {
  const repairs = (action as AgentAction & { repairs?: unknown }).repairs;
  return Array.isArray(repairs) ? repairs.filter((repair): repair is string => typeof repair === "string") : [];
}

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
    return {
      runId: state.runId,
      steps: state.steps.length,
      elapsedMs: this.options.now() - state.startedAtMs,
      inputTokens: state.inputTokens,
      outputTokens: state.outputTokens,
      costUsd: state.costUsd,
      stop: context.loop.stop,
      pendingNotes: [...context.loop.pendingNotes],
    };
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
    _inputs: ChainValues,
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
        if (found !== undefined) this.publishDeferredStop(found.state, found.context);
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
      this.runs.add({
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
      });
      this.emit({ type: "run_start", runId });
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
    const text = messages
      .flat()
      .map((message) => textOf(message))
      .join("\n");
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
      const usage = usageOfLlmResult(output, llm?.inputText, (text) => this.estimate(text));
      state.inputTokens += usage.inputTokens;
      state.outputTokens += usage.outputTokens;
      const responseModels = (output.generations ?? []).flatMap((generations) =>
        generations.map((generation) => (generation as { message?: { response_metadata?: unknown } }).message?.response_metadata),
      );
      const price = findModelPrice(this.options.prices, [modelNameFrom(output.llmOutput), modelNameFrom(...responseModels), llm?.model]);
      if (price !== undefined) {
        state.costUsd += costUsdOf(usage, price);
      }
      this.emit({
        type: "token_usage",
        runId: state.runId,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        estimated: usage.estimated,
      });
      this.checkBudgets(state, context);
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
      this.flushAudit(state);
      const step = this.addStep(state, action);
      if (this.options.mode === "throw" && state.pending !== undefined && !state.thrown) {
        stopError = this.refuse(state, step, state.pending);
        return;
      }
      stopError = this.decide(state, context, step);
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
      const open = found.state.steps.filter((step) => step.toolRunId === undefined && !step.refused);
      const step =
        [...open].reverse().find((candidate) => candidate.action.tool.toLowerCase() === toolName) ?? open[open.length - 1];
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
      const observation = this.withoutNotes(found.state, textOf(output));
      step.observation = observation;
      step.observationFingerprint = fingerprintObservation(observation);
      step.novelObservation = !found.state.observationFingerprints.has(step.observationFingerprint);
      found.state.observationFingerprints.add(step.observationFingerprint);
      this.finishTool(found.state, step);
      if (step.action.tool !== EXCEPTION_TOOL_NAME) this.emit({ type: "step", runId: found.state.runId, step: "observation" });
      this.audit(found.state, step);
      // Budgets first: the step has run, so a budget it used up is published now, before the
      // model plans again (a tool cut by the run's time budget must end the run).
      this.checkBudgets(found.state, found.context);
      this.publishDeferredStop(found.state, found.context);
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
      this.audit(found.state, step);
      this.publishDeferredStop(found.state, found.context);
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
      this.flushAudit(state);
      const reason = finish.returnValues?.stopReason;
      const graceful = typeof reason === "string" && STOP_REASON_SET.has(reason) && reason !== "final_answer";
      const output = finish.returnValues?.output;
      const executorStopped = typeof output === "string" && EXECUTOR_STOPPED_OUTPUT.test(output);
      // AgentExecutor ends a run on a returnDirect tool with an empty log: no model turn.
      const returnDirect = !graceful && !executorStopped && (finish.log ?? "").trim().length === 0 && state.steps.length > 0;
      const now = this.options.now();
      const cycleMs = now - state.lastDecisionAtMs;
      state.lastDecisionAtMs = now;
      // Only the model's own answer is a model turn (thought) and a finish; a graceful stop's
      // answer and AgentExecutor's iteration-limit answer are counted by stops_total instead, so
      // action + finish never exceeds thought (the thought/action gap stays ≥ 0).
      if (!graceful && !executorStopped && !returnDirect) {
        this.emit({ type: "step", runId: state.runId, step: "thought" });
        this.emit({ type: "step_duration", runId: state.runId, phase: "cycle", durationMs: cycleMs });
        this.emit({ type: "step", runId: state.runId, step: "finish" });
      }
      state.finishStopReason = graceful ? (reason as StopReason) : executorStopped ? "max_steps" : "final_answer";
      this.writeAudit(
        finishAuditRecord({
          runId: state.runId,
          step: state.steps.length + 1,
          atMs: now,
          ...(state.lastLlmMs !== undefined ? { llmMs: state.lastLlmMs } : {}),
          cycleMs,
          thought: graceful || executorStopped || returnDirect ? "" : thoughtOf(finish.log ?? ""),
          stopReason: state.finishStopReason,
        }),
      );
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
      const context = this.store.contextOf(runId);
      const output = outputs?.output;
      let status: RunStatus = "success";
      let stopReason: StopReason = "final_answer";
      // When the model answered, a budget its last call crossed (a stop still pending) refused
      // nothing: the run is a success.
      const answered = state.finishStopReason === "final_answer";
      if (state.finishStopReason !== undefined && !answered) {
        status = "stopped";
        stopReason = state.finishStopReason;
      } else if (!answered && context?.loop.stop !== undefined) {
        status = "stopped";
        stopReason = context.loop.stop.reason;
      } else if (typeof output === "string" && EXECUTOR_STOPPED_OUTPUT.test(output)) {
        status = "stopped";
        stopReason = "max_steps";
      }
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

  /**
   * Hands an error to `onError`. An `onError` that throws must not break the run either: both
   * errors then go to a process warning.
   */
  private reportError(error: unknown): void {
    try {
      this.options.onError(error);
    } catch (onErrorFailure) {
      const describe = (value: unknown): string => (value instanceof Error ? value.message : String(value));
      process.emitWarning(
        `LoopControlHandler: onError threw (${describe(onErrorFailure)}) while reporting: ${describe(error)}`,
        { code: "REINS_LOOP_CONTROL" },
      );
    }
  }

  private emit(event: ReinsEvent): void {
    emitEvent(event, [this.options.metrics, this.options.onEvent], (error) => this.reportError(error));
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
      const model = modelNameFrom(
        extraParams?.invocation_params,
        metadata,
        (llm as { kwargs?: unknown }).kwargs,
      );
      state.llmRuns.set(runId, { startedAtMs: this.options.now(), inputText, model });
      this.checkBudgets(state, context);
      // `thrown` stays false: a model call inside a tool (a nested chain) may have its error
      // swallowed by the executor's tool error handling, so the next action throws again.
      if (this.options.mode === "throw" && state.pending !== undefined && !state.thrown) {
        state.llmRuns.delete(runId);
        stopError = state.pending();
      }
    });
    if (stopError !== undefined) throw stopError;
  }

  /**
   * Tokens of `text` by the `estimateTokens` option. A throw, or a result that is not a finite
   * number ≥ 0 (a Promise, NaN), is reported to `onError` and replaced by the characters ÷ 4
   * estimate, so the call's usage still counts toward the budgets.
   */
  private estimate(text: string): number {
    let tokens: unknown;
    try {
      tokens = this.options.estimateTokens(text);
    } catch (error) {
      this.reportError(error);
      return estimateTokensFromChars(text);
    }
    if (typeof tokens === "number" && Number.isFinite(tokens) && tokens >= 0) return tokens;
    this.reportError(
      new LoopControlOptionsError({
        field: "estimateTokens",
        value: tokens,
        reason: `it returned ${String(tokens)} instead of a finite number ≥ 0; characters ÷ 4 were counted instead`,
      }),
    );
    return estimateTokensFromChars(text);
  }

  private addStep(state: RunState, action: AgentAction): StepState {
    const now = this.options.now();
    const thought = thoughtOf(action.log ?? "");
    // A skipped step (a parse error) still counts when the rejected reply named an action.
    const ignored = this.options.ignoreTools.includes(action.tool);
    const intended = ignored ? intendedActionOf(action.log ?? "") : undefined;
    const detected = !ignored || intended !== undefined;
    const counted = intended ?? action;
    const step: StepState = {
      index: state.steps.length,
      action,
      key: actionKey(counted.tool, counted.toolInput),
      toolName: counted.tool,
      detected,
      thought,
      thoughtHash: detected && this.options.stall !== false ? simHash(thought) : undefined,
      startedAtMs: now,
      llmMs: state.lastLlmMs,
      cycleMs: now - state.lastDecisionAtMs,
      repairs: repairsOf(action),
    };
    state.lastLlmMs = undefined;
    state.lastDecisionAtMs = now;
    state.steps.push(step);
    this.emit({ type: "step", runId: state.runId, step: "thought" });
    if (action.tool !== EXCEPTION_TOOL_NAME) this.emit({ type: "step", runId: state.runId, step: "action" });
    this.emit({ type: "step_duration", runId: state.runId, phase: "cycle", durationMs: step.cycleMs });
    return step;
  }

  /** Runs loop detectors and budgets for a new step; returns the error to throw, if any. */
  private decide(state: RunState, context: RunContext, step: StepState): RunStoppedError | undefined {
    const detection = detectLoop(state.steps.slice(0, -1), step, this.options);
    if (detection !== undefined) {
      step.detection = detection;
      this.emit({ type: "loop_detection", runId: state.runId, kind: detection.kind, level: detection.level });
      if (detection.level === "stop") {
        const makeError = (): RunStoppedError =>
          new LoopStoppedError({
            stopReason: detection.kind as LoopStopReason,
            runId: state.runId,
            steps: this.completedSteps(state),
            action: step.action,
            repetitions: detection.count,
            ...(detection.period !== undefined ? { period: detection.period } : {}),
          });
        const error = this.stop(state, context, step, makeError, true);
        if (error !== undefined) return error;
      } else if (detection.note !== undefined) {
        this.addNote(state, context, renderLoopNote(detection.note));
      }
    }
    // Step budget: a step past the limit is refused; the step that reaches it is the last one.
    const stepBudget = checkStepBudget(state.steps.length, this.options, state.budgetNotes);
    if (stepBudget.stop !== undefined && context.loop.stop === undefined) {
      const { reason, limit, used, refuseStep } = stepBudget.stop;
      const error = this.stop(state, context, step, () => this.budgetError(state, reason, limit, used), refuseStep);
      if (refuseStep) return error;
    }
    this.addBudgetNotes(state, context, stepBudget.notes);
    return this.checkBudgets(state, context, step);
  }

  private budgetError(state: RunState, stopReason: BudgetStopReason, limit: number, used: number): BudgetExceededError {
    return new BudgetExceededError({ stopReason, runId: state.runId, steps: this.completedSteps(state), limit, used });
  }

  /**
   * Checks time, token and cost budgets. With `refuseStep` (a new action), a used-up budget
   * refuses it at once in `mode: "throw"`; otherwise the stop waits for the next model start or
   * action.
   */
  private checkBudgets(state: RunState, context: RunContext, refuseStep?: StepState): RunStoppedError | undefined {
    if (context.loop.stop !== undefined) return undefined;
    const usage = { elapsedMs: this.options.now() - state.startedAtMs, tokens: state.inputTokens + state.outputTokens, costUsd: state.costUsd };
    const decision = checkUsageBudgets(usage, this.options, state.budgetNotes, refuseStep !== undefined);
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
    const refusing = refuse && step !== undefined && this.options.mode === "throw" && !state.thrown;
    if (refusing) step.refused = true;
    const decision = makeError();
    if (context.loop.stop === undefined) {
      const stop = { reason: decision.stopReason, message: decision.message };
      // The step that reaches a limit still runs: wrapped tools refuse calls once a stop is set.
      if (refuse || step === undefined) context.loop.stop = stop;
      else state.deferredStop ??= stop;
    }
    if (step !== undefined) step.stopReason = decision.stopReason;
    if (this.options.mode !== "throw" || state.thrown) return undefined;
    if (!refusing) {
      state.pending ??= makeError;
      return undefined;
    }
    return this.refuse(state, step, makeError);
  }

  /** Publishes a stop decided for the last allowed step, once that step has run. */
  private publishDeferredStop(state: RunState, context: RunContext): void {
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
    this.audit(state, step);
    return error;
  }

  /** Queues a note for the model's next observation (appended by Reins' wrapped tools). */
  private addNote(state: RunState, context: RunContext, note: string): void {
    context.loop.pendingNotes.push(note);
    state.issuedNotes.add(note);
  }

  /**
   * The tool's own output: the notes this handler queued, which the wrapped tool appended, are
   * removed so they neither make equal results look different nor get quoted back in a note.
   */
  private withoutNotes(state: RunState, observation: string): string {
    let result = observation;
    for (const note of state.issuedNotes) {
      if (result.includes(note)) result = result.split(note).join("");
    }
    return result === observation ? observation : result.trim();
  }

  private completedSteps(state: RunState): AgentStep[] {
    return state.steps
      .filter((step) => !step.refused)
      .map((step) => ({ action: step.action, observation: step.observation ?? "" }));
  }

  private finishTool(state: RunState, step: StepState): void {
    if (step.toolStartedAtMs === undefined) return;
    step.toolMs = this.options.now() - step.toolStartedAtMs;
    this.emit({ type: "step_duration", runId: state.runId, phase: "tool", durationMs: step.toolMs });
  }

  private flushAudit(state: RunState): void {
    for (const step of state.steps) if (!step.audited) this.audit(state, step);
  }

  private audit(state: RunState, step: StepState): void {
    if (step.audited) return;
    step.audited = true;
    if (this.options.audit === undefined) return;
    this.writeAudit(
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

  private writeAudit(record: LoopAuditRecord): void {
    writeAuditRecord(this.options.audit, record, (error) => this.reportError(error));
  }

  private endRun(state: RunState, status: RunStatus, stopReason: StopReason): void {
    this.flushAudit(state);
    this.runs.delete(state.runId);
    this.store.release(state.runId);
    this.emit({
      type: "run_end",
      runId: state.runId,
      status,
      stopReason,
      durationMs: this.options.now() - state.startedAtMs,
    });
  }
}
