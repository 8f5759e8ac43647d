import type { AgentAction, AgentFinish, AgentStep } from "@langchain/core/agents";
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { OutputParserException } from "@langchain/core/output_parsers";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import { Runnable, type RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { concat } from "@langchain/core/utils/stream";
import { buildLoopStopFinish, callFailedIn, createReActGrammar, neutralizeUntrustedText, runIdsFrom, type ReActGrammar, type LoopFinishOptions, type LoopFinishStep, type LoopStopDecision, type ReActLabelSet, type RunContext, type RunContextStore } from "@reins/core";
import { renderLoopNote, type LoopControlHandler, type TrajectoryLoopControl, type TrajectoryRun } from "@reins/loop-control";
import type { ObservationCleaner } from "@reins/observation-cleaner";
import type { HardenedReActOutputParser } from "@reins/react-output-parser";
import type { ToolExecutor } from "@reins/tool-executor";
import type { ReinsAgentFinding } from "./agent-output";
import type { CallOutcomes } from "./call-outcomes";
import { ReactAgentToolsError } from "./errors";
import { EXCEPTION_TOOL_NAME } from "./exception-tool";
import type { ReactAgentInput } from "./react-agent-options";
import type { ReActProvenance } from "./react-provenance";
import { parseReActStep } from "./react-step-parser";
import { REFUSED_CALLS_SLOT, withoutRefusedSteps } from "./run-findings";
import { formatReActScratchpad } from "./scratchpad";
import type { SharedRunContexts } from "./shared-runs";

/** The pieces {@link ReinsReactAgent} is built from. */
export interface ReinsReactAgentFields {
  readonly prompt: BasePromptTemplate;
  /** The model, bound to the stop sequences. */
  readonly llmWithStop: Runnable;
  readonly parser: HardenedReActOutputParser;
  /** The labels the parser reads (to trim an invented continuation from an action's log). */
  readonly labels: ReActLabelSet;
  /** `agent.tools`: the wrapped tools plus the parse-error step's `_Exception` tool. */
  readonly tools: StructuredToolInterface[];
  /** Handlers for `invoke`/`stream` on the callback path (a `LoopControlHandler` you built); else `[]`. */
  readonly callbacks: BaseCallbackHandler[];
  readonly runContext: RunContextStore;
  readonly streamRunnable: boolean | undefined;
  readonly loopFinish: LoopFinishOptions;
  readonly toolExecutor?: ToolExecutor;
  readonly observationCleaner?: ObservationCleaner;
  /** A handler you built (callback path). */
  readonly loopControl?: LoopControlHandler;
  /** The agent's own loop control (callback-free path). */
  readonly loop?: TrajectoryLoopControl;
  /**
   * Calls that went through the agent's wrapped tools so far, when the agent can count them:
   * used to detect an executor given the original tools.
   */
  readonly wrappedToolCalls?: () => number;
  /** Tools with `returnDirect` (the run ends with their result). */
  readonly returnDirectTools?: ReadonlySet<string>;
  /** Typed outcomes of the calls through the agent's ToolExecutor, when the agent built it. @internal */
  readonly callOutcomes?: CallOutcomes;
  /** Where the agent's own ToolExecutor looks runs up, when the agent built it. @internal */
  readonly sharedRuns?: SharedRunContexts;
  /** The model name the agent's `llm` was built with, priced when a reply reports none. */
  readonly requestedModel?: string;
  /** Reads the run's untrusted text and refuses actions that repeat a call found there (always on in `createReactAgent`). */
  readonly provenance?: ReActProvenance;
  /** See `CreateReactAgentOptions.handleParsingErrors`. @default true */
  readonly handleParsingErrors?: boolean | string | ((error: OutputParserException) => string);
}

/**
 * The agent {@link createReactAgent} returns: a runnable the stock `AgentExecutor` accepts as a
 * single-action agent (it has `singleAction: true`, like LangChain's `AgentRunnableSequence`, so
 * `returnDirect` tools work), on `invoke`, `stream` and `streamEvents`.
 *
 * Each planning call runs LangChain's ReAct step — scratchpad, prompt, the model bound to
 * `stop: ["\nObservation:"]`, then the `HardenedReActOutputParser` — with loop control fed
 * directly, no callback handler: before the model call it takes in the trajectory the executor
 * passed (observations, timings) and, when the run must stop, returns a graceful `AgentFinish`
 * (what was found so far, the escape-hatch line, `returnValues.stopReason`) without calling the
 * model; after it, it counts the reply's tokens from its `usage_metadata` and runs the detectors
 * on the chosen action. Loop notes are written into the scratchpad after the observation they
 * concern, so they reach the model whatever wraps the tools.
 *
 * A reply the parser rejects becomes the executor's `_Exception` step, planned by the agent
 * itself (no `handleParsingErrors` needed), whose observation is the parser's corrective message
 * on `invoke`, `stream` and `streamEvents` alike.
 */
export class ReinsReactAgent extends Runnable<ReactAgentInput, AgentAction | AgentFinish> {
  static override lc_name(): string {
    return "ReinsReactAgent";
  }

  lc_namespace = ["reins", "react_agent"];

  /** Marks this runnable as a single-action agent for `AgentExecutor` (see LangChain's `AgentRunnableSequence`). */
  readonly singleAction = true;
  /** Whether the executor streams the model call; `undefined` means the executor's default (true). */
  readonly streamRunnable: boolean | undefined;
  /** The tools to hand to `AgentExecutor`: wrapped by the ToolExecutor, observations cleaned, plus `_Exception`. */
  readonly tools: StructuredToolInterface[];
  /**
   * Callback handlers to pass to `invoke`/`stream`: only on the callback path (a
   * `LoopControlHandler` given as `loopControl`); `[]` otherwise, where nothing needs passing.
   */
  readonly callbacks: BaseCallbackHandler[];
  /** The per-run state shared by the wrapped tools and a `LoopControlHandler` on the callback path. */
  readonly runContext: RunContextStore;
  readonly parser: HardenedReActOutputParser;
  readonly toolExecutor: ToolExecutor | undefined;
  readonly observationCleaner: ObservationCleaner | undefined;
  /** A `LoopControlHandler` given as `loopControl` (callback path), else `undefined`. */
  readonly loopControl: LoopControlHandler | undefined;
  /** The agent's own loop control (callback-free path), else `undefined`. */
  readonly loop: TrajectoryLoopControl | undefined;

  private readonly prompt: BasePromptTemplate;
  private readonly llmWithStop: Runnable;
  private readonly loopFinish: LoopFinishOptions;
  private readonly labels: ReActLabelSet;
  private readonly wrappedToolCalls: (() => number) | undefined;
  private readonly returnDirectTools: ReadonlySet<string>;
  private readonly toolNames: ReadonlySet<string>;
  private readonly handleParsingErrors: boolean | string | ((error: OutputParserException) => string);
  private readonly provenance: ReActProvenance | undefined;
  private readonly callOutcomes: CallOutcomes | undefined;
  /** Where the agent's own ToolExecutor finds callback-free runs (see `shareRun`). */
  private readonly sharedRuns: SharedRunContexts | undefined;
  /** Each callback-free run's shared context, freed with the run's loop state. */
  private readonly contextByRun = new WeakMap<TrajectoryRun, RunContext>();
  /** The model name the agent's `llm` was built with (`model` or `modelName`), for pricing. */
  private readonly requestedModel: string | undefined;
  /**
   * Callback path without a ToolExecutor: the handler's notes, taken from the run's pending notes
   * and shown after the observation of the step they were waiting on (nothing else shows them).
   */
  private readonly handlerNotesByAction = new WeakMap<AgentAction, string>();
  private grammar: ReActGrammar | undefined;
  private toolsChecked = false;
  private warnedWithoutCallbacks = false;

  constructor(fields: ReinsReactAgentFields) {
    super();
    this.name = "ReactAgent";
    this.prompt = fields.prompt;
    this.llmWithStop = fields.llmWithStop;
    this.parser = fields.parser;
    this.labels = fields.labels;
    this.tools = fields.tools;
    this.callbacks = fields.callbacks;
    this.runContext = fields.runContext;
    this.streamRunnable = fields.streamRunnable;
    this.loopFinish = fields.loopFinish;
    this.toolExecutor = fields.toolExecutor;
    this.observationCleaner = fields.observationCleaner;
    this.loopControl = fields.loopControl;
    this.loop = fields.loop;
    this.wrappedToolCalls = fields.wrappedToolCalls;
    this.returnDirectTools = fields.returnDirectTools ?? new Set();
    this.handleParsingErrors = fields.handleParsingErrors ?? true;
    this.provenance = fields.provenance;
    this.callOutcomes = fields.callOutcomes;
    this.sharedRuns = fields.sharedRuns;
    this.requestedModel = fields.requestedModel;
    this.toolNames = new Set(fields.tools.map((tool) => tool.name).filter((name) => name !== EXCEPTION_TOOL_NAME));
  }

  /**
   * Plans one step.
   * @param input - the prompt's variables plus `steps` (the executor's intermediate steps)
   * @param options - the config the executor passes
   * @returns an `AgentAction` (an `_Exception` one for a rejected reply), or an `AgentFinish` with
   *   `returnValues.stopReason`
   * @throws {ReactAgentToolsError} when the executor runs the original tools instead of `agent.tools`
   * @throws {RunStoppedError} (`@reins/loop-control`) when loop control stops the run in `mode: "throw"`
   */
  override async invoke(input: ReactAgentInput, options?: Partial<RunnableConfig>): Promise<AgentAction | AgentFinish> {
    return this.plan(input, options, false);
  }

  override async *_streamIterator(input: ReactAgentInput, options?: Partial<RunnableConfig>): AsyncGenerator<AgentAction | AgentFinish> {
    yield await this.plan(input, options, true);
  }

  /** The loop-control decision of the run `options` belong to (callback path only), if it was stopped. */
  stopDecisionOf(options: Partial<RunnableConfig> | undefined): LoopStopDecision | undefined {
    return this.stoppedRunOf(options)?.loop.stop;
  }

  private async plan(input: ReactAgentInput, options: Partial<RunnableConfig> | undefined, streaming: boolean): Promise<AgentAction | AgentFinish> {
    const steps = input.steps ?? [];
    this.checkTools(steps);
    this.checkCallbacks(options);
    const handlerStop = this.handlerStopFinish(steps, options);
    if (handlerStop !== undefined) return handlerStop;
    const loop = this.loop;
    const { steps: _steps, ...values } = input;
    const run = loop?.runOf(steps, values);
    const context = loop !== undefined && run !== undefined ? this.shareRun(loop, run, options) : undefined;
    try {
      const planned = await this.planStep(input, options, streaming, steps, loop, run);
      // The call is bound to the run whose trajectory chose it: its dry-run tokens count only there.
      if (context !== undefined && !("returnValues" in planned) && planned.tool !== EXCEPTION_TOOL_NAME) this.sharedRuns?.bind(planned.tool, planned.toolInput, context);
      return planned;
    } catch (error) {
      throw error instanceof PassedRejection ? error.rejection : error;
    }
  }

  /**
   * The callback-free run's context, shared with the agent's own wrapped tools: each call this
   * run plans is bound to it (see `SharedRunContexts`), and when LangChain hands this planning
   * call run ids (callbacks are on: `streamEvents()`, or any `callbacks` value on
   * `invoke()`/`stream()`) it is also shared under them. So the tools find their run on every
   * path: per-run cache scope, call caps, dry-run tokens bound to this run, and the run's time
   * budget (`deadlineAtMs`) inside each call.
   * @returns the run's context, or `undefined` when the agent did not build the ToolExecutor
   */
  private shareRun(loop: TrajectoryLoopControl, run: TrajectoryRun, options: Partial<RunnableConfig> | undefined): RunContext | undefined {
    const shared = this.sharedRuns;
    if (shared === undefined) return undefined;
    let context = this.contextByRun.get(run);
    if (context === undefined) {
      context = { runId: run.runId, startedAtMs: run.startedAtMs, loop: { pendingNotes: [] }, slots: new Map() };
      if (Number.isFinite(loop.options.maxDurationMs)) context.deadlineAtMs = run.startedAtMs + loop.options.maxDurationMs;
      this.contextByRun.set(run, context);
    }
    const ids = runIdsFrom(options);
    if (ids.length > 0) shared.share(context, ids);
    return context;
  }

  private async planStep(
    input: ReactAgentInput,
    options: Partial<RunnableConfig> | undefined,
    streaming: boolean,
    steps: readonly AgentStep[],
    loop: TrajectoryLoopControl | undefined,
    run: TrajectoryRun | undefined,
  ): Promise<AgentAction | AgentFinish> {
    if (loop !== undefined && run !== undefined) {
      const outcomes = this.callOutcomes;
      const stop = loop.beforePlan(run, steps, outcomes === undefined ? undefined : (step) => outcomes.failedOf(step));
      if (stop !== undefined) return this.stopFinish(loop, run, stop, steps);
    }
    let rejection: unknown;
    try {
      const { steps: _steps, ...values } = input;
      this.takeHandlerNotes(steps, options);
      const notesOf =
        run === undefined || loop === undefined
          ? this.loopControl !== undefined && this.toolExecutor === undefined
            ? (step: AgentStep) => this.handlerNotesByAction.get(step.action)
            : undefined
          : (step: AgentStep) => this.notesText(loop, run, step);
      const promptValue = await this.prompt.formatPromptValue({ ...values, agent_scratchpad: formatReActScratchpad(steps, undefined, undefined, notesOf) });
      const startedAtMs = loop?.options.now() ?? 0;
      const reply = await this.callModel(promptValue, options, streaming);
      if (loop !== undefined && run !== undefined) loop.modelReplied(run, reply, () => promptValue.toString(), loop.options.now() - startedAtMs, this.requestedModel);
      const observationCount = steps.filter((step) => step.action.tool !== EXCEPTION_TOOL_NAME).length;
      // The parser's events carry the run's id (the controller's, on this path) so a recorder groups them.
      let parsed = parseReActStep(this.parser, this.labels, replyText(reply), observationCount, run?.runId);
      // Provenance: an action that repeats a call seen in an observation or the input does not run.
      if (parsed.ok && !("returnValues" in parsed.step) && this.provenance !== undefined) {
        const refusal = this.provenance.refusalOf(parsed.step, values, steps, run?.runId);
        if (refusal !== undefined) parsed = { ok: false, error: refusal, repairs: parsed.repairs };
      }
      if (!parsed.ok) {
        // Planned as the executor's own parse-error step: its `_Exception` tool (LangChain's on
        // invoke(), agent.tools' on stream()) shows the model the corrective observation as is.
        const handling = this.handleParsingErrors;
        if (handling === false) {
          // The executor decides: with its own handleParsingErrors the run goes on.
          rejection = parsed.error;
          throw new PassedRejection(parsed.error);
        }
        const observation = handling === true ? parsed.error.observation : typeof handling === "string" ? handling : handling(parsed.error);
        const llmOutput = parsed.error.llmOutput ?? "";
        if (loop !== undefined && run !== undefined) loop.rejectedFirstReply(run, String(observation), llmOutput);
        return { tool: EXCEPTION_TOOL_NAME, toolInput: String(observation), log: llmOutput };
      }
      const step = parsed.step;
      if (loop === undefined || run === undefined) return step;
      if ("returnValues" in step) {
        loop.finished(run, "final_answer", step.log, true, step.returnValues.output);
        return step;
      }
      const verdict = loop.actionChosen(run, step, parsed.repairs);
      if (verdict.stop !== undefined) return this.stopFinish(loop, run, verdict.stop, steps);
      if (this.returnDirectTools.has(step.tool)) loop.finished(run, "final_answer", step.log, false);
      return step;
    } catch (error) {
      if (loop !== undefined && run !== undefined && !(error instanceof PassedRejection && error.rejection === rejection)) loop.failed(run);
      throw error;
    }
  }

  private async callModel(promptValue: unknown, options: Partial<RunnableConfig> | undefined, streaming: boolean): Promise<unknown> {
    if (!streaming) return this.llmWithStop.invoke(promptValue, options);
    // Streamed so `streamEvents` shows the tokens; the chunks are summed (usage_metadata too).
    let reply: unknown;
    for await (const chunk of await this.llmWithStop.stream(promptValue, options)) {
      reply = reply === undefined ? chunk : concat(reply as never, chunk as never);
    }
    return reply;
  }

  private notesText(loop: TrajectoryLoopControl, run: TrajectoryRun, step: AgentStep): string | undefined {
    const notes = loop.notesOf(run, step.action);
    return notes.length === 0 ? undefined : this.neutralized(notes.map(renderLoopNote).join("\n"));
  }

  /**
   * Callback path with no ToolExecutor (`toolExecutor: false`): no wrapped tool appends the
   * `LoopControlHandler`'s pending notes to an observation, so the agent takes them here and shows
   * them after the latest step's observation. The model thus reads a warning before the run can be
   * stopped for what it warned about.
   */
  private takeHandlerNotes(steps: readonly AgentStep[], options: Partial<RunnableConfig> | undefined): void {
    if (this.loopControl === undefined || this.toolExecutor !== undefined || steps.length === 0) return;
    for (const runId of runIdsFrom(options)) {
      const pending = this.runContext.contextOf(runId)?.loop.pendingNotes;
      if (pending === undefined) continue;
      const notes = pending.splice(0, pending.length).filter((note) => typeof note === "string" && note.trim() !== "");
      if (notes.length === 0) return;
      const last = steps[steps.length - 1].action;
      const earlier = this.handlerNotesByAction.get(last);
      this.handlerNotesByAction.set(last, this.neutralized([...(earlier === undefined ? [] : [earlier]), ...notes].join("\n")));
      return;
    }
  }

  /** Notes quote earlier results: they pass the neutraliser of the agent's grammar like any observation. */
  private neutralized(text: string): string {
    this.grammar ??= createReActGrammar({ labels: this.labels, toolNames: [...this.toolNames] });
    return neutralizeUntrustedText(text, this.grammar).text;
  }

  /** The graceful finish of a stopped run (or the stop error, in `mode: "throw"`). */
  private stopFinish(
    loop: TrajectoryLoopControl,
    run: TrajectoryRun,
    stop: NonNullable<TrajectoryRun["stop"]>,
    steps: readonly AgentStep[],
  ): AgentFinish {
    if (loop.options.mode === "throw") {
      loop.finished(run, stop.reason, "");
      throw stop.error;
    }
    const failedByAction = new Map(run.steps.filter((step) => step.failed !== undefined).map((step) => [step.action, step.failed as boolean]));
    const findings: LoopFinishStep[] = steps.map((step) => {
      const failed = failedByAction.get(step.action);
      return failed === undefined ? step : { ...step, failed };
    });
    const finish = this.withFindings(buildLoopStopFinish({ reason: stop.reason, message: stop.message }, findings, this.loopFinish), steps);
    loop.finished(run, stop.reason, "", false, finish.returnValues.output);
    return finish;
  }

  private withFindings(finish: AgentFinish, steps: readonly AgentStep[]): AgentFinish {
    const findings: ReinsAgentFinding[] = steps
      .filter((step) => step.action.tool !== EXCEPTION_TOOL_NAME)
      .map((step) => ({ tool: step.action.tool, toolInput: step.action.toolInput, observation: String(step.observation) }));
    return { ...finish, returnValues: { ...finish.returnValues, findings } };
  }

  /**
   * Throws when the executor's steps show it ran the original tools: a tool step completed while
   * no call went through the wrapped tools, or an `_Exception` step whose observation is not its
   * input (the stream loop found no `_Exception` tool: not `agent.tools`). Checked until one step
   * passes.
   */
  private checkTools(steps: readonly AgentStep[]): void {
    if (this.toolsChecked || steps.length === 0) return;
    for (const step of steps) {
      const { tool, toolInput } = step.action;
      if (tool === EXCEPTION_TOOL_NAME) {
        if (typeof toolInput === "string" && step.observation !== toolInput) throw new ReactAgentToolsError({ toolName: tool });
        continue;
      }
      if (this.wrappedToolCalls === undefined || !this.toolNames.has(tool)) continue;
      if (this.wrappedToolCalls() === 0) throw new ReactAgentToolsError({ toolName: tool });
      this.toolsChecked = true;
      return;
    }
  }

  /**
   * Callback path only: warns once per agent (a process warning, code
   * `REINS_AGENT_CALLBACKS_MISSING`) when a step is planned without the `LoopControlHandler` you
   * gave among the run's callbacks.
   */
  private checkCallbacks(options: Partial<RunnableConfig> | undefined): void {
    const handler = this.loopControl;
    if (handler === undefined || this.warnedWithoutCallbacks) return;
    const callbacks = options?.callbacks as unknown;
    const handlers = Array.isArray(callbacks) ? callbacks : (callbacks as { handlers?: unknown } | undefined)?.handlers;
    if (Array.isArray(handlers) && handlers.includes(handler)) return;
    this.warnedWithoutCallbacks = true;
    process.emitWarning(
      "ReinsReactAgent: a run was started without agent.callbacks, so the LoopControlHandler you passed as loopControl is off for it. " +
        "Pass { callbacks: agent.callbacks } to executor.invoke/stream/streamEvents, or let createReactAgent build its own loop control.",
      { code: "REINS_AGENT_CALLBACKS_MISSING" },
    );
  }

  private stoppedRunOf(options: Partial<RunnableConfig> | undefined): RunContext | undefined {
    if (this.loopControl === undefined) return undefined;
    for (const runId of runIdsFrom(options)) {
      const context = this.runContext.contextOf(runId);
      if (context?.loop.stop !== undefined) return context;
    }
    return undefined;
  }

  /** Callback path: the graceful finish when the handler has stopped the run. */
  private handlerStopFinish(steps: readonly AgentStep[], options: Partial<RunnableConfig> | undefined): AgentFinish | undefined {
    const context = this.stoppedRunOf(options);
    if (context?.loop.stop === undefined) return undefined;
    // A call the wrapped tool refused because the run was already stopping found nothing: leave it
    // out, so the answer lists what the earlier calls returned (counted from typed events).
    const refused = context.slots.get(REFUSED_CALLS_SLOT);
    const findings = withoutRefusedSteps(steps, typeof refused === "number" ? refused : 0);
    // Failed, refused and dry-run calls from the ToolExecutor's typed outcomes (the run's call
    // records, which a ToolExecutor you built sharing the handler's store writes too), never their wording.
    const typed: LoopFinishStep[] = findings.map((step) => {
      const failed = callFailedIn(context, step) ?? this.callOutcomes?.failedOf(step);
      return failed === undefined ? step : { ...step, failed };
    });
    return this.withFindings(buildLoopStopFinish(context.loop.stop, typed, this.loopFinish), findings);
  }
}

/** A parser rejection left to the executor (`handleParsingErrors: false`): the run goes on. */
class PassedRejection {
  constructor(readonly rejection: unknown) {}
}

/** The text of a model reply: a string (LLM), or a message's content (parts joined). */
function replyText(reply: unknown): string {
  if (typeof reply === "string") return reply;
  const content = (reply as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === "string" ? part : typeof part?.text === "string" ? part.text : "")).join("");
  }
  return String(reply ?? "");
}
