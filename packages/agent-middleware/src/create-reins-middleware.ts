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
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { recursionStop } from "./invocation";
import { LoopEngine, notesFor, type TurnCall } from "./loop-engine";
import { findingsOf, textOf } from "./middleware-run-state";
import { checkReinsMiddlewareOptions, DEFAULT_REINS_MIDDLEWARE_OPTIONS, resolveStateSigner, type ReinsMiddlewareLogger, type ReinsMiddlewareOptions } from "./reins-middleware-options";
import { MIDDLEWARE_MESSAGES, STATE_MESSAGES } from "./messages";
import { MiddlewareRunContexts, type LiveRun } from "./run-contexts";
import { newRunRecord, NOTES_AT_METADATA_KEY, reinsRunSchema, runMessagesOf, STRUCTURED_OUTPUT_PREFIX, type ReinsRunRecord } from "./run-record";
import { recoverServerParseFailure, serverParseFailureOf } from "./server-parse-failure";
import { legacyRunIdOf, legacyRunRecord, StateGuard, withoutConfirmation } from "./state-guard";
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

/** Loggers already told that resumed state is unsigned: once per logger (once per process for the default). */
const warnedUnsignedState = new WeakSet<object>();

/** The default logger: a process warning (`REINS_UNSIGNED_STATE`), as Node prints them. */
const PROCESS_WARNING_LOGGER: ReinsMiddlewareLogger = Object.freeze({ warn: (message: string) => process.emitWarning(message, { code: "REINS_UNSIGNED_STATE" }) });

/** The thread of the running graph invocation (`configurable.thread_id`), when there is one. */
function threadIdOf(): string | undefined {
  const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as { configurable?: { thread_id?: unknown } } | undefined;
  const threadId = config?.configurable?.thread_id;
  return typeof threadId === "string" || typeof threadId === "number" ? String(threadId) : undefined;
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
 *   caps (`RunContext.resumedCallCounts` from the record's calls and their typed outcomes), budgets
 *   and the stop go on from the record. LangGraph's `recursionLimit` is counted per invocation,
 *   and time paused at an interrupt is not run time. With `stateKey` (or `REINS_STATE_KEY`) the
 *   record, each reply's calls and each outcome are signed (HMAC-SHA256), and a resumed run whose
 *   signed state was changed or removed stops with `stopReason` `state_tampered` (see
 *   `state-guard.ts`); a thread without a record is adopted with counts rebuilt from its
 *   messages. Without a key, the middleware warns once that resumed protections are only as
 *   strong as the checkpoint store's access control.
 * - Events and metrics: the ToolExecutor's, the cleaner's and the run's (`run_start`, `run_end`,
 *   `step`, `token_usage`, `loop_detection`) reach `metrics` and `onEvent`, the same catalog as
 *   the classic path.
 *
 * Follows LangChain's middleware conventions (`toolCallLimitMiddleware`'s `jumpTo: "end"` with an
 * `AIMessage` and error `ToolMessage`s for the calls it does not run).
 *
 * @param options - see {@link ReinsMiddlewareOptions}
 * @returns the middleware, for `createAgent({ middleware: [createReinsMiddleware()] })`
 * @throws {ReinsMiddlewareOptionsError} when an option is invalid (names the field; a state key
 *   shorter than 32 characters names `stateKey` or `REINS_STATE_KEY`); the pieces throw their own
 *   option errors for their options
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
  const guard = new StateGuard(resolveStateSigner(options));
  const logger = options.logger ?? PROCESS_WARNING_LOGGER;

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

  type RunState = { messages: BaseMessage[]; reinsRun?: ReinsRunRecord; reinsRunId?: string; stopReason?: StopReason };
  type AdoptedRun = LiveRun & { record: ReinsRunRecord; tampered?: string };

  const warnUnsigned = (): void => {
    if (guard.signing || warnedUnsignedState.has(logger)) return;
    warnedUnsignedState.add(logger);
    try {
      logger.warn(STATE_MESSAGES.unsignedStateWarning);
    } catch (error) {
      (loopOptions?.onError ?? auditWarning)(error);
    }
  };

  /**
   * The run of the graph state, checked (see `state-guard.ts`): this process's, or adopted from
   * the saved record. A state without a record (a thread saved before Reins kept one) is adopted
   * with counts rebuilt from its messages; with a state key, a record or outcome that does not
   * verify, or was removed while what Reins signed stayed, comes back with `tampered` set.
   */
  const runOf = (state: unknown): AdoptedRun | undefined => {
    const { reinsRun: saved, reinsRunId: stateRunId, messages = [] } = (state ?? {}) as Partial<RunState>;
    let record = saved;
    let tampered: string | undefined;
    let rebuilt = false;
    if (record === undefined || (guard.signing && record.signature === undefined)) {
      if (messages.length === 0) return undefined;
      if (guard.hasSignedMarks(messages)) tampered = record === undefined ? STATE_MESSAGES.recordRemoved : STATE_MESSAGES.recordUnsigned;
      rebuilt = true;
      record = legacyRunRecord(legacyRunIdOf(threadIdOf(), messages), messages, now(), loopOptions?.ignoreTools ?? []);
    } else {
      tampered = guard.tamperedReason(record, messages);
      // The run id the state reports is the signed record's (Reins writes both together).
      if (tampered === undefined && guard.signing && stateRunId !== undefined && stateRunId !== record.runId) tampered = STATE_MESSAGES.runIdChanged;
    }
    const checked = guard.absorb(record, messages);
    const live = runs.adopt(checked, () => guard.callCounts(checked));
    if (live.adopted && rebuilt) {
      audit?.started(checked.runId, messages);
      emit({ type: "run_start", runId: checked.runId });
      if (tampered === undefined) {
        const calls = [...guard.callCounts(checked).values()].reduce((sum, count) => sum + count, 0);
        emit({ type: "run_state", runId: checked.runId, verdict: "legacy_adopted", reason: STATE_MESSAGES.legacyAdopted(checked.modelCalls, calls) });
      }
    } else if (live.adopted) warnUnsigned();
    tampered ??= live.slot.tampered;
    if (tampered !== undefined && live.slot.tampered === undefined) {
      live.slot.tampered = tampered;
      emit({ type: "run_state", runId: checked.runId, verdict: "tampered", reason: tampered });
    }
    return { context: live.context, slot: live.slot, record: checked, ...(tampered !== undefined ? { tampered } : {}) };
  };

  /** A state update as it is saved: the record signed (with a key), and the run id the state reports is the record's. */
  const saved = <Update extends { reinsRun?: ReinsRunRecord } | undefined>(update: Update): Update => {
    if (update === undefined || update.reinsRun === undefined) return update;
    return { ...update, reinsRun: guard.seal(update.reinsRun), reinsRunId: update.reinsRun.runId };
  };

  /** The decision that ends a run whose saved state was refused. */
  const tamperStop = (reason: string): LoopStopDecision => ({ reason: "state_tampered", message: STATE_MESSAGES.stateTampered(reason) });

  /** The answer to a call not run because the run's saved state was refused (a signed `rejected` outcome). */
  const refusedCall = (toolCall: { id?: string; name: string }, runId: string): ToolMessage =>
    guard.signOutcome(
      new ToolMessage({ content: MIDDLEWARE_MESSAGES.notRunTampered(toolCall.name), tool_call_id: toolCall.id ?? "", name: toolCall.name, status: "error", metadata: { [TOOL_OUTCOME_METADATA_KEY]: "rejected" } }),
      runId,
    );

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
      .map((call) =>
        guard.signOutcome(
          new ToolMessage({ content: MIDDLEWARE_MESSAGES.notRunStopped(call.name), tool_call_id: call.id as string, name: call.name, status: "error", metadata: { [TOOL_OUTCOME_METADATA_KEY]: "rejected" } }),
          run.record.runId,
        ),
      );
    const reinsRun: ReinsRunRecord = { ...run.record, activeMs: runs.activeMs(run), stop: { reason: decision.reason, message: decision.message } };
    // Ended here: a jump to "end" from beforeModel skips afterAgent (langchain 1.5), and nothing
    // after a stop needs the run's state. afterAgent, when it does run, finds no run to end.
    const scope = (decision as Partial<ScopedStopDecision>).scope;
    endRun(run, decision.reason, finish.returnValues.output as string, scope);
    return saved({
      jumpTo: "end" as const,
      stopReason: decision.reason,
      ...(scope !== undefined ? { stopScope: scope } : {}),
      reinsRun,
      messages: [...notRun, new AIMessage({ content: finish.returnValues.output, response_metadata: { stopReason: decision.reason, stopMessage: decision.message, ...(scope !== undefined ? { stopScope: scope } : {}) } })],
    });
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
    beforeAgent: {
      canJumpTo: ["end"],
      hook: (state) => {
        // Reins' state on the thread must be Reins' own. Reins writes reinsRunId and stopReason only
        // with a record: without one, they came from the input. With a key, a record that does not
        // verify was set by the input or changed in the store; so was an unsigned one where Reins
        // signed messages, or in a thread with no model reply yet (a record from before the key was
        // set is only accepted where a run has answered).
        const { reinsRun: previous, reinsRunId: previousRunId, stopReason: previousStop } = state as Partial<RunState>;
        const firstRun = !state.messages.some((message) => AIMessage.isInstance(message));
        const forged =
          (previous === undefined && (previousRunId !== undefined || previousStop !== undefined)) ||
          (guard.signing && previous !== undefined && (previous.signature !== undefined ? !guard.recordVerified(previous) : firstRun || guard.hasSignedMarks(state.messages)));
        const reinsRun = startRun(state.messages);
        if (forged) {
          const run = runs.adopt(reinsRun, () => new Map());
          emit({ type: "run_state", runId: reinsRun.runId, verdict: "tampered", reason: STATE_MESSAGES.inputRecord });
          return stopUpdate({ context: run.context, slot: run.slot, record: reinsRun }, tamperStop(STATE_MESSAGES.inputRecord), state.messages, []);
        }
        return saved({ reinsRun, reinsRunId: reinsRun.runId, stopReason: undefined, stopScope: undefined });
      },
    },
    beforeModel: {
      canJumpTo: ["end"],
      hook: async (state, runtime) => {
        const run = runOf(state);
        if (run === undefined) return undefined;
        if (run.tampered !== undefined) return stopUpdate(run, tamperStop(run.tampered), state.messages, []);
        run.slot.modelStartedAtMs = now();
        const activeMs = runs.activeMs(run);
        // The record is saved even without loop control: it holds the run's calls and their outcomes (call caps).
        if (engine === undefined) return saved({ reinsRun: { ...run.record, activeMs } });
        const verdict = engine.beforeModel(run.record, activeMs);
        const stop = verdict.stop ?? recursionStop(run.slot.invocation);
        if (stop !== undefined) return stopUpdate(run, stop, state.messages, []);
        if (scoped === undefined) return saved({ reinsRun: { ...verdict.record, activeMs } });
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
        return saved({ reinsRun: { ...record, activeMs }, reinsThread: scopedVerdict.thread });
      },
    },
    wrapModelCall: async (request, handler) => {
      const tools = (request.tools ?? []).filter(
        (tool): tool is StructuredToolInterface => tool !== null && typeof tool === "object" && typeof (tool as { name?: unknown }).name === "string",
      );
      const repairing = repairOptions !== undefined && tools.length > 0;
      const run = runOf(request.state);
      const messages = (request.state as { messages?: BaseMessage[] }).messages ?? request.messages;
      // Provenance: the calls in what the model was shown from outside itself (always on), read once per request.
      let untrustedCalls: ReadonlySet<string> | undefined;
      const untrustedCallsOfRequest = (): ReadonlySet<string> => {
        if (untrustedCalls !== undefined) return untrustedCalls;
        const requestWithSystem = request as { systemMessage?: unknown; systemPrompt?: unknown };
        const pieces = untrustedPiecesOf(requestWithSystem.systemMessage ?? requestWithSystem.systemPrompt, request.messages ?? messages);
        const provenance = readRequestProvenance(run?.slot.provenance, pieces, tools.map((tool) => tool.name));
        if (run !== undefined) run.slot.provenance = provenance;
        untrustedCalls = new Set([...(run?.record.untrustedCalls ?? []), ...provenance.keys]);
        return untrustedCalls;
      };
      /** The rescue of one reply, in the audit's model-call scope; `serverRepair` is counted with it. The result is signed. */
      const rescue = (reply: AIMessage, serverRepair?: { repair: string; detail: string; onlyWithCalls: boolean }): AIMessage => {
        const body = (): AIMessage => {
          const unique = withUniqueId(reply, [...messages, ...request.messages], run?.record.runId, emit);
          if (!repairing) return unique;
          const rescued = rescueReply(unique, { tools, options: repairOptions ?? {}, slot: run?.slot, messages, untrustedCalls: untrustedCallsOfRequest(), emit });
          if (serverRepair !== undefined && (!serverRepair.onlyWithCalls || (rescued.tool_calls ?? []).length > 0)) {
            emit({ type: "parser_repair", repair: serverRepair.repair, detail: serverRepair.detail, ...(run !== undefined ? { runId: run.record.runId } : {}) });
          }
          return rescued;
        };
        const made = audit === undefined || run === undefined ? body() : audit.duringModelCall(run.record.runId, body);
        // Signed as the model made it (with its corrections), before another middleware or a checkpoint sees it.
        return run === undefined ? made : guard.signReply(made, run.record.runId, run.record.modelCalls);
      };
      let response: Awaited<ReturnType<typeof handler>>;
      try {
        response = await handler(request);
      } catch (error) {
        // A server that could not parse the model's tool call (llama.cpp, Ollama, vLLM, LM Studio, SGLang): see server-parse-failure.ts.
        const failure = repairing ? serverParseFailureOf(error) : undefined;
        if (failure === undefined) throw error;
        registerAgentTools(tools);
        return (await recoverServerParseFailure(failure, {
          toolNames: tools.filter((tool) => !tool.name.startsWith(STRUCTURED_OUTPUT_PREFIX)).map((tool) => tool.name),
          read: (reply, repair, detail) => {
            const rescued = rescue(reply, { repair, detail, onlyWithCalls: true });
            return (rescued.tool_calls ?? []).length > 0 ? rescued : undefined;
          },
          reask: async (note, repair, detail) => {
            const again = await handler({ ...request, messages: [...request.messages, note] });
            return AIMessage.isInstance(again) ? rescue(again, { repair, detail, onlyWithCalls: false }) : again;
          },
        })) as typeof response;
      }
      if (!AIMessage.isInstance(response)) return response;
      // The agent's own tools (not the structured-output ones) are the `tool` label's values; names the model invents are `unregistered`.
      registerAgentTools(tools);
      return rescue(response);
    },
    afterModel: {
      canJumpTo: ["end"],
      hook: async (state) => {
        const run = runOf(state);
        const last = state.messages.at(-1);
        if (run === undefined || last === undefined || !AIMessage.isInstance(last)) return undefined;
        if (run.tampered !== undefined) {
          const pending = (last.tool_calls ?? []).map((call) => ({ name: call.name, ...(call.id !== undefined ? { id: call.id } : {}) }));
          return stopUpdate(run, tamperStop(run.tampered), state.messages, pending);
        }
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
          return saved({ stopReason: "final_answer" as const, reinsRun: { ...record, notes: record.notes.filter((note) => note.forToolCallId === undefined), activeMs }, ...reinsThread });
        }
        emit({ type: "step", runId, step: "action" });
        if (engine === undefined) return saved({ reinsRun: { ...record, activeMs }, ...reinsThread });
        const watched = calls.filter((call) => correctionOf(call.id, slot, [last]) === undefined);
        const verdict = engine.turnChosen(record, text, watched, runMessagesOf(record, state.messages), activeMs);
        for (const detection of verdict.detections) emit({ type: "loop_detection", runId, kind: detection.kind, level: detection.level });
        audit?.detected(runId, verdict.detections);
        record = { ...verdict.record, activeMs };
        if (verdict.stop !== undefined) return { ...stopUpdate({ ...run, record }, verdict.stop, state.messages, calls), ...reinsThread };
        return saved({ reinsRun: record, ...reinsThread });
      },
    },
    wrapToolCall: async (request, handler) => {
      const run = runOf(request.state);
      const stateMessages = (request.state as { messages?: BaseMessage[] }).messages ?? [];
      const runId = run?.record.runId;
      // A call in no reply Reins signed (added to a saved reply) never runs; the run stops at its next model turn.
      const callStatus = run === undefined ? "unchecked" : guard.callStatus(request.toolCall, stateMessages, run.record.runId);
      if (run !== undefined && (run.tampered !== undefined || callStatus === "unsigned")) {
        const reason = run.tampered ?? STATE_MESSAGES.callAdded(request.toolCall.id);
        if (run.slot.tampered === undefined) emit({ type: "run_state", runId: run.record.runId, verdict: "tampered", reason });
        run.slot.tampered ??= reason;
        emit({ type: "tool_call", toolName: request.toolCall.name, outcome: "rejected", durationMs: 0, runId: run.record.runId });
        return refusedCall(request.toolCall, run.record.runId);
      }
      // A call changed after the model made it (a human-in-the-loop edit, or the store) never runs as confirmed.
      const toolCall = callStatus === "edited" ? { ...request.toolCall, args: withoutConfirmation(request.toolCall.args) as typeof request.toolCall.args } : request.toolCall;
      const notes = notesFor(run?.record, toolCall.id);
      const correction = correctionOf(toolCall.id, run?.slot, stateMessages);
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
          const call = () => handler({ ...request, toolCall, tool: shim });
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
      return runId === undefined ? message : guard.signOutcome(message, runId);
    },
    afterAgent: (state) => {
      // A stopped run was ended at its stop.
      const run = state.reinsRun?.stop === undefined ? runOf(state) : undefined;
      if (run !== undefined) endRun(run, state.stopReason ?? "final_answer", answerOfMessages(state.messages));
      return undefined;
    },
  });
}

/** The `repair` of a model reply whose id an earlier message of the thread already has. */
export const DUPLICATE_MESSAGE_ID_REPAIR = "duplicate_message_id";

/**
 * The reply, or a copy of it under a fresh id when a message of the thread already has its id:
 * LangGraph's message reducer replaces a message with the same id, so a model or proxy that
 * reuses ids (a counter that restarts in every process, LangChain's `fakeModel()`, a replay server
 * restarted) would silently overwrite an earlier turn of a resumed thread. Recorded as a
 * `parser_repair` event ({@link DUPLICATE_MESSAGE_ID_REPAIR}), so `parser_repairs_total` counts it
 * and the audit shows it on the turn.
 */
function withUniqueId(reply: AIMessage, thread: readonly BaseMessage[], runId: string | undefined, emit: (event: ReinsEvent) => void): AIMessage {
  const id = reply.id;
  if (id === undefined || id === "" || !thread.some((message) => message.id === id)) return reply;
  const fresh = `reins-msg-${randomUUID()}`;
  emit({ type: "parser_repair", repair: DUPLICATE_MESSAGE_ID_REPAIR, detail: `reply id ${id} was already in the thread; kept as ${fresh}`, ...(runId !== undefined ? { runId } : {}) });
  return new AIMessage({
    content: reply.content,
    id: fresh,
    ...(reply.name !== undefined ? { name: reply.name } : {}),
    tool_calls: reply.tool_calls ?? [],
    invalid_tool_calls: reply.invalid_tool_calls ?? [],
    additional_kwargs: reply.additional_kwargs,
    response_metadata: reply.response_metadata,
    ...(reply.usage_metadata !== undefined ? { usage_metadata: reply.usage_metadata } : {}),
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
