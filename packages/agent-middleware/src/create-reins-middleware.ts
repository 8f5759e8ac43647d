import { randomUUID } from "node:crypto";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { createMiddleware, type AgentMiddleware } from "langchain";
import { z } from "zod/v4";
import {
  buildLoopStopFinish,
  emitEvent,
  fingerprintObservation,
  RunContextStore,
  STOP_REASONS,
  stripLoopNotes,
  type LoopStopDecision,
  type ReinsEvent,
  type RunContext,
  type StopReason,
  type ToolCallOutcome,
  wantsContent,
} from "@reins/core";
import { LoopControlHandler, resolveLoopControlOptions, type ResolvedLoopControlOptions } from "@reins/loop-control";
import { ObservationCleaner } from "@reins/observation-cleaner";
import { ToolExecutor } from "@reins/tool-executor";
import { ReinsMiddlewareOptionsError } from "./errors";
import { findingsOf, recursionStop, textOf, type RunSlot } from "./middleware-run-state";
import { checkReinsMiddlewareOptions, DEFAULT_REINS_MIDDLEWARE_OPTIONS, type ReinsMiddlewareOptions } from "./reins-middleware-options";
import { RunLoopMonitor, type MonitoredCall } from "./loop-monitor";
import { MIDDLEWARE_MESSAGES } from "./messages";
import { rescueReply } from "./tool-call-rescue";
import { answerOfMessages, auditWarning, MiddlewareAuditTrail, questionOfMessages } from "./middleware-audit";

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
 *   repair, and when none is usable rescues the calls the model wrote into its text (Hermes/Qwen
 *   tags, Llama JSON and pythonic calls, Mistral, DeepSeek and Kimi tokens, harmony, fenced JSON:
 *   `rescueToolCalls`). What cannot run safely (unknown tool, wrong field names, arguments cut
 *   off, a call echoed from a tool result, unreadable markup) is answered with a corrective
 *   `ToolMessage` naming the valid tools or the fields, as Vercel AI's `repairToolCall` does.
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
  const maxActiveRuns = checkReinsMiddlewareOptions(options);

  const { metrics, loopFinish = {} } = options;
  const auditOptions = options.audit ?? (options.loopControl instanceof LoopControlHandler ? options.loopControl.options.audit : undefined);
  // A throwing audit sink goes to loop control's onError (default: a process warning), never to the run.
  const audit = auditOptions === undefined ? undefined : new MiddlewareAuditTrail(auditOptions, () => now(), (error) => (loopOptions?.onError ?? auditWarning)(error));
  // The audit hears the ToolExecutor's and the cleaner's events (call outcomes, raw sizes).
  const onEvent = audit === undefined ? options.onEvent : (event: ReinsEvent) => (audit.record(event), options.onEvent?.(event));
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
  if (audit !== undefined) audit.emit = emit;
  const liveRuns: string[] = [];

  const slotOf = (context: RunContext | undefined): RunSlot | undefined => context?.slots.get(RUN_SLOT) as RunSlot | undefined;
  const runOf = (state: { reinsRunId?: string } | undefined): { context: RunContext; slot: RunSlot } | undefined => {
    const context = runContext.contextOf(state?.reinsRunId);
    const slot = slotOf(context);
    return context === undefined || slot === undefined ? undefined : { context, slot };
  };

  const startRun = (messages: readonly BaseMessage[]): string => {
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
    audit?.started(runId, messages);
    emit({ type: "run_start", runId, ...(wantsContent([metrics, onEvent]) ? { input: questionOfMessages(messages) } : {}) });
    return runId;
  };

  const endRun = (runId: string, stopReason: StopReason, answer?: string): void => {
    const context = runContext.contextOf(runId);
    if (context === undefined) return;
    const status = stopReason === "final_answer" ? "success" : stopReason === "error" ? "error" : "stopped";
    audit?.finished(runId, stopReason, answer);
    const output = answer !== undefined && wantsContent([metrics, onEvent]) ? { output: answer } : {};
    emit({ type: "run_end", runId, status, stopReason, durationMs: Math.max(0, now() - context.startedAtMs), ...output });
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
    endRun(runId, decision.reason, finish.returnValues.output as string);
    return {
      jumpTo: "end" as const,
      stopReason: decision.reason,
      messages: [...notRun, new AIMessage({ content: finish.returnValues.output, response_metadata: { stopReason: decision.reason, stopMessage: decision.message } })],
    };
  };

  const noteAll = (context: RunContext, notes: readonly string[]): void => {
    for (const note of notes) context.loop.pendingNotes.push(note);
  };

  const registeredTools = new WeakSet<object>();
  const registerAgentTools = (tools: readonly StructuredToolInterface[]): void => {
    const names = tools.filter((tool) => !registeredTools.has(tool) && !tool.name.startsWith(STRUCTURED_OUTPUT_PREFIX)).map((tool) => (registeredTools.add(tool), tool.name));
    if (names.length === 0) return;
    try {
      metrics?.registerTools?.(names);
    } catch (error) {
      (loopOptions?.onError ?? auditWarning)(error);
    }
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
    beforeAgent: (state) => ({ reinsRunId: startRun(state.messages), stopReason: undefined }),
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
      // The agent's own tools (not the structured-output ones) are the `tool` label's values; names the model invents are `unregistered`.
      registerAgentTools(tools);
      if (repairOptions === undefined || tools.length === 0) return response;
      const run = runOf(request.state as { reinsRunId?: string });
      const messages = (request.state as { messages?: BaseMessage[] }).messages ?? request.messages;
      const rescue = () => rescueReply(response, { tools, options: repairOptions, slot: run?.slot, messages, emit });
      return audit === undefined || run === undefined ? rescue() : audit.duringModelCall(run.context.runId, rescue);
    },
    afterModel: {
      canJumpTo: ["end"],
      hook: (state) => {
        const run = runOf(state);
        const last = state.messages.at(-1);
        if (run === undefined || last === undefined || !AIMessage.isInstance(last)) return undefined;
        const { context, slot } = run;
        const runId = context.runId;
        const modelStartedAtMs = slot.modelStartedAtMs;
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
        if (calls.length === 0) audit?.answered(runId, last, modelStartedAtMs);
        else audit?.turn(runId, last, calls, modelStartedAtMs);
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
      const toolStartedAtMs = now();
      let callOutcome: ToolCallOutcome | undefined = correction === undefined ? undefined : "invalid_input";
      let rawChars: number | undefined;
      let message: ToolMessage;
      if (correction !== undefined) {
        const content = correction;
        emit({ type: "tool_call", toolName: toolCall.name, outcome: "invalid_input", durationMs: 0, ...(runId !== undefined ? { runId } : {}) });
        const notes: string[] = run === undefined ? [] : run.context.loop.pendingNotes.splice(0);
        message = new ToolMessage({ content: [content, ...notes].join("\n\n"), tool_call_id: toolCall.id ?? "", name: toolCall.name, status: "error" });
      } else {
        // A tool the agent does not have (repair off): LangChain's ToolNode answers with the valid tools.
        if (request.tool === undefined) {
          const answered = await handler(request);
          if (runId !== undefined && ToolMessage.isInstance(answered)) audit?.observed(runId, { name: toolCall.name, args: toolCall.args, id: toolCall.id }, answered, toolStartedAtMs, undefined, undefined);
          return answered;
        }
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
          const call = () => handler({ ...request, tool: shim });
          result = await (audit === undefined ? call() : audit.duringCall(call, (outcome, chars) => ((callOutcome = outcome), (rawChars = chars))));
        } catch (thrown) {
          // Only with toolExecutor: false (or a defect): the graph must still get a ToolMessage.
          const error = thrown instanceof Error ? thrown : new Error(String(thrown));
          callOutcome ??= "error";
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
        audit?.observed(runId, { name: toolCall.name, args: toolCall.args, ...(toolCall.id !== undefined ? { id: toolCall.id } : {}) }, message, toolStartedAtMs, callOutcome, rawChars);
      }
      return message;
    },
    afterAgent: (state) => {
      const runId = state.reinsRunId;
      if (runId !== undefined) endRun(runId, state.stopReason ?? "final_answer", answerOfMessages(state.messages));
      return undefined;
    },
  });
}

