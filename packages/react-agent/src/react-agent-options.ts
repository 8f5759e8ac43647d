import type { AgentStep } from "@langchain/core/agents";
import type { BaseLanguageModelInterface } from "@langchain/core/language_models/base";
import type { OutputParserException } from "@langchain/core/output_parsers";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import type { StructuredToolInterface, ToolInterface } from "@langchain/core/tools";
import { isRecord, loopFinishOptionProblem, RunContextStore, type LoopFinishOptions, type ReinsEventListener, type ReinsEventRecorder } from "@reins/core";
import { LoopControlHandler, type LoopControlOptions } from "@reins/loop-control";
import { ObservationCleaner, type ObservationCleanerOptions } from "@reins/observation-cleaner";
import type { HardenedReActOutputParserOptions } from "@reins/react-output-parser";
import { ToolExecutor, type ToolExecutorOptions } from "@reins/tool-executor";
import { ReactAgentOptionsError } from "./errors";

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
   * What the agent does with a reply the parser rejects. With `true`, the agent plans the
   * executor's parse-error step itself (an `_Exception` action whose observation is the parser's
   * corrective message), so the model reads the same text on `invoke`, `stream` and
   * `streamEvents`, and the executor needs no `handleParsingErrors`. A string, or a function of
   * the parser's `OutputParserException`, gives the observation instead, as LangChain's executor
   * option does. `false` throws the exception out of `plan`, leaving it to the executor's own
   * `handleParsingErrors` (LangChain's stock behaviour; on `stream()` the executor then looks
   * for a tool named `_Exception`, which `agent.tools` provides).
   * @default true
   */
  handleParsingErrors?: boolean | string | ((error: OutputParserException) => string);
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
   * Loop control: options for the agent's own loop control (a `TrajectoryLoopControl`, fed by
   * the agent's planning step: no callback handler, nothing to pass to `invoke`/`stream`), merged
   * over `DEFAULT_REACT_AGENT_OPTIONS.loopControl` (`mode: "finish"`, so a stopped run ends with
   * an `AgentFinish` carrying `stopReason`; `maxSteps: 14`, below the stock `AgentExecutor`'s
   * default `maxIterations` of 15: the graceful finish is planned one iteration after the last
   * allowed step, so keep the executor's `maxIterations` above `maxSteps`; the agent cannot see
   * the executor's setting, and a lower one ends the run first with LangChain's "Agent stopped
   * due to max iterations.", which {@link readReinsAgentOutput} reports as `max_steps`).
   * Or a `LoopControlHandler` you built (the callback path, for compatibility: then pass
   * `agent.callbacks` to `invoke`/`stream` and give it the same `runContext`). `false` turns
   * detection off; with `metrics` or `onEvent` set, an observe-only controller (no detectors,
   * no budgets) still records run and step metrics.
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

/** The input variables a ReAct prompt must have, as LangChain's `createReactAgent` requires them. */
export const REQUIRED_PROMPT_VARIABLES: readonly string[] = Object.freeze(["tools", "tool_names", "agent_scratchpad"]);

/** Defaults of {@link CreateReactAgentOptions}. */
export const DEFAULT_REACT_AGENT_OPTIONS = Object.freeze({
  /** LangChain's ReAct stop sequence, bound to the model as the stock agent does. */
  stop: Object.freeze(["\nObservation:"]) as readonly string[],
  parser: Object.freeze({}) as ReactAgentParserOptions,
  handleParsingErrors: true as boolean | string | ((error: OutputParserException) => string),
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
  readonly handleParsingErrors: boolean | string | ((error: OutputParserException) => string);
  readonly toolExecutor: ToolExecutorOptions | ToolExecutor | false;
  readonly observation: ObservationCleanerOptions | ObservationCleaner | false;
  readonly loopControl: ReactAgentLoopControlOptions | LoopControlHandler | false;
  readonly loopFinish: LoopFinishOptions;
  readonly metrics: ReinsEventRecorder | undefined;
  readonly onEvent: ReinsEventListener | undefined;
  readonly runContext: RunContextStore;
}


function checkPieceOption(field: string, value: unknown, instanceOf?: abstract new (...args: never[]) => unknown): void {
  if (value === undefined || value === false) return;
  if (instanceOf !== undefined && value instanceof instanceOf) return;
  if (!isRecord(value)) {
    throw new ReactAgentOptionsError({ field, reason: `must be an options object${instanceOf ? ", an instance" : ""} or false` });
  }
}

/**
 * A per-tool policy keyed by a name no tool has is a typo that would silently drop the policy
 * (a `sideEffects` dry run, a timeout): the ToolExecutor cannot tell, since it learns the tools
 * only at `wrap`, but the agent knows them here.
 */
function checkPolicyNames(toolExecutor: CreateReactAgentOptions["toolExecutor"], toolNames: ReadonlySet<string>): void {
  if (!isRecord(toolExecutor) || toolExecutor instanceof ToolExecutor) return;
  const { policies } = toolExecutor as ToolExecutorOptions;
  if (!isRecord(policies)) return;
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
  if (!isRecord(options)) throw new ReactAgentOptionsError({ field: "options", reason: "must be an object" });
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
  const missing = REQUIRED_PROMPT_VARIABLES.filter((name) => !prompt.inputVariables.includes(name));
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
  const { handleParsingErrors } = options;
  if (handleParsingErrors !== undefined && !["boolean", "string", "function"].includes(typeof handleParsingErrors)) {
    throw new ReactAgentOptionsError({ field: "handleParsingErrors", reason: "must be a boolean, a string or a function" });
  }
  if (options.parser !== undefined && !isRecord(options.parser)) {
    throw new ReactAgentOptionsError({ field: "parser", reason: "must be an options object" });
  }
  checkPieceOption("toolExecutor", options.toolExecutor, ToolExecutor);
  checkPolicyNames(options.toolExecutor, seen);
  checkPieceOption("observation", options.observation, ObservationCleaner);
  checkPieceOption("loopControl", options.loopControl, LoopControlHandler);
  if (options.loopFinish !== undefined && !isRecord(options.loopFinish)) {
    throw new ReactAgentOptionsError({ field: "loopFinish", reason: "must be an options object" });
  }
  // Checked now: at stop time a bad value would only fall back to its default, unnoticed.
  for (const [field, value] of Object.entries(options.loopFinish ?? {})) {
    const reason = loopFinishOptionProblem(field, value);
    if (reason !== undefined) throw new ReactAgentOptionsError({ field: `loopFinish.${field}`, reason });
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
    handleParsingErrors: handleParsingErrors ?? DEFAULT_REACT_AGENT_OPTIONS.handleParsingErrors,
    toolExecutor: options.toolExecutor ?? DEFAULT_REACT_AGENT_OPTIONS.toolExecutor,
    observation: options.observation ?? DEFAULT_REACT_AGENT_OPTIONS.observation,
    loopControl: options.loopControl ?? DEFAULT_REACT_AGENT_OPTIONS.loopControl,
    loopFinish: options.loopFinish ?? {},
    metrics: options.metrics,
    onEvent: options.onEvent,
    runContext: options.runContext ?? new RunContextStore(),
  });
}


