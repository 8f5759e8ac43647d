import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface, ToolInterface } from "@langchain/core/tools";
import { emitEvent, isRecord, recordRunCall, redactRecord, wantsContent, type CircuitState, type ReinsEvent } from "@reins/core";
import { directFuncOf } from "./call-original";
import { checkCallCap, checkIdempotency, confirmedAcrossReplicas, gateSideEffectCall, withIdempotencyClaim } from "./call-guards";
import { createAttemptTimeout, createToolBreaker, createToolBulkhead, toCircuitState } from "./cockatiel-policies";
import { StoppedRunCallError, ToolExecutorOptionsError, ToolValidationError } from "./errors";
import { type CallFacts, type CallResult, type ExecutorContext, type ToolState, type WrappedTool } from "./executor-context";
import { defaultFormatObservation, ensureReadableObservation } from "./format-observation";
import { MODEL_MESSAGES } from "./messages";
import { toError } from "./normalize-error";
import { cacheEntryOf, claimCache, readCache, releaseCache, writeCache } from "./result-cache";
import { SharedBreaker } from "./shared-breaker";
import { claimSideEffectCall, settleSideEffectClaim, sideEffectIdentityOf, type HeldSideEffectClaim } from "./side-effect-claim";
import { createHolderId, IDEMPOTENCY_KEY_FIELD } from "./side-effect-ledger";
import { sharedResult, SingleFlight } from "./single-flight";
import { runResilientCall } from "./resilient-call";
import { InMemoryToolResultStore } from "./result-store";
import { drainNotes, RunSlots, type RunHandle } from "./run-slots";
import { prepareToolInput, withConfirmField, type PreparedToolInput, type ToolInputKind } from "./tool-input";
import { resolveToolPolicy, type ResolvedToolPolicy } from "./tool-policy";
import {
  resolveToolExecutorOptions,
  type ResolvedToolExecutorOptions,
  type ToolExecutorLogger,
  type ToolExecutorOptions,
} from "./tool-executor-options";
import { UntrustedObservationGuard } from "./untrusted-observation";
import { createWrappedTool, isStringInputTool, type WrappedToolHost } from "./wrapped-tool";

export type { WrappedTool } from "./executor-context";

const SLOT_PREFIX = "@reins/tool-executor";
let executorCount = 0;

/**
 * Wraps LangChain tools so they cannot hang, cannot fail silently and cannot fire side effects by
 * accident. Each call runs the stages of {@link ToolExecutor}'s `execute`: run-stop check →
 * validate → cache → dry-run → idempotency → call cap → fallback(deadline(retry(breaker(bulkhead(
 * timeout(call)))))) → cache store, the order of Polly/cockatiel resilience pipelines, using
 * cockatiel policies. Once the run's loop controller has set
 * `RunContext.loop.stop`, tools are no longer called: the model gets a short note that the task is
 * being stopped (outcome `rejected`, a `StoppedRunCallError`).
 * Every outcome is a non-empty observation string for the model, neutralised with the agent's
 * labels and the wrapped tools' names (`UntrustedObservationGuard`); operators get typed errors in
 * the `tool_call` event and the logger. A wrapped tool never throws for a tool failure.
 *
 * Works with the classic `AgentExecutor` (`invoke` and `stream` paths), LangGraph's `ToolNode`
 * and `createAgent`: wrapped tools keep the original name, description, schema and
 * `returnDirect`; called with a `ToolCall` they return a `ToolMessage` (status `error` on failure).
 *
 * @example
 * ```ts
 * const executor = new ToolExecutor({
 *   defaults: { timeoutMs: 5_000 },
 *   policies: {
 *     search: { timeoutMs: 3_000, cache: { ttlMs: 60_000 } },
 *     send_email: { sideEffects: true },
 *     weather: { fallback: { tool: "weather_history" } },
 *   },
 * });
 * const agentExecutor = new AgentExecutor({ agent, tools: executor.wrap(tools) });
 * ```
 */
export class ToolExecutor {
  /** The resolved options (defaults applied). */
  readonly options: ResolvedToolExecutorOptions;
  private readonly states = new Map<string, ToolState>();
  private readonly runs: RunSlots;
  private warnedNoRun = false;
  private warnedUnbound = false;
  /** Numbers the calls, for the `callId` pairing `tool_start` with `tool_call`. */
  private callCount = 0;
  private readonly warnedUncached = new Set<string>();
  /** Concurrent identical cacheable calls share one execution. */
  private readonly singleFlight = new SingleFlight();
  /** Neutralises every observation with the agent's labels and the wrapped tools' names. */
  private readonly untrusted: UntrustedObservationGuard;
  /** Per tool, the run of the latest call started: the run a circuit change is reported under. */
  private readonly lastRunIdOfTool = new Map<string, string | undefined>();
  /** This executor's holder id in the side-effect ledger (process id + random). */
  private readonly holderId = createHolderId();
  /** What the stages and the wrapped tools use of this executor (kept off its public API). */
  private readonly context: ExecutorContext & WrappedToolHost;

  /**
   * @param options - see {@link ToolExecutorOptions}
   * @throws {ToolExecutorOptionsError} when an option or policy is invalid (names the field)
   */
  constructor(options: ToolExecutorOptions = {}) {
    this.options = resolveToolExecutorOptions(options);
    this.untrusted = new UntrustedObservationGuard(this.options.labels);
    executorCount += 1;
    this.runs = new RunSlots(`${SLOT_PREFIX}#${executorCount}`, this.options.maxTrackedRuns, this.options.runContext);
    this.context = {
      options: this.options,
      stateOf: (toolName) => this.states.get(toolName),
      toolNames: () => [...this.states.keys()],
      log: (level, message, fields) => this.log(level, message, fields),
      emit: (event) => this.emit(event),
      format: (value, context) => this.format(value, context),
      lastRunIdOfTool: this.lastRunIdOfTool,
      runResilient: (state, toolInput, config, run) => runResilientCall(this.context, state, toolInput, config, run),
      execute: (state, rawInput, runManager, config, toolCallId) => this.execute(state, rawInput, runManager, config, toolCallId),
    };
  }

  /**
   * Wraps tools. Same names, descriptions, schemas (object-schema side-effect tools gain an
   * optional `confirm`, for the dry run's token) and `returnDirect`. String-input tools stay string-input.
   * Wrapping the same tool object again returns its existing wrapper. Wrapping another tool with
   * the same name replaces the earlier wrapper for lookups (`policyOf`, `{ tool }` fallbacks) and
   * keeps the name's circuit breaker and its state (the breaker guards the service, by name).
   *
   * @param tools - LangChain tools (`tool()`, `DynamicTool`, `DynamicStructuredTool`, subclasses)
   * @returns the wrapped tools, in the same order (string-input tools come back typed as
   *   `ToolInterface`, so they fit the stock `createReactAgent({ tools })`)
   * @throws {ToolExecutorOptionsError} when a tool has no name or its policy is invalid
   */
  wrap(tools: readonly ToolInterface[]): ToolInterface[];
  wrap(tools: readonly StructuredToolInterface[]): StructuredToolInterface[];
  wrap(tools: readonly StructuredToolInterface[]): StructuredToolInterface[] {
    const wrapped = tools.map((tool) => this.wrapOne(tool));
    for (const toolName of Object.keys(this.options.policies)) {
      if (!this.states.has(toolName)) {
        this.log("warn", `A policy names tool "${toolName}", but no tool of that name is wrapped (wrapped: ${[...this.states.keys()].join(", ")}).`, { toolName });
      }
    }
    for (const [name, state] of this.states) {
      const fallback = state.policy.fallback;
      if (isRecord(fallback) && "tool" in fallback && typeof fallback.tool === "string" && !this.states.has(fallback.tool)) {
        this.log("warn", `Fallback tool "${fallback.tool}" of tool "${name}" is not wrapped by this executor yet.`, { toolName: name });
      }
    }
    return wrapped;
  }

  /**
   * Wraps one tool (see {@link ToolExecutor.wrap}).
   * @throws {ToolExecutorOptionsError} when the tool has no name or its policy is invalid
   */
  wrapTool(tool: ToolInterface): ToolInterface;
  wrapTool(tool: StructuredToolInterface): StructuredToolInterface;
  wrapTool(tool: StructuredToolInterface): StructuredToolInterface {
    return this.wrapOne(tool);
  }

  private wrapOne(tool: StructuredToolInterface): WrappedTool {
    if (tool === null || typeof tool !== "object" || typeof tool.name !== "string" || tool.name === "") {
      throw new ToolExecutorOptionsError({ field: "tools", value: "(tool without a name)", reason: "every tool needs a non-empty name" });
    }
    const existing = this.states.get(tool.name);
    if (existing !== undefined && existing.original === tool) return existing.wrapped;
    this.untrusted.addToolName(tool.name);
    // A wrapped tool is one of the agent's: its name becomes a value of the metrics' `tool` label.
    try {
      this.options.metrics?.registerTools?.([tool.name]);
    } catch (error) {
      this.log("warn", `metrics.registerTools threw for tool "${tool.name}".`, { toolName: tool.name, error: toError(error) });
    }
    // Own keys only: a tool named "constructor" or "toString" must not pick up Object.prototype members.
    const override = Object.prototype.hasOwnProperty.call(this.options.policies, tool.name) ? this.options.policies[tool.name] : undefined;
    const policy = resolveToolPolicy(this.options.defaults, override, `policies.${tool.name}`);
    const kind: ToolInputKind = isStringInputTool(tool) ? "string" : "object";
    const schema = kind === "object" && policy.sideEffects ? withConfirmField(tool.schema) : tool.schema;
    const breaker = existing?.breaker ?? createToolBreaker(tool.name, policy, this.context);
    const circuitStore = policy.circuitBreaker?.store;
    const state: ToolState = {
      name: tool.name,
      original: tool,
      policy,
      kind,
      schema,
      breaker,
      sharedBreaker:
        breaker === undefined || circuitStore === undefined || policy.circuitBreaker === undefined
          ? undefined
          : (existing?.sharedBreaker ?? new SharedBreaker(tool.name, policy.circuitBreaker, circuitStore, breaker, this.context)),
      bulkhead: createToolBulkhead(policy),
      timeout: createAttemptTimeout(policy),
      directFunc: kind === "string" && !this.options.forwardCallbacks ? directFuncOf(tool) : undefined,
      contentAndArtifact: (tool as { responseFormat?: string }).responseFormat === "content_and_artifact",
      store:
        policy.cache === undefined
          ? undefined
          : (policy.cache.store ?? new InMemoryToolResultStore({ maxEntries: policy.cache.maxEntries, now: this.options.now })),
      wrapped: undefined as unknown as WrappedTool,
    };
    state.wrapped = createWrappedTool(this.context, state);
    this.states.set(tool.name, state);
    return state.wrapped;
  }

  /** The resolved policy of a wrapped tool, or `undefined` when no tool of that name is wrapped. */
  policyOf(toolName: string): ResolvedToolPolicy | undefined {
    return this.states.get(toolName)?.policy;
  }

  /** The circuit state of a wrapped tool (`undefined` when unknown or without breaker). */
  circuitStateOf(toolName: string): CircuitState | undefined {
    const shared = this.states.get(toolName)?.sharedBreaker;
    if (shared !== undefined) return shared.state;
    const breaker = this.states.get(toolName)?.breaker;
    return breaker === undefined ? undefined : toCircuitState(breaker.state);
  }

  /**
   * The pipeline of one call, as named stages; resolves to the observation and outcome, never
   * rejects for tool failures. Every call then gets the run's pending loop notes appended, one
   * `tool_call` event and, for failures, one `warn` log line.
   */
  private async execute(state: ToolState, rawInput: unknown, runManager: CallbackManagerForToolRun | undefined, config: RunnableConfig, toolCallId?: string): Promise<CallResult> {
    const startedAt = this.options.now();
    const run = this.runs.find(runManager, config);
    this.callCount += 1;
    const callId = `call-${this.callCount}`;
    const wantsToolInput = wantsContent([this.options.metrics, this.options.onEvent]);
    this.emit({ type: "tool_start", toolName: state.name, callId, runId: run.runId, ...(wantsToolInput ? { toolInput: rawInput } : {}) });
    let toolInput: unknown = rawInput;
    let result: CallResult;
    try {
      const prepared = refusedByStop(state, run) ?? (await this.validate(state, rawInput));
      if ("observation" in prepared) result = prepared;
      else {
        toolInput = prepared.toolInput;
        result = await this.executePrepared(state, prepared, run, runManager, config, toolCallId);
      }
    } catch (unexpected) {
      const error = toError(unexpected);
      result = { observation: MODEL_MESSAGES.permanentError(state.name, error.message), outcome: "error", error };
    }
    // Every observation (result, failure message, fallback value, dry-run preview) and the loop
    // notes that quote earlier results pass the neutraliser of the one grammar.
    const notes = drainNotes(run);
    const safe = this.untrusted.neutralize(result.observation);
    const observation = notes === undefined ? safe : `${safe}\n\n${this.untrusted.neutralize(notes)}`;
    const durationMs = Math.max(0, this.options.now() - startedAt);
    // The run record: the call's typed outcome, for whoever sums up the run (never its wording).
    if (run.context !== undefined) recordRunCall(run.context, { toolName: state.name, toolInput: rawInput, outcome: result.outcome, observation, durationMs, ...(result.error instanceof StoppedRunCallError ? { stoppedRun: true } : {}) });
    const content = wantsToolInput ? { toolInput, observation } : {};
    this.emit({ type: "tool_call", toolName: state.name, outcome: result.outcome, durationMs, error: result.error, runId: run.runId, callId, ...content });
    if (result.error !== undefined && result.outcome !== "dry_run") {
      this.log("warn", `Tool "${state.name}" call ended as ${result.outcome}: ${result.error.message}`, {
        toolName: state.name,
        outcome: result.outcome,
        error: result.error,
        runId: run.runId,
        toolInput,
      });
    }
    return { ...result, observation };
  }

  /** Stage "validate": the input parsed, checked against the schemas, sanitised; or the model-facing rejection. */
  private async validate(state: ToolState, rawInput: unknown): Promise<PreparedToolInput | CallResult> {
    const prepared = await prepareToolInput({ toolName: state.name, kind: state.kind, schema: state.original.schema, policy: state.policy }, rawInput);
    if (!("issues" in prepared)) return prepared;
    const error = new ToolValidationError({ toolName: state.name, issues: prepared.issues, toolInput: rawInput });
    return { observation: prepared.observation, outcome: "invalid_input", error };
  }

  /** Stages "cache" → "dry run" → "idempotency" → "call cap" → "resilient call" → "cache store". */
  private async executePrepared(
    state: ToolState,
    prepared: PreparedToolInput,
    run: RunHandle,
    runManager: CallbackManagerForToolRun | undefined,
    config: RunnableConfig,
    toolCallId: string | undefined,
  ): Promise<CallResult> {
    const { toolInput } = prepared;
    const toolName = state.name;
    const facts: CallFacts = {
      configurable: config.configurable,
      // The stream() path hands a CallbackManager, whose inheritable metadata is the run's.
      metadata: config.metadata ?? (runManager as { metadata?: Record<string, unknown> } | undefined)?.metadata,
      sourceText: prepared.sourceText,
    };
    const cache = cacheEntryOf(this.context, state, { toolName, toolInput, runId: run.runId, ...facts }, (name, reason) => this.warnUncached(name, reason));
    let storeFailed = false;
    const cached = cache === undefined ? undefined : await readCache(this.context, cache, toolName, toolInput, run.runId, () => (storeFailed = true));
    if (cached !== undefined) return cached;

    // Confirmations live in the ledger: a token shown by this run's dry run in another replica counts here.
    const confirmations = { ledger: this.options.sideEffectLedger };
    if (!(await confirmedAcrossReplicas(this.context, state, toolInput, prepared, run, confirmations))) {
      const gate = await gateSideEffectCall(this.context, state, toolInput, prepared, run, (name) => this.warnUnbound(name), confirmations);
      if (gate !== undefined) return gate;
    }
    // Stage "ledger claim": a confirmed side-effect call with a tool call id runs at most once.
    const identity = state.policy.sideEffects ? sideEffectIdentityOf(config.configurable, run, toolCallId) : undefined;
    const ledger = this.options.sideEffectLedger;
    let ledgerClaim: HeldSideEffectClaim | undefined;
    if (identity !== undefined) {
      const claimed = await claimSideEffectCall(this.context, state, toolInput, identity, run, ledger, this.holderId, config.signal);
      if ("observation" in claimed) return claimed;
      ledgerClaim = claimed;
    }
    const release = async (result: CallResult): Promise<CallResult> => {
      if (ledgerClaim !== undefined) await settleSideEffectClaim(this.context, toolName, ledger, ledgerClaim, { ...result, toolCalls: 0 });
      return result;
    };
    const idempotency = checkIdempotency(state, toolInput, run, (name, feature) => this.warnNoRun(name, feature));
    if (idempotency !== undefined && "observation" in idempotency) return release(idempotency);
    const capped = checkCallCap(state, run, (name, feature) => this.warnNoRun(name, feature));
    if (capped !== undefined) return release(capped);

    // The original tool gets the caller's config minus its callbacks (one tool run per action),
    // or the wrapper's child callbacks when forwardCallbacks is on; a claimed side-effect call
    // also gets its idempotency key (configurable.reins_idempotency_key) for the downstream API.
    const innerConfig: RunnableConfig = {
      ...config,
      runId: undefined,
      callbacks: this.options.forwardCallbacks ? runManager?.getChild() : undefined,
      ...(ledgerClaim !== undefined ? { configurable: { ...config.configurable, [IDEMPOTENCY_KEY_FIELD]: ledgerClaim.idempotencyKey } } : {}),
    };
    const call = async (): Promise<CallResult> => {
      const result = await withIdempotencyClaim(idempotency, run, () => runResilientCall(this.context, state, toolInput, innerConfig, run));
      if (ledgerClaim !== undefined) await settleSideEffectClaim(this.context, toolName, ledger, ledgerClaim, result);
      return result;
    };
    if (cache === undefined) return call();
    // Concurrent identical calls (same scope, tool and input) share one execution; across
    // processes, the store's lease (claim) lets one compute while the others wait for its entry.
    const { result, shared } = await this.singleFlight.do(cache.key, async () => {
      // A store that just failed is not asked for a lease too (one error per outage-hit call, and no wait).
      const claimed = storeFailed ? undefined : await claimCache(this.context, cache, toolName, toolInput, run.runId);
      if (claimed !== undefined) return claimed;
      try {
        const computed = await call();
        await writeCache(this.context, cache, toolName, toolInput, computed, run.runId);
        return computed;
      } finally {
        await releaseCache(this.context, cache, toolName);
      }
    }, config.signal);
    if (!shared) return result;
    const joined = sharedResult(result);
    // The observation is formatted again for this call's run (formatObservation may use it).
    return joined.outcome === "cached" && result.raw !== undefined
      ? { ...joined, observation: this.format(result.raw, { toolName, toolInput, ...(run.runId !== undefined ? { runId: run.runId } : {}) }) }
      : joined;
  }

  /**
   * A successful result as observation text: `formatObservation`, guarded (blank or throwing → the
   * default), then with secrets redacted when `redactToolResults` is on.
   */
  private format(value: unknown, context: { toolName: string; toolInput: unknown; runId?: string }): string {
    const text = this.formatUnredacted(value, context);
    if (!this.options.redactToolResults) return text;
    const { value: redacted, kinds } = this.options.secretRedactor.redactText(text);
    if (kinds.length > 0) this.emit({ type: "secret_redaction", surface: "preview", kinds, ...(context.runId !== undefined ? { runId: context.runId } : {}) });
    return redacted;
  }

  private formatUnredacted(value: unknown, context: { toolName: string; toolInput: unknown; runId?: string }): string {
    const formatter = this.options.formatObservation;
    if (formatter === defaultFormatObservation) return defaultFormatObservation(value, context);
    try {
      const text = formatter(value, context);
      if (typeof text === "string" && text.trim() !== "") return ensureReadableObservation(text, context.toolName);
      this.log("warn", `formatObservation returned ${typeof text === "string" ? "a blank string" : typeof text} for tool "${context.toolName}"; using the default format.`, {
        toolName: context.toolName,
      });
    } catch (formatError) {
      this.log("warn", `formatObservation threw for tool "${context.toolName}"; using the default format.`, {
        toolName: context.toolName,
        error: toError(formatError),
      });
    }
    return defaultFormatObservation(value, context);
  }

  private warnUncached(toolName: string, reason: string): void {
    if (this.warnedUncached.has(toolName)) return;
    this.warnedUncached.add(toolName);
    this.log("warn", `Tool "${toolName}" has a cache but this call is not cached: ${reason}. (Logged once per tool.)`, { toolName });
  }

  private warnUnbound(toolName: string): void {
    if (this.warnedUnbound) return;
    this.warnedUnbound = true;
    this.log(
      "warn",
      `Side-effect tool "${toolName}" was called outside an identifiable run (no run id: no LangChain callback handler attached), so no confirmation token can be bound to it and none is accepted; the call got a dry run. ` +
        "Give the tool's policy an approve hook, pass callbacks to executor.invoke/stream (e.g. a LoopControlHandler), or use Reins' createReactAgent. (Logged once per executor.)",
      { toolName },
    );
  }

  private warnNoRun(toolName: string, feature: string): void {
    if (this.warnedNoRun) return;
    this.warnedNoRun = true;
    this.log(
      "warn",
      `Tool "${toolName}" has ${feature} but the call carries no run id (no LangChain callback handler attached), so per-run limits are not applied. Attach any callback handler (e.g. LoopControlHandler) to the executor.`,
      { toolName },
    );
  }

  /**
   * Sends an event to `metrics` and `onEvent`, redacted by `secretRedaction` first (see core's
   * `emitEvent`); a recorder that throws is logged, never rethrown.
   */
  private emit(event: ReinsEvent): void {
    emitEvent(
      event,
      [this.options.metrics, this.options.onEvent],
      (error) => this.log("warn", "An event recorder or listener threw; the event was dropped for it.", { error: toError(error), eventType: event.type }),
      this.options.secretRedactor,
    );
  }

  /**
   * Logs through `logger`, the message and fields (errors included: message, stack, `cause`)
   * redacted by `secretRedaction` first, counted as a `secret_redaction` event (`surface: "log"`);
   * a logger that throws is ignored.
   */
  private log(level: keyof ToolExecutorLogger, message: string, fields?: Record<string, unknown>): void {
    const redactor = this.options.secretRedactor;
    const text = redactor.redactText(message);
    const record = fields === undefined ? { value: undefined, kinds: [] } : redactRecord(fields, redactor);
    try {
      this.options.logger[level]?.(text.value, record.value);
    } catch {
      // A broken logger must never break a tool call.
    }
    const kinds = [...text.kinds, ...record.kinds];
    if (kinds.length > 0) emitEvent({ type: "secret_redaction", surface: "log", kinds }, [this.options.metrics, this.options.onEvent]);
  }
}

/** Stage "run-stop check": once the loop controller decided to end the run, the tool is not called. */
function refusedByStop(state: ToolState, run: RunHandle): CallResult | undefined {
  const stop = run.context?.loop.stop;
  if (stop === undefined) return undefined;
  const error = new StoppedRunCallError({ toolName: state.name, stopReason: stop.reason, runId: run.runId });
  return { observation: MODEL_MESSAGES.runStopping(state.name), outcome: "rejected", error };
}
