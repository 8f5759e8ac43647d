import type { AgentAction, AgentFinish, AgentStep } from "@langchain/core/agents";
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { BaseLanguageModelInterface } from "@langchain/core/language_models/base";
import { BaseOutputParser } from "@langchain/core/output_parsers";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import { Runnable, RunnableLambda, RunnableSequence, type RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface, ToolInterface } from "@langchain/core/tools";
import {
  buildLoopStopFinish,
  createReActLabelSet,
  DEFAULT_REACT_LABELS,
  matchReActLabel,
  resolveLoopFinishOptions,
  RunContextStore,
  runIdsFrom,
  type LoopFinishOptions,
  type LoopStopDecision,
  type ReActLabelSet,
  type RunContext,
  type ReinsEvent,
  type ReinsEventListener,
  type ReinsEventRecorder,
} from "@reins/core";
import { LoopControlHandler, type LoopControlOptions } from "@reins/loop-control";
import { ObservationCleaner, type ObservationCleanerOptions } from "@reins/observation-cleaner";
import { HardenedReActOutputParser, type HardenedReActOutputParserOptions } from "@reins/react-output-parser";
import { RunStoppedError, ToolExecutor, type ToolExecutorOptions } from "@reins/tool-executor";
import { ReactAgentOptionsError } from "./errors";
import { formatReActScratchpad, renderToolDescriptions } from "./scratchpad";

/** A LangChain tool the agent can call (string-input `Tool` or structured tool). */
export type ReactAgentTool = ToolInterface | StructuredToolInterface;

/** Parser options `createReactAgent` passes on; `tools` are always the agent's tools. */
export type ReactAgentParserOptions = Omit<HardenedReActOutputParserOptions, "tools" | "toolNames">;

/** Loop-control options `createReactAgent` passes on; `runContext` is always the agent's store. */
export type ReactAgentLoopControlOptions = Omit<LoopControlOptions, "runContext">;

/** Options of {@link createReactAgent}: LangChain's, unchanged, plus one per Reins piece. */
export interface CreateReactAgentOptions {
  /** The model (chat model or LLM), as in LangChain's `createReactAgent`. */
  llm: BaseLanguageModelInterface;
  /** The tools, as in LangChain's `createReactAgent`. Hand `agent.tools` to the `AgentExecutor`. */
  tools: readonly ReactAgentTool[];
  /**
   * The ReAct prompt (e.g. `hwchase17/react`). Must have the input variables `tools`,
   * `tool_names` and `agent_scratchpad` (and usually `input`), as in LangChain.
   */
  prompt: BasePromptTemplate;
  /**
   * Whether the executor streams the model call (token streaming in `streamEvents`/`streamLog`),
   * as in LangChain.
   * @default true (the executor's default when left undefined)
   */
  streamRunnable?: boolean;
  /**
   * Stop sequences bound to the model, as the stock agent binds them. `false` binds none, for a
   * model or server that rejects the `stop` parameter (some reasoning models do): the parser then
   * cuts the continuation the model writes past its action.
   * @default ["\nObservation:"]
   */
  stop?: readonly string[] | false;
  /**
   * Options of the `HardenedReActOutputParser` (labels, conflict policy, fuzzy tool names,
   * validators). Its `tools` are the agent's (wrapped) tools.
   * @default {}
   */
  parser?: ReactAgentParserOptions;
  /**
   * Tool policies (timeouts, retries, circuit breaker, fallback, cache, dry-run…): options for a
   * new `ToolExecutor` (the agent adds `runContext`, `metrics` and the observation cleaner as
   * `formatObservation` unless given), or a `ToolExecutor` you built (used as is: give it the
   * same `runContext` for loop notes to reach observations; the agent cannot see that instance's
   * events, so a call it refuses because the run is stopping is then listed among the stopped
   * run's findings; give it the parser's `labels` too, so its neutraliser knows custom labels — an
   * executor the agent builds gets them and the tool names itself). `false` hands the tools over
   * unwrapped (then cleaned by the observation cleaner when that is on).
   * @default {} (a ToolExecutor with `DEFAULT_TOOL_POLICY`: 30 s timeout, retries of retryable
   *   failures, circuit breaker)
   */
  toolExecutor?: ToolExecutorOptions | ToolExecutor | false;
  /**
   * Observation cleaning: options for a new `ObservationCleaner` (the agent adds the parser's
   * `labels` and the tools' names as `toolNames`, for the neutraliser), or one you built. `false`
   * leaves tool results as the ToolExecutor's default formatter writes them.
   * @default {}
   */
  observation?: ObservationCleanerOptions | ObservationCleaner | false;
  /**
   * Loop control: options for a new `LoopControlHandler`, merged over
   * `DEFAULT_REACT_AGENT_OPTIONS.loopControl` (`mode: "finish"`, so a stopped run ends with an
   * `AgentFinish` carrying `stopReason`; `maxSteps: 14`, below the stock `AgentExecutor`'s
   * default `maxIterations` of 15: the graceful finish is planned one iteration after the stop,
   * so keep the executor's `maxIterations` above `maxSteps`, or the executor ends the run first
   * with LangChain's "Agent stopped due to max iterations." and no `stopReason`), or a handler you built
   * (give it the same `runContext`). It reaches the run only when you pass `agent.callbacks` to
   * `invoke`/`stream`. `false` turns detection off; with `metrics` set, an observe-only handler
   * (no detectors, no budgets) is still created so run and step metrics are recorded.
   * @default { mode: "finish", maxSteps: 14 } (repeat, cycle and stall detection, a 14-step and
   *   10-minute budget)
   */
  loopControl?: ReactAgentLoopControlOptions | LoopControlHandler | false;
  /**
   * How the graceful answer of a stopped run is written (escape-hatch line, findings listed).
   * @default DEFAULT_LOOP_FINISH_OPTIONS of `@reins/core`
   */
  loopFinish?: LoopFinishOptions;
  /**
   * Receives every event of every piece: pass `createAgentMetrics()` from `@reins/metrics`.
   * A piece's own `metrics` option, when set, wins.
   * @default undefined
   */
  metrics?: ReinsEventRecorder;
  /** Listener for every event of every piece. @default undefined */
  onEvent?: ReinsEventListener;
  /**
   * The per-run state shared by the wrapped tools, the loop handler and the agent.
   * @default a new `RunContextStore`
   */
  runContext?: RunContextStore;
}

/** Defaults of {@link CreateReactAgentOptions}. */
export const DEFAULT_REACT_AGENT_OPTIONS = Object.freeze({
  /** LangChain's ReAct stop sequence, bound to the model as the stock agent does. */
  stop: Object.freeze(["\nObservation:"]) as readonly string[],
  requiredPromptVariables: Object.freeze(["tools", "tool_names", "agent_scratchpad"]) as readonly string[],
  parser: Object.freeze({}) as ReactAgentParserOptions,
  toolExecutor: Object.freeze({}) as ToolExecutorOptions,
  observation: Object.freeze({}) as ObservationCleanerOptions,
  /**
   * Finish mode, and one step fewer than the stock `AgentExecutor`'s default `maxIterations` (15):
   * a stop is turned into the graceful answer at the next planning call, which the executor must
   * still allow.
   */
  loopControl: Object.freeze({ mode: "finish", maxSteps: 14 }) as ReactAgentLoopControlOptions,
});

/** The input the executor gives the agent: the prompt's variables plus the steps so far. */
export type ReactAgentInput = Record<string, unknown> & { steps: AgentStep[] };

/** What `resolveReactAgentOptions` checked and filled in. */
export interface ResolvedReactAgentOptions {
  readonly llm: BaseLanguageModelInterface;
  readonly tools: readonly ReactAgentTool[];
  readonly prompt: BasePromptTemplate;
  readonly streamRunnable: boolean | undefined;
  readonly stop: readonly string[] | false;
  readonly parser: ReactAgentParserOptions;
  readonly toolExecutor: ToolExecutorOptions | ToolExecutor | false;
  readonly observation: ObservationCleanerOptions | ObservationCleaner | false;
  readonly loopControl: ReactAgentLoopControlOptions | LoopControlHandler | false;
  readonly loopFinish: LoopFinishOptions;
  readonly metrics: ReinsEventRecorder | undefined;
  readonly onEvent: ReinsEventListener | undefined;
  readonly runContext: RunContextStore;
}

function isPlainOptions(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkPieceOption(field: string, value: unknown, instanceOf?: abstract new (...args: never[]) => unknown): void {
  if (value === undefined || value === false) return;
  if (instanceOf !== undefined && value instanceof instanceOf) return;
  if (!isPlainOptions(value)) {
    throw new ReactAgentOptionsError({ field, reason: `must be an options object${instanceOf ? ", an instance" : ""} or false` });
  }
}

/**
 * A per-tool policy keyed by a name no tool has is a typo that would silently drop the policy
 * (a `sideEffects` dry run, a timeout): the ToolExecutor cannot tell, since it learns the tools
 * only at `wrap`, but the agent knows them here.
 */
function checkPolicyNames(toolExecutor: CreateReactAgentOptions["toolExecutor"], toolNames: ReadonlySet<string>): void {
  if (!isPlainOptions(toolExecutor) || toolExecutor instanceof ToolExecutor) return;
  const { policies } = toolExecutor as ToolExecutorOptions;
  if (!isPlainOptions(policies)) return;
  for (const name of Object.keys(policies)) {
    if (!toolNames.has(name)) {
      throw new ReactAgentOptionsError({
        field: `toolExecutor.policies.${name}`,
        reason: `names no tool of this agent (tools: ${[...toolNames].join(", ") || "none"})`,
      });
    }
  }
}

/**
 * Checks `createReactAgent`'s options and fills in the defaults. The pieces validate their own
 * options when they are built.
 *
 * @throws {ReactAgentOptionsError} naming the first bad field (a prompt missing `tools`,
 *   `tool_names` or `agent_scratchpad` is reported as LangChain reports it)
 */
export function resolveReactAgentOptions(options: CreateReactAgentOptions): ResolvedReactAgentOptions {
  if (!isPlainOptions(options)) throw new ReactAgentOptionsError({ field: "options", reason: "must be an object" });
  const { llm, tools, prompt } = options;
  if (llm === null || typeof llm !== "object" || typeof (llm as { withConfig?: unknown }).withConfig !== "function") {
    throw new ReactAgentOptionsError({ field: "llm", reason: "must be a LangChain chat model or LLM" });
  }
  if (!Array.isArray(tools)) throw new ReactAgentOptionsError({ field: "tools", reason: "must be an array of LangChain tools" });
  const seen = new Set<string>();
  tools.forEach((tool: ReactAgentTool, index: number) => {
    if (tool === null || typeof tool !== "object" || typeof tool.name !== "string" || tool.name.length === 0) {
      throw new ReactAgentOptionsError({ field: `tools[${index}]`, reason: "must be a LangChain tool with a non-empty name" });
    }
    if (seen.has(tool.name)) {
      throw new ReactAgentOptionsError({ field: `tools[${index}]`, reason: `repeats the tool name "${tool.name}"` });
    }
    seen.add(tool.name);
  });
  if (prompt === null || typeof prompt !== "object" || !Array.isArray(prompt.inputVariables)) {
    throw new ReactAgentOptionsError({ field: "prompt", reason: "must be a LangChain prompt template" });
  }
  const missing = DEFAULT_REACT_AGENT_OPTIONS.requiredPromptVariables.filter((name) => !prompt.inputVariables.includes(name));
  if (missing.length > 0) {
    throw new ReactAgentOptionsError({
      field: "prompt",
      reason: `is missing required input variables: ${JSON.stringify(missing)}`,
      message: `Provided prompt is missing required input variables: ${JSON.stringify(missing)}`,
    });
  }
  if (options.streamRunnable !== undefined && typeof options.streamRunnable !== "boolean") {
    throw new ReactAgentOptionsError({ field: "streamRunnable", reason: "must be a boolean" });
  }
  const { stop } = options;
  if (stop !== undefined && stop !== false && !(Array.isArray(stop) && stop.length > 0 && stop.every((item) => typeof item === "string" && item.length > 0))) {
    throw new ReactAgentOptionsError({ field: "stop", reason: "must be a non-empty array of non-empty strings, or false" });
  }
  if (options.parser !== undefined && !isPlainOptions(options.parser)) {
    throw new ReactAgentOptionsError({ field: "parser", reason: "must be an options object" });
  }
  checkPieceOption("toolExecutor", options.toolExecutor, ToolExecutor);
  checkPolicyNames(options.toolExecutor, seen);
  checkPieceOption("observation", options.observation, ObservationCleaner);
  checkPieceOption("loopControl", options.loopControl, LoopControlHandler);
  if (options.loopFinish !== undefined && !isPlainOptions(options.loopFinish)) {
    throw new ReactAgentOptionsError({ field: "loopFinish", reason: "must be an options object" });
  }
  // Checked now: at stop time a bad value would only fall back to its default, unnoticed.
  for (const [field, value] of Object.entries(options.loopFinish ?? {})) {
    try {
      resolveLoopFinishOptions({ [field]: value });
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      throw new ReactAgentOptionsError({ field: `loopFinish.${field}`, reason: message.slice(message.indexOf(": ") + 2).replace(/\.$/, ""), cause });
    }
  }
  if (options.metrics !== undefined && typeof options.metrics?.record !== "function") {
    throw new ReactAgentOptionsError({ field: "metrics", reason: "must have a record(event) method (e.g. createAgentMetrics())" });
  }
  if (options.onEvent !== undefined && typeof options.onEvent !== "function") {
    throw new ReactAgentOptionsError({ field: "onEvent", reason: "must be a function" });
  }
  if (options.runContext !== undefined && !(options.runContext instanceof RunContextStore)) {
    throw new ReactAgentOptionsError({ field: "runContext", reason: "must be a RunContextStore from @reins/core" });
  }
  return Object.freeze({
    llm,
    tools,
    prompt,
    streamRunnable: options.streamRunnable,
    stop: stop ?? DEFAULT_REACT_AGENT_OPTIONS.stop,
    parser: options.parser ?? DEFAULT_REACT_AGENT_OPTIONS.parser,
    toolExecutor: options.toolExecutor ?? DEFAULT_REACT_AGENT_OPTIONS.toolExecutor,
    observation: options.observation ?? DEFAULT_REACT_AGENT_OPTIONS.observation,
    loopControl: options.loopControl ?? DEFAULT_REACT_AGENT_OPTIONS.loopControl,
    loopFinish: options.loopFinish ?? {},
    metrics: options.metrics,
    onEvent: options.onEvent,
    runContext: options.runContext ?? new RunContextStore(),
  });
}

/** The run-context slot where the agent counts the tool calls refused because the run was stopping. */
const REFUSED_CALLS_SLOT = "reins.react_agent.refused_calls";

/**
 * Counts, per run, the calls the ToolExecutor refused because loop control had stopped the run: a
 * `tool_call` event with outcome `rejected` carrying a `RunStoppedError` (a typed marker, not the
 * observation's wording). Such calls ran no tool, so the graceful answer leaves them out.
 */
function recordRefusedCall(runContext: RunContextStore, event: ReinsEvent): void {
  if (event.type !== "tool_call" || event.outcome !== "rejected" || event.runId === undefined) return;
  if (!RunStoppedError.isInstance(event.error)) return;
  const context = runContext.contextOf(event.runId);
  if (context === undefined) return;
  const refused = context.slots.get(REFUSED_CALLS_SLOT);
  context.slots.set(REFUSED_CALLS_SLOT, (typeof refused === "number" ? refused : 0) + 1);
}

/**
 * The steps without the last `refused` tool steps. Once a run is stopped every later tool call is
 * refused (the decision is never withdrawn), so refused calls are the last tool steps of the run;
 * the executor's `_Exception` steps (parse errors) call no tool and are skipped over.
 */
function withoutRefusedSteps(steps: readonly AgentStep[], refused: number): AgentStep[] {
  const kept = [...steps];
  let remaining = refused;
  for (let index = kept.length - 1; index >= 0 && remaining > 0; index -= 1) {
    if (kept[index].action.tool === "_Exception") continue;
    kept.splice(index, 1);
    remaining -= 1;
  }
  return kept;
}

function isAgentFinish(result: AgentAction | AgentFinish): result is AgentFinish {
  return "returnValues" in result;
}

const CONTINUATION_REPAIRS = new Set(["hallucinated_observation_cut", "new_question_cut"]);

/**
 * The reply up to the continuation the parser cut (a model-written `Observation:` or `Question:`
 * line after the step began), so the scratchpad, built from `action.log`, never shows the model an
 * observation it invented. Only called when the parser reported such a cut.
 */
export function trimContinuation(text: string, labels: ReActLabelSet = DEFAULT_REACT_LABELS): string {
  let offset = 0;
  let stepStarted = false;
  for (const line of text.split("\n")) {
    const match = matchReActLabel(line, labels);
    if (match !== undefined && (match.label === "observation" || match.label === "question")) {
      if (stepStarted) return text.slice(0, offset).trimEnd();
    } else if (line.trim().length > 0) {
      stepStarted = true;
    }
    offset += line.length + 1;
  }
  return text;
}

/**
 * The last step of one planning call: the hardened parser, told how many observations the run
 * has seen (for the `requireObservationBeforeFinalAnswer` validator), marking a normal finish with
 * `stopReason: "final_answer"`, and keeping an invented continuation out of the action's `log`.
 * A parser run in LangChain's callbacks, as the stock agent's is.
 */
class ReActStepParser extends BaseOutputParser<AgentAction | AgentFinish> {
  static override lc_name(): string {
    return "ReActStepParser";
  }

  lc_namespace = ["reins", "react_agent"];

  constructor(
    private readonly parser: HardenedReActOutputParser,
    private readonly labels: ReActLabelSet,
    private readonly observationCount: number,
    private readonly runId: string | undefined,
  ) {
    super();
  }

  async parse(text: string): Promise<AgentAction | AgentFinish> {
    const report = this.parser.parseDetailed(text, { observationCount: this.observationCount, runId: this.runId });
    if (!report.ok) throw report.error;
    const { result } = report;
    if (isAgentFinish(result)) {
      return { ...result, returnValues: { ...result.returnValues, stopReason: "final_answer" } };
    }
    if (report.repairs.some((repair) => CONTINUATION_REPAIRS.has(repair))) {
      return { ...result, log: trimContinuation(result.log, this.labels) };
    }
    return result;
  }

  getFormatInstructions(): string {
    return this.parser.getFormatInstructions();
  }
}

/** The pieces {@link ReinsReactAgent} is built from. */
export interface ReinsReactAgentFields {
  readonly prompt: BasePromptTemplate;
  readonly llmWithStop: Runnable;
  readonly parser: HardenedReActOutputParser;
  /** The labels the parser reads (to trim an invented continuation from an action's log). */
  readonly labels: ReActLabelSet;
  readonly tools: StructuredToolInterface[];
  readonly callbacks: BaseCallbackHandler[];
  readonly runContext: RunContextStore;
  readonly streamRunnable: boolean | undefined;
  readonly loopFinish: LoopFinishOptions;
  readonly toolExecutor?: ToolExecutor;
  readonly observationCleaner?: ObservationCleaner;
  readonly loopControl?: LoopControlHandler;
}

/**
 * The agent {@link createReactAgent} returns: a runnable the stock `AgentExecutor` accepts as a
 * single-action agent (it has `singleAction: true`, like LangChain's `AgentRunnableSequence`, so
 * `returnDirect` tools work), on `invoke`, `stream` and `streamEvents`.
 *
 * Each planning call first looks up the run's loop decision in the shared run context; when loop
 * control has stopped the run, it returns a graceful `AgentFinish` (what was found so far, the
 * escape-hatch line, `returnValues.stopReason`) without calling the model. Otherwise it runs
 * LangChain's ReAct pipeline — scratchpad, prompt, the model bound to `stop: ["\nObservation:"]`,
 * then the `HardenedReActOutputParser`.
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
  /** The tools to hand to `AgentExecutor`: wrapped by the ToolExecutor, observations cleaned. */
  readonly tools: StructuredToolInterface[];
  /** The callback handlers to pass to `invoke`/`stream` (`{ callbacks: agent.callbacks }`). */
  readonly callbacks: BaseCallbackHandler[];
  /** The per-run state shared by the wrapped tools, the loop handler and the agent. */
  readonly runContext: RunContextStore;
  readonly parser: HardenedReActOutputParser;
  readonly toolExecutor: ToolExecutor | undefined;
  readonly observationCleaner: ObservationCleaner | undefined;
  readonly loopControl: LoopControlHandler | undefined;

  private readonly prompt: BasePromptTemplate;
  private readonly llmWithStop: Runnable;
  private readonly loopFinish: LoopFinishOptions;
  private readonly labels: ReActLabelSet;
  private warnedWithoutCallbacks = false;
  /**
   * Scratchpad and prompt in one step (one run in callbacks instead of the four of LangChain's
   * `RunnablePassthrough.assign` + prompt): every callback handler pays per run, per step.
   */
  private readonly promptStep = RunnableLambda.from(async (input: ReactAgentInput) => {
    const { steps, ...values } = input;
    return this.prompt.formatPromptValue({ ...values, agent_scratchpad: formatReActScratchpad(steps ?? []) });
  }).withConfig({ runName: "ReActPrompt" });

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
  }

  /**
   * Plans one step.
   * @param input - the prompt's variables plus `steps` (the executor's intermediate steps)
   * @param options - the config the executor passes (its callbacks identify the run)
   * @returns an `AgentAction`, or an `AgentFinish` with `returnValues.stopReason`
   * @throws {OutputParserException} (a `ReActFormatError`, `sendToLLM: true`) when the reply
   *   cannot be used; the executor feeds its observation back with `handleParsingErrors: true`
   */
  override async invoke(input: ReactAgentInput, options?: Partial<RunnableConfig>): Promise<AgentAction | AgentFinish> {
    this.checkCallbacks(options);
    const stopped = this.stoppedFinish(input, options);
    if (stopped !== undefined) return stopped;
    return this.planner(input, options).invoke(input, options);
  }

  override async *_streamIterator(
    input: ReactAgentInput,
    options?: Partial<RunnableConfig>,
  ): AsyncGenerator<AgentAction | AgentFinish> {
    this.checkCallbacks(options);
    const stopped = this.stoppedFinish(input, options);
    if (stopped !== undefined) {
      yield stopped;
      return;
    }
    yield* await this.planner(input, options).stream(input, options);
  }

  /**
   * Warns once per agent (a process warning, code `REINS_AGENT_CALLBACKS_MISSING`) when a step is
   * planned without the loop handler among the run's callbacks: the run works, but without loop
   * control and run metrics, which is easy to miss after the swap.
   */
  private checkCallbacks(options: Partial<RunnableConfig> | undefined): void {
    const handler = this.loopControl;
    if (handler === undefined || this.warnedWithoutCallbacks) return;
    const callbacks = options?.callbacks as unknown;
    const handlers = Array.isArray(callbacks) ? callbacks : (callbacks as { handlers?: unknown } | undefined)?.handlers;
    if (Array.isArray(handlers) && handlers.includes(handler)) return;
    this.warnedWithoutCallbacks = true;
    process.emitWarning(
      "ReinsReactAgent: a run was started without agent.callbacks, so loop control and run metrics are off for it. " +
        "Pass { callbacks: agent.callbacks } to executor.invoke/stream/streamEvents.",
      { code: "REINS_AGENT_CALLBACKS_MISSING" },
    );
  }

  /** The loop-control decision of the run `options` belong to, if it was stopped. */
  stopDecisionOf(options: Partial<RunnableConfig> | undefined): LoopStopDecision | undefined {
    return this.stoppedRunOf(options)?.loop.stop;
  }

  private stoppedRunOf(options: Partial<RunnableConfig> | undefined): RunContext | undefined {
    for (const runId of runIdsFrom(options)) {
      const context = this.runContext.contextOf(runId);
      if (context?.loop.stop !== undefined) return context;
    }
    return undefined;
  }

  private stoppedFinish(input: ReactAgentInput, options: Partial<RunnableConfig> | undefined): AgentFinish | undefined {
    const context = this.stoppedRunOf(options);
    if (context?.loop.stop === undefined) return undefined;
    // A call the wrapped tool refused because the run was already stopping found nothing: leave it
    // out, so the answer lists what the earlier calls returned. The refusals are counted from the
    // ToolExecutor's typed events (see recordRefusedCall), never recognised by their wording.
    const refused = context.slots.get(REFUSED_CALLS_SLOT);
    const findings = withoutRefusedSteps(input.steps ?? [], typeof refused === "number" ? refused : 0);
    return buildLoopStopFinish(context.loop.stop, findings, this.loopFinish);
  }

  private planner(input: ReactAgentInput, options: Partial<RunnableConfig> | undefined): Runnable<ReactAgentInput, AgentAction | AgentFinish> {
    const observationCount = (input.steps ?? []).filter((step) => step.action.tool !== "_Exception").length;
    // The parser's events carry the top-level run id (a recorder groups them under the run).
    let runId: string | undefined;
    for (const id of runIdsFrom(options)) {
      runId = this.runContext.contextOf(id)?.runId;
      if (runId !== undefined) break;
    }
    return RunnableSequence.from<ReactAgentInput, AgentAction | AgentFinish>(
      [this.promptStep, this.llmWithStop, new ReActStepParser(this.parser, this.labels, observationCount, runId)],
      "ReactAgent",
    );
  }
}

function observeOnlyLoopOptions(): ReactAgentLoopControlOptions {
  return {
    mode: "finish",
    repeat: false,
    cycle: false,
    stall: false,
    maxSteps: Number.POSITIVE_INFINITY,
    maxDurationMs: Number.POSITIVE_INFINITY,
  };
}

/**
 * Reins' drop-in for LangChain's `createReactAgent`: same options (`llm`, `tools`, `prompt`,
 * `streamRunnable`), same prompt variables (`tools`, `tool_names`, `agent_scratchpad`, `input`),
 * same `stop: ["\nObservation:"]` binding — with the `HardenedReActOutputParser` instead of
 * `ReActSingleInputOutputParser`, tools wrapped by a `ToolExecutor` whose observations go through
 * the `ObservationCleaner`, and a `LoopControlHandler` in finish mode, all sharing one
 * `RunContextStore`. When a model ignores `stop`, the parser still cuts the invented
 * continuation.
 *
 * Hand `agent.tools` to the `AgentExecutor` and pass `agent.callbacks` to `invoke`/`stream`.
 *
 * @param options - see {@link CreateReactAgentOptions}
 * @returns the agent (a {@link ReinsReactAgent})
 * @throws {ReactAgentOptionsError} when an option is invalid (names the field); the pieces throw
 *   their own option errors for their options
 * @example
 * ```ts
 * import { AgentExecutor } from "@langchain/classic/agents"; // or "langchain/agents" on 0.3
 * import { createReactAgent } from "@reins/react-agent";
 * import { createAgentMetrics } from "@reins/metrics";
 *
 * const agent = await createReactAgent({ llm, tools, prompt, metrics: createAgentMetrics() });
 * const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true });
 * const { output, stopReason } = await executor.invoke({ input }, { callbacks: agent.callbacks });
 * ```
 */
export async function createReactAgent(options: CreateReactAgentOptions): Promise<ReinsReactAgent> {
  const resolved = resolveReactAgentOptions(options);
  const { metrics, onEvent } = resolved;
  // One store for the wrapped tools, the handler and the agent: a handler or executor built by the
  // caller brings its own, which the other pieces then share.
  const runContext =
    resolved.loopControl instanceof LoopControlHandler
      ? resolved.loopControl.runContext
      : resolved.toolExecutor instanceof ToolExecutor && resolved.toolExecutor.options.runContext !== undefined
        ? resolved.toolExecutor.options.runContext
        : resolved.runContext;
  const shared = { ...(metrics !== undefined ? { metrics } : {}), ...(onEvent !== undefined ? { onEvent } : {}) };

  // The parser's labels and the agent's tool names reach the neutraliser of every observation
  // (the cleaner and the ToolExecutor), so custom-label lines and paper-style calls of the
  // agent's own tools in tool output are neutralised too.
  const labels = resolved.parser.labels === undefined ? DEFAULT_REACT_LABELS : createReActLabelSet(resolved.parser.labels, resolved.parser.replaceLabels ?? false);
  const toolNames = resolved.tools.map((tool) => tool.name);
  const observationCleaner =
    resolved.observation === false
      ? undefined
      : resolved.observation instanceof ObservationCleaner
        ? resolved.observation
        : new ObservationCleaner({ ...shared, labels, toolNames, ...resolved.observation });

  let toolExecutor: ToolExecutor | undefined;
  let tools: StructuredToolInterface[];
  const originalTools = resolved.tools as StructuredToolInterface[];
  if (resolved.toolExecutor === false) {
    toolExecutor = undefined;
    tools = observationCleaner === undefined ? [...originalTools] : originalTools.map((tool) => observationCleaner.wrapTool(tool));
  } else {
    if (resolved.toolExecutor instanceof ToolExecutor) {
      toolExecutor = resolved.toolExecutor;
    } else {
      const listener = resolved.toolExecutor.onEvent ?? onEvent;
      toolExecutor = new ToolExecutor({
        ...shared,
        runContext,
        labels,
        ...(observationCleaner !== undefined ? { formatObservation: observationCleaner.format } : {}),
        ...resolved.toolExecutor,
        onEvent: (event: ReinsEvent) => {
          recordRefusedCall(runContext, event);
          listener?.(event);
        },
      });
    }
    tools = toolExecutor.wrap(originalTools);
  }

  let loopControl: LoopControlHandler | undefined;
  if (resolved.loopControl instanceof LoopControlHandler) {
    loopControl = resolved.loopControl;
  } else if (resolved.loopControl !== false) {
    loopControl = new LoopControlHandler({ ...shared, ...DEFAULT_REACT_AGENT_OPTIONS.loopControl, ...resolved.loopControl, runContext });
  } else if (metrics !== undefined || onEvent !== undefined) {
    loopControl = new LoopControlHandler({ ...shared, ...observeOnlyLoopOptions(), runContext });
  }

  const parser = new HardenedReActOutputParser({ ...shared, ...resolved.parser, tools });
  const partialedPrompt = (await resolved.prompt.partial({
    tools: renderToolDescriptions(tools),
    tool_names: tools.map((tool) => tool.name).join(", "),
  })) as BasePromptTemplate;
  // withConfig, as the stock agent does: the stop list reaches the model as a call option on both
  // the 0.3 and 1.x lines.
  const llmWithStop =
    resolved.stop === false
      ? (resolved.llm as unknown as Runnable)
      : (resolved.llm as unknown as Runnable).withConfig({ stop: [...resolved.stop] } as Partial<RunnableConfig>);

  return new ReinsReactAgent({
    prompt: partialedPrompt,
    llmWithStop,
    parser,
    labels,
    tools,
    callbacks: loopControl === undefined ? [] : [loopControl],
    runContext,
    streamRunnable: resolved.streamRunnable,
    loopFinish: resolved.loopFinish,
    toolExecutor,
    observationCleaner,
    loopControl,
  });
}
