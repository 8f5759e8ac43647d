import type { BasePromptTemplate } from "@langchain/core/prompts";
import type { Runnable, RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { createReActLabelSet, DEFAULT_REACT_LABELS, type ReinsEvent, type ReinsEventListener, type RunContextStore } from "@reins/core";
import { LoopControlHandler, TrajectoryLoopControl } from "@reins/loop-control";
import { ObservationCleaner } from "@reins/observation-cleaner";
import { HardenedReActOutputParser } from "@reins/react-output-parser";
import { ToolExecutor } from "@reins/tool-executor";
import { CallOutcomes } from "./call-outcomes";
import { ReActExceptionTool } from "./exception-tool";
import {
  DEFAULT_REACT_AGENT_OPTIONS,
  resolveReactAgentOptions,
  type CreateReactAgentOptions,
  type ReactAgentLoopControlOptions,
  type ResolvedReactAgentOptions,
} from "./react-agent-options";
import { ReActProvenance } from "./react-provenance";
import { ReinsReactAgent } from "./reins-react-agent";
import { recordRefusedCall } from "./run-findings";
import { renderToolDescriptions } from "./scratchpad";
import { SharedRunContexts } from "./shared-runs";

/** Loop control that records runs and steps for metrics but never warns or stops. */
const OBSERVE_ONLY_LOOP_OPTIONS: ReactAgentLoopControlOptions = Object.freeze({
  mode: "finish",
  repeat: false,
  cycle: false,
  stall: false,
  maxSteps: Number.POSITIVE_INFINITY,
  maxDurationMs: Number.POSITIVE_INFINITY,
});

/**
 * The run-context store the pieces share: a `LoopControlHandler` or `ToolExecutor` the caller
 * built brings its own, which the other pieces then use; else the option's (or a new) one.
 */
export function pickRunContext(resolved: ResolvedReactAgentOptions): RunContextStore {
  if (resolved.loopControl instanceof LoopControlHandler) return resolved.loopControl.runContext;
  if (resolved.toolExecutor instanceof ToolExecutor && resolved.toolExecutor.options.runContext !== undefined) {
    return resolved.toolExecutor.options.runContext;
  }
  return resolved.runContext;
}

/**
 * Reins' drop-in for LangChain's `createReactAgent`: same options (`llm`, `tools`, `prompt`,
 * `streamRunnable`), same prompt variables (`tools`, `tool_names`, `agent_scratchpad`, `input`),
 * same `stop: ["\nObservation:"]` binding — with the `HardenedReActOutputParser` instead of
 * `ReActSingleInputOutputParser`, tools wrapped by a `ToolExecutor` whose observations go through
 * the `ObservationCleaner`, and loop control in finish mode fed by the agent's own planning step
 * (no callback handler). When a model ignores `stop`, the parser still cuts the invented
 * continuation.
 *
 * The swap from LangChain's agent is the import line plus `tools: agent.tools` in the
 * `AgentExecutor`. Passing the original tools instead is detected at the run's first step and
 * fails with a `ReactAgentToolsError` naming the fix.
 *
 * @param options - see {@link CreateReactAgentOptions}
 * @returns the agent (a {@link ReinsReactAgent})
 * @throws {ReactAgentOptionsError} when an option is invalid (names the field); the pieces throw
 *   their own option errors for their options
 * @example
 * ```ts
 * import { AgentExecutor } from "@langchain/classic/agents"; // or "langchain/agents" on 0.3
 * import { createReactAgent, readReinsAgentOutput } from "@reins/react-agent";
 *
 * const agent = await createReactAgent({ llm, tools, prompt });
 * const executor = new AgentExecutor({ agent, tools: agent.tools });
 * const { output, stopReason } = readReinsAgentOutput(await executor.invoke({ input }));
 * ```
 */
export async function createReactAgent(options: CreateReactAgentOptions): Promise<ReinsReactAgent> {
  const resolved = resolveReactAgentOptions(options);
  const { metrics, onEvent } = resolved;
  const runContext = pickRunContext(resolved);
  const shared = { ...(metrics !== undefined ? { metrics } : {}), ...(onEvent !== undefined ? { onEvent } : {}) };
  // Calls through the agent's wrapped tools, counted from the events of pieces the agent built,
  // to detect an executor given the original tools. Undefined when a piece is the caller's own.
  let wrappedCalls = 0;
  let countsCalls = false;
  const counting = (listener: ReinsEventListener | undefined, type: ReinsEvent["type"]): ReinsEventListener => {
    countsCalls = true;
    return (event: ReinsEvent) => {
      if (event.type === type) wrappedCalls += 1;
      listener?.(event);
    };
  };

  // The parser's labels and the agent's tool names reach the neutraliser of every observation
  // (the cleaner and the ToolExecutor), so custom-label lines and paper-style calls of the
  // agent's own tools in tool output are neutralised too.
  const labels = resolved.parser.labels === undefined ? DEFAULT_REACT_LABELS : createReActLabelSet(resolved.parser.labels, resolved.parser.replaceLabels ?? false);
  const toolNames = resolved.tools.map((tool) => tool.name);
  // The agent's tools are the values of the metrics' `tool` label (a shared recorder learns each agent's).
  metrics?.registerTools?.(toolNames);
  let observationCleaner: ObservationCleaner | undefined;
  if (resolved.observation instanceof ObservationCleaner) observationCleaner = resolved.observation;
  else if (resolved.observation !== false) {
    const cleanerOptions = { ...shared, labels, toolNames, ...resolved.observation };
    observationCleaner =
      resolved.toolExecutor === false
        ? new ObservationCleaner({ ...cleanerOptions, onEvent: counting(cleanerOptions.onEvent, "observation_cleaned") })
        : new ObservationCleaner(cleanerOptions);
  }

  let toolExecutor: ToolExecutor | undefined;
  let callOutcomes: CallOutcomes | undefined;
  let sharedRuns: SharedRunContexts | undefined;
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
      const countingListener = counting(listener, "tool_call");
      const outcomes = new CallOutcomes();
      callOutcomes = outcomes;
      // The callback-free path's runs, shared from the planning step when it has run ids.
      if (!(resolved.loopControl instanceof LoopControlHandler)) sharedRuns = new SharedRunContexts(runContext);
      toolExecutor = new ToolExecutor({
        ...shared,
        runContext: sharedRuns ?? runContext,
        labels,
        ...(observationCleaner !== undefined ? { formatObservation: observationCleaner.format } : {}),
        ...resolved.toolExecutor,
        onEvent: (event: ReinsEvent) => {
          recordRefusedCall(runContext, event);
          outcomes.record(event);
          countingListener(event);
        },
      });
    }
    tools = toolExecutor.wrap(originalTools);
    if (callOutcomes !== undefined) for (const tool of tools) callOutcomes.watch(tool);
    if (sharedRuns !== undefined) for (const tool of tools) sharedRuns.watch(tool);
  }

  let loopControl: LoopControlHandler | undefined;
  let loop: TrajectoryLoopControl | undefined;
  if (resolved.loopControl instanceof LoopControlHandler) loopControl = resolved.loopControl;
  else if (resolved.loopControl !== false) loop = new TrajectoryLoopControl({ ...shared, ...DEFAULT_REACT_AGENT_OPTIONS.loopControl, ...resolved.loopControl });
  // Also when the agent built the ToolExecutor: the run it keeps is what binds each call to its run (dry-run tokens).
  else if (metrics !== undefined || onEvent !== undefined || sharedRuns !== undefined) loop = new TrajectoryLoopControl({ ...shared, ...OBSERVE_ONLY_LOOP_OPTIONS });

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
  const wrapsTools = tools.some((tool, index) => tool !== originalTools[index]);

  return new ReinsReactAgent({
    prompt: partialedPrompt,
    llmWithStop,
    parser,
    labels,
    tools: [...tools, new ReActExceptionTool()],
    callbacks: loopControl === undefined ? [] : [loopControl],
    runContext,
    streamRunnable: resolved.streamRunnable,
    handleParsingErrors: resolved.handleParsingErrors,
    provenance: new ReActProvenance(tools, shared),
    ...(callOutcomes !== undefined ? { callOutcomes } : {}),
    ...(sharedRuns !== undefined ? { sharedRuns } : {}),
    loopFinish: resolved.loopFinish,
    ...requestedModelOf(resolved.llm),
    toolExecutor,
    observationCleaner,
    loopControl,
    loop,
    ...(wrapsTools && countsCalls ? { wrappedToolCalls: () => wrappedCalls } : {}),
    returnDirectTools: new Set(originalTools.filter((tool) => (tool as { returnDirect?: boolean }).returnDirect === true).map((tool) => tool.name)),
  });
}

/** The model name a chat model or LLM was built with (`model`, else `modelName`), when it is a string. */
function requestedModelOf(llm: unknown): { requestedModel?: string } {
  const fields = llm as { model?: unknown; modelName?: unknown } | null | undefined;
  const name = typeof fields?.model === "string" ? fields.model : typeof fields?.modelName === "string" ? fields.modelName : undefined;
  return name === undefined || name === "" ? {} : { requestedModel: name };
}
