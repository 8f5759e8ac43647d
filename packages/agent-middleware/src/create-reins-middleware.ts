import { randomUUID } from "node:crypto";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { createMiddleware, type AgentMiddleware } from "langchain";
import { z } from "zod/v4";
import {
  buildLoopStopFinish,
  emitEvent,
  neutralizeUntrustedText,
  RunContextStore,
  STOP_REASONS,
  TOOL_OUTCOME_METADATA_KEY,
  toolOutcomeOf,
  type LoopStopDecision,
  type ReinsEvent,
  type StopReason,
  type ToolCallOutcome,
  wantsContent,
} from "@reins/core";
import {
  estimateTokensFromChars,
  estimateTokensSafely,
  LoopControlHandler,
  modelNameOfReply,
  renderLoopNote,
  resolveLoopControlOptions,
  type LoopNote,
  type ResolvedLoopControlOptions,
  usageOfReply,
} from "@reins/loop-control";
import { ObservationCleaner } from "@reins/observation-cleaner";
import { ToolExecutor } from "@reins/tool-executor";
import { ReinsMiddlewareOptionsError } from "./errors";
import { recursionStop } from "./invocation";
import { LoopEngine, notesFor, type TurnCall } from "./loop-engine";
import { findingsOf, textOf } from "./middleware-run-state";
import { checkReinsMiddlewareOptions, DEFAULT_REINS_MIDDLEWARE_OPTIONS, type ReinsMiddlewareOptions } from "./reins-middleware-options";
import { MIDDLEWARE_MESSAGES } from "./messages";
import { MiddlewareRunContexts, type LiveRun } from "./run-contexts";
import { newRunRecord, NOTES_AT_METADATA_KEY, reinsRunSchema, runMessagesOf, type ReinsRunRecord } from "./run-record";
import { correctionOf, rescueReply } from "./tool-call-rescue";
import { readRequestProvenance, untrustedPiecesOf, withUntrustedCalls } from "./untrusted-provenance";
import { reinsThreadSchema, ScopedBudgets, type ReinsThreadRecord, type ScopedStopDecision, type UserKeyContext } from "./scoped-budgets";
import { answerOfMessages, auditWarning, MiddlewareAuditTrail, questionOfMessages } from "./middleware-audit";

/** The state the middleware adds to the agent's state (`stateSchema`). */
export const reinsStateSchema = z.object({
  /** Why the run ended: `final_answer`, or the loop-control stop reason. */
  stopReason: z.enum(STOP_REASONS as unknown as [StopReason, ...StopReason[]]).optional(),
  /** The id of the current run (its events' and audit records' `runId`). */
  reinsRunId: z.string().optional(),
  /**
   * The run record (steps, usage, pending loop notes, the stop decision), saved by the agent's
   * checkpointer with the run so that a resume anywhere continues its protection. See
   * {@link ReinsRunRecord}.
   */
  reinsRun: reinsRunSchema.optional(),
  /** Totals over the thread's runs, kept across runs (option `budgets.thread`; see `scoped-budgets.ts`). */
  reinsThread: reinsThreadSchema.optional(),
  /** The scope of a budget stop beyond the run (`thread` | `user`); unset for the run's own stops. */
  stopScope: z.enum(["run", "thread", "user"]).optional(),
});

/** The middleware {@link createReinsMiddleware} returns: a LangChain v1 `AgentMiddleware` adding {@link reinsStateSchema}. */
export type ReinsMiddleware = AgentMiddleware<typeof reinsStateSchema>;

const MIDDLEWARE_NAME = "ReinsMiddleware";
/** Tool names createAgent gives its structured-output tools (`responseFormat`). */
const STRUCTURED_OUTPUT_PREFIX = "extract-";

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
 * - State: the run record `reinsRun` (see `run-record.ts`) is in the agent's state, so the
 *   checkpointer saves it with the run. A new input on a thread starts a new run;
 *   `Command({ resume })` and `invoke(null)` continue it, in any process: loop detection, call
 *   caps (`RunContext.resumedCallCounts` from the saved `ToolMessage`s' typed outcomes), budgets
 *   and the stop go on from the record. LangGraph's `recursionLimit` is counted per invocation,
 *   and time paused at an interrupt is not run time.
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
  const engine = loopOptions === undefined ? undefined : new LoopEngine(loopOptions);
  const runs = new MiddlewareRunContexts(runContext, maxActiveRuns, now);
  const scoped = options.budgets === undefined || loopOptions === undefined ? undefined : new ScopedBudgets(options.budgets, loopOptions.budgetWarnRatio, () => now(), loopOptions.onError ?? auditWarning);
  /** The user key each live run counts under (found at its first model call). */
  const userKeys = new Map<string, string>();
  if (audit !== undefined) audit.emit = emit;

  type RunState = { messages: BaseMessage[]; reinsRun?: ReinsRunRecord; stopReason?: StopReason };
  const runOf = (state: unknown): (LiveRun & { record: ReinsRunRecord }) | undefined => {
    const { reinsRun: record, messages = [] } = (state ?? {}) as Partial<RunState>;
    const live = runs.adopt(record, messages);
    return live === undefined || record === undefined ? undefined : { ...live, record };
  };

  const startRun = (messages: readonly BaseMessage[]): ReinsRunRecord => {
    const record = newRunRecord(randomUUID(), messages, now());
    runs.start(record);
    audit?.started(record.runId, messages);
    emit({ type: "run_start", runId: record.runId, ...(wantsContent([metrics, onEvent]) ? { input: questionOfMessages(messages) } : {}) });
    return record;
  };

  const endRun = (run: LiveRun & { record: ReinsRunRecord }, stopReason: StopReason, answer?: string, scope?: ScopedStopDecision["scope"]): void => {
    const { runId } = run.record;
    const status = stopReason === "final_answer" ? "success" : stopReason === "error" ? "error" : "stopped";
    audit?.finished(runId, stopReason, answer);
    const output = answer !== undefined && wantsContent([metrics, onEvent]) ? { output: answer } : {};
    emit({ type: "run_end", runId, status, stopReason, ...(scope !== undefined ? { scope } : {}), durationMs: runs.activeMs(run), ...output });
    runs.release(runId);
    userKeys.delete(runId);
  };

  /** The graceful end of a stopped run: error ToolMessages for calls not run, then the final AIMessage. */
  const stopUpdate = (run: LiveRun & { record: ReinsRunRecord }, decision: LoopStopDecision, messages: readonly BaseMessage[], pending: ReadonlyArray<{ id?: string; name: string }>) => {
    run.context.loop.stop = decision;
    const finish = buildLoopStopFinish(decision, findingsOf(runMessagesOf(run.record, messages)), loopFinish);
    const notRun = pending
      .filter((call) => call.id !== undefined)
      .map((call) => new ToolMessage({ content: MIDDLEWARE_MESSAGES.notRunStopped(call.name), tool_call_id: call.id as string, name: call.name, status: "error", metadata: { [TOOL_OUTCOME_METADATA_KEY]: "rejected" } }));
    const reinsRun: ReinsRunRecord = { ...run.record, activeMs: runs.activeMs(run), stop: { reason: decision.reason, message: decision.message } };
    // Ended here: a jump to "end" from beforeModel skips afterAgent (langchain 1.5), and nothing
    // after a stop needs the run's state. afterAgent, when it does run, finds no run to end.
    const scope = (decision as Partial<ScopedStopDecision>).scope;
    endRun(run, decision.reason, finish.returnValues.output as string, scope);
    return {
      jumpTo: "end" as const,
      stopReason: decision.reason,
      ...(scope !== undefined ? { stopScope: scope } : {}),
      reinsRun,
      messages: [...notRun, new AIMessage({ content: finish.returnValues.output, response_metadata: { stopReason: decision.reason, stopMessage: decision.message, ...(scope !== undefined ? { stopScope: scope } : {}) } })],
    };
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
    return new ToolMessage({ content: text, tool_call_id: message.tool_call_id, name: message.name, status: "error", artifact: message.artifact, metadata: message.metadata });
  };

  /** The message with this call's loop notes appended; `metadata.reinsNotesAt` marks where they start. */
  const withLoopNotes = (message: ToolMessage, notes: readonly LoopNote[], outcome: ToolCallOutcome | undefined): ToolMessage => {
    const metadata = { ...(message.metadata ?? {}), ...(outcome !== undefined && toolOutcomeOf(message) === undefined ? { [TOOL_OUTCOME_METADATA_KEY]: outcome } : {}) };
    const observation = textOf(message);
    const rendered = notes.map((note) => neutralizeUntrustedText(renderLoopNote(note)).text);
    const content = rendered.length === 0 ? message.content : [observation, ...rendered].join("\n\n");
    return new ToolMessage({
      content,
      tool_call_id: message.tool_call_id,
      name: message.name,
      status: message.status,
      artifact: message.artifact,
      metadata: rendered.length === 0 ? metadata : { ...metadata, [NOTES_AT_METADATA_KEY]: observation.length },
    });
  };

  return createMiddleware({
    name: MIDDLEWARE_NAME,
    stateSchema: reinsStateSchema,
    // A new input on the thread starts a new run; Command({ resume }) and invoke(null) do not pass here.
    beforeAgent: (state) => {
      const reinsRun = startRun(state.messages);
      return { reinsRun, reinsRunId: reinsRun.runId, stopReason: undefined, stopScope: undefined };
    },
    beforeModel: {
      canJumpTo: ["end"],
      hook: async (state, runtime) => {
        const run = runOf(state);
        if (run === undefined) return undefined;
        run.slot.modelStartedAtMs = now();
        if (engine === undefined) return undefined;
        const activeMs = runs.activeMs(run);
        const verdict = engine.beforeModel(run.record, activeMs);
        const stop = verdict.stop ?? recursionStop(run.slot.invocation);
        if (stop !== undefined) return stopUpdate(run, stop, state.messages, []);
        if (scoped === undefined) return { reinsRun: { ...verdict.record, activeMs } };
        // Thread and user budgets, after the run's own (see scoped-budgets.ts).
        let scopedVerdict = await scoped.beforeModel(state.reinsThread, runtime as UserKeyContext, verdict.record.notedBudgets);
        // onExhausted "ask": an interrupt; a resume with an extension checks again with the raised limits.
        let extended: ReinsThreadRecord | undefined;
        while (scopedVerdict.stop !== undefined && (extended = scoped.ask(scopedVerdict.stop, scopedVerdict.thread, () => (run.slot.invocation.paused = true))) !== undefined) {
          scopedVerdict = await scoped.beforeModel(extended, runtime as UserKeyContext, verdict.record.notedBudgets);
        }
        if (scopedVerdict.userKey !== undefined) userKeys.set(run.record.runId, scopedVerdict.userKey);
        if (scopedVerdict.stop !== undefined) return { ...stopUpdate(run, scopedVerdict.stop, state.messages, []), reinsThread: scopedVerdict.thread };
        const record = scopedVerdict.notes.length === 0 ? verdict.record : withScopeNotes(verdict.record, scopedVerdict.notes);
        return { reinsRun: { ...record, activeMs }, reinsThread: scopedVerdict.thread };
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
      const run = runOf(request.state);
      const messages = (request.state as { messages?: BaseMessage[] }).messages ?? request.messages;
      // Provenance: the calls in what the model was shown from outside itself (always on).
      const requestWithSystem = request as { systemMessage?: unknown; systemPrompt?: unknown };
      const pieces = untrustedPiecesOf(requestWithSystem.systemMessage ?? requestWithSystem.systemPrompt, request.messages ?? messages);
      const provenance = readRequestProvenance(run?.slot.provenance, pieces, tools.map((tool) => tool.name));
      if (run !== undefined) run.slot.provenance = provenance;
      const untrustedCalls = new Set([...(run?.record.untrustedCalls ?? []), ...provenance.keys]);
      const rescue = () => rescueReply(response, { tools, options: repairOptions, slot: run?.slot, messages, untrustedCalls, emit });
      return audit === undefined || run === undefined ? rescue() : audit.duringModelCall(run.record.runId, rescue);
    },
    afterModel: {
      canJumpTo: ["end"],
      hook: async (state) => {
        const run = runOf(state);
        const last = state.messages.at(-1);
        if (run === undefined || last === undefined || !AIMessage.isInstance(last)) return undefined;
        const { slot } = run;
        const runId = run.record.runId;
        const modelStartedAtMs = slot.modelStartedAtMs;
        if (modelStartedAtMs !== undefined) {
          emit({ type: "step_duration", runId, phase: "llm", durationMs: Math.max(0, now() - modelStartedAtMs) });
          slot.modelStartedAtMs = undefined;
        }
        const estimate = (text: string) => estimateTokensSafely(loopOptions?.estimateTokens ?? estimateTokensFromChars, text, loopOptions?.onError ?? auditWarning);
        const usage = usageOfReply(last, () => state.messages.slice(0, -1).map(textOf).join("\n"), estimate);
        emit({ type: "token_usage", runId, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, estimated: usage.estimated });
        let record = engine === undefined ? run.record : engine.modelReplied(run.record, usage, [modelNameOfReply(last)]);
        const reinsThread: { reinsThread?: ReinsThreadRecord } =
          scoped === undefined ? {} : { reinsThread: await scoped.modelReplied(state.reinsThread, userKeys.get(runId), { ...usage, costUsd: record.costUsd - run.record.costUsd }) };
        record = withUntrustedCalls(record, slot.provenance?.keys);

        const text = textOf(last);
        const calls: TurnCall[] = (last.tool_calls ?? []).filter((call) => !call.name.startsWith(STRUCTURED_OUTPUT_PREFIX)).map((call) => ({ name: call.name, args: call.args, ...(call.id !== undefined ? { id: call.id } : {}) }));
        if (calls.length === 0) audit?.answered(runId, last, modelStartedAtMs);
        else audit?.turn(runId, last, calls, modelStartedAtMs);
        // One model turn is one thought, and (with tool calls) one action however many calls it makes
        // (tool_calls_total counts the calls): action + finish ≤ thought holds as on the classic path.
        emit({ type: "step", runId, step: "thought" });
        const decidedAtMs = now();
        emit({ type: "step_duration", runId, phase: "cycle", durationMs: Math.max(0, decidedAtMs - slot.lastDecisionAtMs) });
        slot.lastDecisionAtMs = decidedAtMs;
        const activeMs = runs.activeMs(run);
        if (calls.length === 0) {
          emit({ type: "step", runId, step: "finish" });
          // Notes addressed to the previous turn's calls went out with their ToolMessages.
          return { stopReason: "final_answer" as const, reinsRun: { ...record, notes: record.notes.filter((note) => note.forToolCallId === undefined), activeMs }, ...reinsThread };
        }
        emit({ type: "step", runId, step: "action" });
        if (engine === undefined) return { reinsRun: { ...record, activeMs }, ...reinsThread };
        const watched = calls.filter((call) => correctionOf(call.id, slot, [last]) === undefined);
        const verdict = engine.turnChosen(record, text, watched, runMessagesOf(record, state.messages), activeMs);
        for (const detection of verdict.detections) emit({ type: "loop_detection", runId, kind: detection.kind, level: detection.level });
        audit?.detected(runId, verdict.detections);
        record = { ...verdict.record, activeMs };
        if (verdict.stop !== undefined) return { ...stopUpdate({ ...run, record }, verdict.stop, state.messages, calls), ...reinsThread };
        return { reinsRun: record, ...reinsThread };
      },
    },
    wrapToolCall: async (request, handler) => {
      const run = runOf(request.state);
      const { toolCall } = request;
      const runId = run?.record.runId;
      const notes = notesFor(run?.record, toolCall.id);
      const correction = correctionOf(toolCall.id, run?.slot, (request.state as { messages?: BaseMessage[] }).messages ?? []);
      const toolStartedAtMs = now();
      let callOutcome: ToolCallOutcome | undefined = correction === undefined ? undefined : "invalid_input";
      let rawChars: number | undefined;
      let message: ToolMessage;
      if (correction !== undefined) {
        emit({ type: "tool_call", toolName: toolCall.name, outcome: "invalid_input", durationMs: 0, ...(runId !== undefined ? { runId } : {}) });
        message = withLoopNotes(new ToolMessage({ content: correction, tool_call_id: toolCall.id ?? "", name: toolCall.name, status: "error" }), notes, "invalid_input");
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
          // An interrupt (or another LangGraph bubble-up) is the graph's, not a failure: the run pauses here.
          if (isGraphBubbleUp(thrown)) {
            if (run !== undefined) run.slot.invocation.paused = true;
            throw thrown;
          }
          // Only with toolExecutor: false (or a defect): the graph must still get a ToolMessage.
          const error = thrown instanceof Error ? thrown : new Error(String(thrown));
          callOutcome ??= "error";
          emit({ type: "tool_call", toolName: toolCall.name, outcome: "error", durationMs: 0, error, ...(runId !== undefined ? { runId } : {}) });
          result = new ToolMessage({ content: `${toolCall.name} failed: ${error.message}`, tool_call_id: toolCall.id ?? "", name: toolCall.name, status: "error" });
        }
        if (!ToolMessage.isInstance(result)) return result;
        message = withLoopNotes(neutralizedError(result), notes, callOutcome);
      }
      if (runId !== undefined) {
        emit({ type: "step", runId, step: "observation" });
        emit({ type: "step_duration", runId, phase: "tool", durationMs: Math.max(0, now() - toolStartedAtMs) });
        audit?.observed(runId, { name: toolCall.name, args: toolCall.args, ...(toolCall.id !== undefined ? { id: toolCall.id } : {}) }, message, toolStartedAtMs, callOutcome, rawChars);
      }
      return message;
    },
    afterAgent: (state) => {
      // A stopped run was ended at its stop.
      const run = state.reinsRun?.stop === undefined ? runOf(state) : undefined;
      if (run !== undefined) endRun(run, state.stopReason ?? "final_answer", answerOfMessages(state.messages));
      return undefined;
    },
  });
}

/** The run record with the thread's and user's "answer soon" notes (`notedBudgets` keeps `thread:…` / `user:…`). */
function withScopeNotes(record: ReinsRunRecord, notes: ReadonlyArray<{ readonly noted: string; readonly note: LoopNote }>): ReinsRunRecord {
  return {
    ...record,
    notes: [...record.notes, ...notes.map(({ note }) => ({ note: { ...note } as Record<string, unknown> }))],
    notedBudgets: [...new Set([...record.notedBudgets, ...notes.map(({ noted }) => noted)])],
  };
}

/** LangGraph's interrupts and other control-flow errors (`GraphBubbleUp`: `is_bubble_up`). */
function isGraphBubbleUp(value: unknown): boolean {
  return value !== null && typeof value === "object" && (value as { is_bubble_up?: unknown }).is_bubble_up === true;
}
