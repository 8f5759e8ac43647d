import { randomUUID } from "node:crypto";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { createMiddleware, type AgentMiddleware } from "langchain";
import { z } from "zod/v4";
import {
  buildLoopStopFinish,
  emitEvent,
  fingerprintObservation,
  resolveLoopFinishOptions,
  RunContextStore,
  STOP_REASONS,
  stripLoopNotes,
  type LoopFinishOptions,
  type LoopFinishStep,
  type LoopStopDecision,
  type ReinsEvent,
  type ReinsEventListener,
  type ReinsEventRecorder,
  type RunContext,
  type StopReason,
} from "@reins/core";
import { LoopControlHandler, resolveLoopControlOptions, type LoopControlOptions, type ResolvedLoopControlOptions } from "@reins/loop-control";
import { ObservationCleaner, type ObservationCleanerOptions } from "@reins/observation-cleaner";
import { ToolExecutor, type ToolExecutorOptions } from "@reins/tool-executor";
import { ReinsMiddlewareOptionsError } from "./errors";
import { RunLoopMonitor, type MonitoredCall } from "./loop-monitor";
import { MIDDLEWARE_MESSAGES } from "./messages";
import { repairToolCall, type RepairableTool, type ToolCallRepairOptions } from "./tool-call-repair";

/** Loop-control options the middleware uses (`mode` and `runContext` are the middleware's own). */
export type ReinsMiddlewareLoopControlOptions = Omit<LoopControlOptions, "runContext" | "mode" | "audit">;

/** Options of {@link createReinsMiddleware}: one per Reins piece, as in `createReactAgent`. */
export interface ReinsMiddlewareOptions {
  /**
   * Tool policies (timeout with the tool's AbortSignal, retries, circuit breaker, fallback,
   * validation, cache, dry run and approval, call caps, result checks, bulkhead): options for a new
   * `ToolExecutor` (the middleware adds `runContext`, `metrics`, `onEvent` and the observation
   * cleaner as `formatObservation` unless given), or a `ToolExecutor` you built (give it the
   * middleware's `runContext` for per-run limits and loop notes). `false` runs tools unwrapped.
   * @default {} (`DEFAULT_TOOL_POLICY`: 30 s timeout, retries of retryable failures, circuit breaker)
   */
  toolExecutor?: ToolExecutorOptions | ToolExecutor | false;
  /**
   * Observation cleaning and neutralisation: options for a new `ObservationCleaner`, or one you
   * built. `false` leaves results as the ToolExecutor's default formatter writes them (error
   * texts are then not neutralised either).
   * @default {}
   */
  observation?: ObservationCleanerOptions | ObservationCleaner | false;
  /**
   * Loop control: `LoopControlOptions` (detectors, budgets, prices, notes), or a
   * `LoopControlHandler` whose options are used. `mode` is always a graceful finish here. `maxSteps`
   * counts model calls. `false` turns detection and budgets off (run and tool metrics are still
   * recorded).
   * @default {} (repeat, cycle and stall detection; 15 model calls; 10 minutes)
   */
  loopControl?: ReinsMiddlewareLoopControlOptions | LoopControlHandler | false;
  /**
   * How the final `AIMessage` of a stopped run is written (escape-hatch line, findings listed).
   * @default DEFAULT_LOOP_FINISH_OPTIONS of `@reins/core`
   */
  loopFinish?: LoopFinishOptions;
  /**
   * Tool-call repair (names and arguments) before a call runs. `false` turns it off.
   * @default {} (`DEFAULT_TOOL_CALL_REPAIR_OPTIONS`)
   */
  repair?: ToolCallRepairOptions | false;
  /**
   * Receives every event of every piece: pass `createAgentMetrics()` from `@reins/metrics`.
   * @default undefined
   */
  metrics?: ReinsEventRecorder;
  /** Listener for every event of every piece. @default undefined */
  onEvent?: ReinsEventListener;
  /**
   * The per-run state shared by the wrapped tools and the middleware.
   * @default a new `RunContextStore`
   */
  runContext?: RunContextStore;
  /**
   * Most runs tracked at once; the oldest run's state is dropped beyond it (a run that threw
   * never reaches `afterAgent`).
   * @default 10000
   */
  maxActiveRuns?: number;
}

/** Defaults of {@link ReinsMiddlewareOptions}. */
export const DEFAULT_REINS_MIDDLEWARE_OPTIONS = Object.freeze({
  toolExecutor: Object.freeze({}) as ToolExecutorOptions,
  observation: Object.freeze({}) as ObservationCleanerOptions,
  loopControl: Object.freeze({}) as ReinsMiddlewareLoopControlOptions,
  repair: Object.freeze({}) as ToolCallRepairOptions,
  maxActiveRuns: 10_000,
});

/** The state the middleware adds to the agent's state (`stateSchema`). */
export const reinsStateSchema = z.object({
  /** Why the run ended: `final_answer`, or the loop-control stop reason. */
  stopReason: z.enum(STOP_REASONS as unknown as [StopReason, ...StopReason[]]).optional(),
  /** The id of the current run in the middleware's `RunContextStore`. */
  reinsRunId: z.string().optional(),
});

/** The middleware {@link createReinsMiddleware} returns: a LangChain v1 `AgentMiddleware` adding {@link reinsStateSchema}. */
export type ReinsMiddleware = AgentMiddleware<typeof reinsStateSchema>;

const MIDDLEWARE_NAME = "ReinsMiddleware";
/** Tool names createAgent gives its structured-output tools (`responseFormat`). */
const STRUCTURED_OUTPUT_PREFIX = "extract-";
const RUN_SLOT = "@reins/agent-middleware";

/** Per-run state of the middleware, in the run's `RunContext` slots. */
interface RunSlot {
  readonly monitor: RunLoopMonitor | undefined;
  /** Corrective texts for calls that cannot run, by tool-call id. */
  readonly corrections: Map<string, string>;
  modelStartedAtMs: number | undefined;
  /** LangGraph's step number at the last `beforeModel`, to measure how many steps a turn takes. */
  lastModelStep: number | undefined;
  turnSteps: number | undefined;
}

/** Graph steps one model turn takes before it is measured (before_model, model, after_model, tools). */
const DEFAULT_TURN_STEPS = 4;

/**
 * The decision to stop before LangGraph's recursion limit would end the run with a
 * `GraphRecursionError` (what LangChain v1 has instead of a graceful stop): the next turn would
 * not leave room for the graceful end. Reads the node's config (`recursionLimit`,
 * `metadata.langgraph_step`) from LangChain's async-local config.
 */
function recursionStop(slot: RunSlot): LoopStopDecision | undefined {
  const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as
    | { recursionLimit?: unknown; metadata?: { langgraph_step?: unknown } }
    | undefined;
  const step = config?.metadata?.langgraph_step;
  const limit = config?.recursionLimit;
  if (typeof step !== "number" || typeof limit !== "number") return undefined;
  if (slot.lastModelStep !== undefined && step > slot.lastModelStep) slot.turnSteps = step - slot.lastModelStep;
  slot.lastModelStep = step;
  const turnSteps = slot.turnSteps ?? DEFAULT_TURN_STEPS;
  if (step + turnSteps + 1 < limit) return undefined;
  return {
    reason: "max_steps",
    message: `LangGraph's recursion limit of ${limit} steps would be reached in the next turn (step ${step}, ${turnSteps} steps per turn); raise recursionLimit above ${turnSteps} × maxSteps for longer runs.`,
  };
}

function isPlainOptions(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkPieceOption(field: string, value: unknown, instanceOf?: abstract new (...args: never[]) => unknown): void {
  if (value === undefined || value === false) return;
  if (instanceOf !== undefined && value instanceof instanceOf) return;
  if (!isPlainOptions(value)) {
    throw new ReinsMiddlewareOptionsError({ field, reason: `must be an options object${instanceOf ? ", an instance" : ""} or false` });
  }
}

function textOf(message: BaseMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => (typeof block === "string" ? block : block !== null && typeof block === "object" && "text" in block && typeof block.text === "string" ? block.text : ""))
    .join("");
}

/** The completed tool calls of a run's messages, as loop-finish steps (AI call + its ToolMessage). */
function findingsOf(messages: readonly BaseMessage[]): LoopFinishStep[] {
  const calls = new Map<string, { tool: string; toolInput: unknown }>();
  const steps: LoopFinishStep[] = [];
  for (const message of messages) {
    if (AIMessage.isInstance(message)) {
      for (const call of message.tool_calls ?? []) if (call.id !== undefined) calls.set(call.id, { tool: call.name, toolInput: call.args });
    } else if (ToolMessage.isInstance(message)) {
      const action = calls.get(message.tool_call_id);
      if (action !== undefined) steps.push({ action, observation: stripLoopNotes(textOf(message)), failed: message.status === "error" });
    }
  }
  return steps;
}

/**
 * Reins for LangChain v1 `createAgent`: the same pieces as `createReactAgent`, as one middleware.
 *
 * - `wrapToolCall`: runs the call through the `ToolExecutor` (timeout with the tool's AbortSignal,
 *   retries, breaker, fallback, validation, cache, dry run, call caps, result checks, bulkhead),
 *   whose observation goes through the `ObservationCleaner` (budget, neutraliser). It always
 *   returns a `ToolMessage` (`status: "error"` where the call failed) and never throws into the
 *   graph, so the agent needs no `handleToolErrors`. Error texts also pass the neutraliser.
 * - `wrapModelCall`: repairs the tool calls of the model's reply (names, JSON arguments, also
 *   LangChain's `invalid_tool_calls` that a provider could not parse) with the parser's JSON
 *   repair; what cannot be repaired is answered with a corrective `ToolMessage` naming the valid
 *   tools or the fields, as Vercel AI's `repairToolCall` does.
 * - `beforeModel` / `afterModel`: `@reins/loop-control`'s repeat, cycle and stall detectors over
 *   `tool_calls` and the AI text, and step, time, token and cost budgets from `usage_metadata`. A
 *   warning goes into the next ToolMessage; a stop ends the run gracefully (`jumpTo: "end"`) with a
 *   final `AIMessage` written from the run's findings, and `stopReason` in the agent state.
 * - Events and metrics: the ToolExecutor's, the cleaner's and the run's (`run_start`, `run_end`,
 *   `step`, `token_usage`, `loop_detection`) reach `metrics` and `onEvent`, the same catalog as
 *   the classic path.
 *
 * Follows LangChain's middleware conventions (`toolCallLimitMiddleware`'s `jumpTo: "end"` with an
 * `AIMessage` and error `ToolMessage`s for the calls it does not run).
 *
 * @param options - see {@link ReinsMiddlewareOptions}
 * @returns the middleware, for `createAgent({ middleware: [createReinsMiddleware()] })`
 * @throws {ReinsMiddlewareOptionsError} when an option is invalid (names the field); the pieces
 *   throw their own option errors for their options
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * import { createReinsMiddleware } from "@reins/agent-middleware";
 * import { createAgentMetrics } from "@reins/metrics";
 *
 * const agent = createAgent({
 *   model, tools,
 *   middleware: [createReinsMiddleware({ toolExecutor: { policies: { search: { timeoutMs: 5_000 } } }, metrics: createAgentMetrics() })],
 * });
 * const { messages, stopReason } = await agent.invoke({ messages: [{ role: "user", content: "…" }] });
 * ```
 */
export function createReinsMiddleware(options: ReinsMiddlewareOptions = {}): ReinsMiddleware {
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new ReinsMiddlewareOptionsError({ field: "options", reason: "must be an object" });
  checkPieceOption("toolExecutor", options.toolExecutor, ToolExecutor);
  checkPieceOption("observation", options.observation, ObservationCleaner);
  checkPieceOption("loopControl", options.loopControl, LoopControlHandler);
  checkPieceOption("repair", options.repair);
  if (options.loopFinish !== undefined && !isPlainOptions(options.loopFinish)) {
    throw new ReinsMiddlewareOptionsError({ field: "loopFinish", reason: "must be an options object" });
  }
  for (const [field, value] of Object.entries(options.loopFinish ?? {})) {
    try {
      resolveLoopFinishOptions({ [field]: value });
    } catch (cause) {
      throw new ReinsMiddlewareOptionsError({ field: `loopFinish.${field}`, reason: cause instanceof Error ? cause.message : String(cause), cause });
    }
  }
  if (options.metrics !== undefined && typeof options.metrics?.record !== "function") {
    throw new ReinsMiddlewareOptionsError({ field: "metrics", reason: "must have a record(event) method (e.g. createAgentMetrics())" });
  }
  if (options.onEvent !== undefined && typeof options.onEvent !== "function") {
    throw new ReinsMiddlewareOptionsError({ field: "onEvent", reason: "must be a function" });
  }
  if (options.runContext !== undefined && !(options.runContext instanceof RunContextStore)) {
    throw new ReinsMiddlewareOptionsError({ field: "runContext", reason: "must be a RunContextStore" });
  }
  const maxActiveRuns = options.maxActiveRuns ?? DEFAULT_REINS_MIDDLEWARE_OPTIONS.maxActiveRuns;
  if (!Number.isInteger(maxActiveRuns) || maxActiveRuns < 1) {
    throw new ReinsMiddlewareOptionsError({ field: "maxActiveRuns", reason: "must be a positive integer" });
  }

  const { metrics, onEvent, loopFinish = {} } = options;
  const shared = { ...(metrics !== undefined ? { metrics } : {}), ...(onEvent !== undefined ? { onEvent } : {}) };
  const runContext =
    options.toolExecutor instanceof ToolExecutor && options.toolExecutor.options.runContext !== undefined
      ? options.toolExecutor.options.runContext
      : (options.runContext ?? new RunContextStore());

  const observationCleaner =
    options.observation === false
      ? undefined
      : options.observation instanceof ObservationCleaner
        ? options.observation
        : new ObservationCleaner({ ...shared, ...(options.observation ?? {}) });

  const toolExecutor =
    options.toolExecutor === false
      ? undefined
      : options.toolExecutor instanceof ToolExecutor
        ? options.toolExecutor
        : new ToolExecutor({
            ...shared,
            runContext,
            ...(observationCleaner !== undefined ? { formatObservation: observationCleaner.format } : {}),
            ...(options.toolExecutor ?? {}),
          });

  let loopOptions: ResolvedLoopControlOptions | undefined;
  if (options.loopControl instanceof LoopControlHandler) loopOptions = options.loopControl.options;
  else if (options.loopControl !== false) {
    try {
      loopOptions = resolveLoopControlOptions({ ...(options.loopControl ?? {}), mode: "finish" });
    } catch (cause) {
      if (cause instanceof Error && cause.name === "LoopControlOptionsError") throw cause;
      throw new ReinsMiddlewareOptionsError({ field: "loopControl", reason: cause instanceof Error ? cause.message : String(cause), cause });
    }
  }
  const repairOptions = options.repair === false ? undefined : (options.repair ?? DEFAULT_REINS_MIDDLEWARE_OPTIONS.repair);
  const now = loopOptions?.now ?? Date.now;

  const emit = (event: ReinsEvent): void => emitEvent(event, [metrics, onEvent]);
  const liveRuns: string[] = [];

  const slotOf = (context: RunContext | undefined): RunSlot | undefined => context?.slots.get(RUN_SLOT) as RunSlot | undefined;
  const runOf = (state: { reinsRunId?: string } | undefined): { context: RunContext; slot: RunSlot } | undefined => {
    const context = runContext.contextOf(state?.reinsRunId);
    const slot = slotOf(context);
    return context === undefined || slot === undefined ? undefined : { context, slot };
  };

  const startRun = (): string => {
    const runId = randomUUID();
    const context = runContext.start(runId);
    const slot: RunSlot = {
      monitor: loopOptions === undefined ? undefined : new RunLoopMonitor(loopOptions),
      corrections: new Map(),
      modelStartedAtMs: undefined,
      lastModelStep: undefined,
      turnSteps: undefined,
    };
    context.slots.set(RUN_SLOT, slot);
    liveRuns.push(runId);
    while (liveRuns.length > maxActiveRuns) {
      const oldest = liveRuns.shift();
      if (oldest !== undefined) runContext.release(oldest);
    }
    emit({ type: "run_start", runId });
    return runId;
  };

  const endRun = (runId: string, stopReason: StopReason): void => {
    const context = runContext.contextOf(runId);
    if (context === undefined) return;
    const status = stopReason === "final_answer" ? "success" : stopReason === "error" ? "error" : "stopped";
    emit({ type: "run_end", runId, status, stopReason, durationMs: Math.max(0, now() - context.startedAtMs) });
    runContext.release(runId);
    const index = liveRuns.indexOf(runId);
    if (index >= 0) liveRuns.splice(index, 1);
  };

  /** The graceful end of a stopped run: error ToolMessages for calls not run, then the final AIMessage. */
  const stopUpdate = (runId: string, decision: LoopStopDecision, messages: readonly BaseMessage[], pending: ReadonlyArray<{ id?: string; name: string }>) => {
    const context = runContext.contextOf(runId);
    if (context !== undefined) context.loop.stop = decision;
    const finish = buildLoopStopFinish(decision, findingsOf(messages), loopFinish);
    const notRun = pending
      .filter((call) => call.id !== undefined)
      .map((call) => new ToolMessage({ content: MIDDLEWARE_MESSAGES.notRunStopped(call.name), tool_call_id: call.id as string, name: call.name, status: "error" }));
    // Ended here: a jump to "end" from beforeModel skips afterAgent (langchain 1.5), and nothing
    // after a stop needs the run's state. afterAgent, when it does run, finds no run to end.
    endRun(runId, decision.reason);
    return {
      jumpTo: "end" as const,
      stopReason: decision.reason,
      messages: [...notRun, new AIMessage({ content: finish.returnValues.output, response_metadata: { stopReason: decision.reason, stopMessage: decision.message } })],
    };
  };

  const noteAll = (context: RunContext, notes: readonly string[]): void => {
    for (const note of notes) context.loop.pendingNotes.push(note);
  };

  /** Tool-call repair of one model reply; corrections are kept for `wrapToolCall`. */
  const repairReply = (message: AIMessage, tools: readonly RepairableTool[], slot: RunSlot | undefined): AIMessage => {
    if (repairOptions === undefined || tools.length === 0) return message;
    const written = [
      ...(message.tool_calls ?? []).map((call) => ({ name: call.name, args: call.args as unknown, id: call.id })),
      ...(message.invalid_tool_calls ?? []).map((call) => ({ name: call.name ?? "", args: call.args as unknown, id: call.id })),
    ];
    if (written.length === 0) return message;
    let changed = (message.invalid_tool_calls ?? []).length > 0;
    const toolCalls = written.map((call, index) => {
      const id = call.id ?? `reins_call_${index}_${randomUUID().slice(0, 8)}`;
      if (call.id === undefined) changed = true;
      // createAgent's structured-output tools (responseFormat), answered by the agent itself.
      if (call.name.startsWith(STRUCTURED_OUTPUT_PREFIX) && typeof call.args === "object" && call.args !== null) {
        return { name: call.name, args: call.args as Record<string, unknown>, id, type: "tool_call" as const };
      }
      const result = repairToolCall(call, tools, repairOptions);
      if (!result.ok) {
        slot?.corrections.set(id, result.correction);
        if (typeof call.args !== "object" || call.args === null) changed = true;
        return { name: call.name, args: typeof call.args === "object" && call.args !== null ? (call.args as Record<string, unknown>) : {}, id, type: "tool_call" as const };
      }
      if (result.repairs.length > 0) {
        changed = true;
        for (const repair of result.repairs) emit({ type: "parser_repair", repair, detail: `tool call ${result.name}` });
      }
      return { name: result.name, args: result.args, id, type: "tool_call" as const };
    });
    if (!changed) return message;
    return new AIMessage({
      content: message.content,
      ...(message.id !== undefined ? { id: message.id } : {}),
      tool_calls: toolCalls,
      invalid_tool_calls: [],
      additional_kwargs: message.additional_kwargs,
      response_metadata: message.response_metadata,
      ...(message.usage_metadata !== undefined ? { usage_metadata: message.usage_metadata } : {}),
    });
  };

  /** The Reins-wrapped version of a tool (the ToolExecutor keeps one wrapper per tool object). */
  const wrappedOf = (tool: StructuredToolInterface): StructuredToolInterface => (toolExecutor === undefined ? tool : toolExecutor.wrapTool(tool));

  /** Error texts come from outside the model too (a tool's thrown message): they pass the neutraliser. */
  const neutralizedError = (message: ToolMessage): ToolMessage => {
    if (observationCleaner === undefined || message.status !== "error" || typeof message.content !== "string") return message;
    const text = observationCleaner.format(message.content, { toolName: message.name ?? "unknown" });
    if (text === message.content) return message;
    return new ToolMessage({ content: text, tool_call_id: message.tool_call_id, name: message.name, status: "error", artifact: message.artifact });
  };

  return createMiddleware({
    name: MIDDLEWARE_NAME,
    stateSchema: reinsStateSchema,
    beforeAgent: () => ({ reinsRunId: startRun(), stopReason: undefined }),
    beforeModel: {
      canJumpTo: ["end"],
      hook: (state) => {
        const run = runOf(state);
        if (run === undefined) return undefined;
        run.slot.modelStartedAtMs = now();
        const monitor = run.slot.monitor;
        if (monitor === undefined) return undefined;
        const verdict = monitor.checkBudgets();
        noteAll(run.context, verdict.notes);
        const stop = verdict.stop ?? recursionStop(run.slot);
        if (stop !== undefined) return stopUpdate(run.context.runId, stop, state.messages, []);
        monitor.modelCalls += 1;
        return undefined;
      },
    },
    wrapModelCall: async (request, handler) => {
      const response = await handler(request);
      if (!AIMessage.isInstance(response)) return response;
      const tools = (request.tools ?? []).filter(
        (tool): tool is StructuredToolInterface => tool !== null && typeof tool === "object" && typeof (tool as { name?: unknown }).name === "string",
      );
      return repairReply(response, tools, runOf(request.state as { reinsRunId?: string })?.slot);
    },
    afterModel: {
      canJumpTo: ["end"],
      hook: (state) => {
        const run = runOf(state);
        const last = state.messages.at(-1);
        if (run === undefined || last === undefined || !AIMessage.isInstance(last)) return undefined;
        const { context, slot } = run;
        const runId = context.runId;
        if (slot.modelStartedAtMs !== undefined) {
          emit({ type: "step_duration", runId, phase: "llm", durationMs: Math.max(0, now() - slot.modelStartedAtMs) });
          slot.modelStartedAtMs = undefined;
        }
        const usage = last.usage_metadata;
        const estimate = loopOptions?.estimateTokens ?? ((text: string) => Math.ceil(text.length / 4));
        const inputTokens = usage?.input_tokens ?? estimate(state.messages.slice(0, -1).map(textOf).join("\n"));
        const outputTokens = usage?.output_tokens ?? estimate(textOf(last) + JSON.stringify(last.tool_calls ?? []));
        emit({ type: "token_usage", runId, inputTokens, outputTokens, estimated: usage === undefined });
        const model = (last.response_metadata?.model_name ?? last.response_metadata?.model) as string | undefined;
        slot.monitor?.addUsage(inputTokens, outputTokens, model);

        const text = textOf(last);
        const calls: MonitoredCall[] = (last.tool_calls ?? []).filter((call) => !call.name.startsWith(STRUCTURED_OUTPUT_PREFIX)).map((call) => ({ name: call.name, args: call.args, ...(call.id !== undefined ? { id: call.id } : {}) }));
        if (text.trim().length > 0) emit({ type: "step", runId, step: "thought" });
        if (calls.length === 0) {
          emit({ type: "step", runId, step: "finish" });
          return { stopReason: "final_answer" as const };
        }
        for (let index = 0; index < calls.length; index += 1) emit({ type: "step", runId, step: "action" });
        const monitor = slot.monitor;
        if (monitor === undefined) return undefined;
        const verdict = monitor.observeTurn(text, calls.filter((call) => call.id === undefined || !slot.corrections.has(call.id)));
        for (const detection of verdict.detections) emit({ type: "loop_detection", runId, ...detection });
        if (verdict.stop !== undefined) return stopUpdate(runId, verdict.stop, state.messages, calls);
        noteAll(context, verdict.notes);
        return undefined;
      },
    },
    wrapToolCall: async (request, handler) => {
      const run = runOf(request.state as { reinsRunId?: string });
      const { toolCall } = request;
      const runId = run?.context.runId;
      const correction = toolCall.id === undefined ? undefined : run?.slot.corrections.get(toolCall.id);
      let message: ToolMessage;
      if (correction !== undefined) {
        const content = correction;
        emit({ type: "tool_call", toolName: toolCall.name, outcome: "invalid_input", durationMs: 0, ...(runId !== undefined ? { runId } : {}) });
        const notes: string[] = run === undefined ? [] : run.context.loop.pendingNotes.splice(0);
        message = new ToolMessage({ content: [content, ...notes].join("\n\n"), tool_call_id: toolCall.id ?? "", name: toolCall.name, status: "error" });
      } else {
        // A tool the agent does not have (repair off): LangChain's ToolNode answers with the valid tools.
        if (request.tool === undefined) return handler(request);
        const wrapped = wrappedOf(request.tool as StructuredToolInterface);
        // The wrapped tool finds the run through the config's run id, linked to this run here.
        const toolRunId = randomUUID();
        if (runId !== undefined) runContext.link(toolRunId, runId);
        const shim = Object.create(wrapped, {
          invoke: {
            value: (input: unknown, config?: Record<string, unknown>) => wrapped.invoke(input as never, { ...(config ?? {}), runId: toolRunId }),
          },
        }) as StructuredToolInterface;
        let result: Awaited<ReturnType<typeof handler>>;
        try {
          result = await handler({ ...request, tool: shim });
        } catch (thrown) {
          // Only with toolExecutor: false (or a defect): the graph must still get a ToolMessage.
          const error = thrown instanceof Error ? thrown : new Error(String(thrown));
          emit({ type: "tool_call", toolName: toolCall.name, outcome: "error", durationMs: 0, error, ...(runId !== undefined ? { runId } : {}) });
          result = new ToolMessage({ content: `${toolCall.name} failed: ${error.message}`, tool_call_id: toolCall.id ?? "", name: toolCall.name, status: "error" });
        }
        if (!ToolMessage.isInstance(result)) return result;
        message = neutralizedError(result);
        // A ToolExecutor built without this run context (or toolExecutor: false) leaves the notes: add them here.
        const leftover = run === undefined ? [] : run.context.loop.pendingNotes.splice(0);
        if (leftover.length > 0) {
          message = new ToolMessage({
            content: [textOf(message), ...leftover].join("\n\n"),
            tool_call_id: message.tool_call_id,
            name: message.name,
            status: message.status,
            artifact: message.artifact,
          });
        }
      }
      if (runId !== undefined) {
        emit({ type: "step", runId, step: "observation" });
        const observation = stripLoopNotes(textOf(message));
        run?.slot.monitor?.observeResult(toolCall.id, fingerprintObservation(observation), observation);
      }
      return message;
    },
    afterAgent: (state) => {
      const runId = state.reinsRunId;
      if (runId !== undefined) endRun(runId, state.stopReason ?? "final_answer");
      return undefined;
    },
  });
}

