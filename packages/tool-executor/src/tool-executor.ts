import { CallbackManager, parseCallbackConfigArg, type CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import { ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { DynamicTool, StructuredTool, Tool, ToolInputParsingException, type StructuredToolInterface, type ToolInterface } from "@langchain/core/tools";
import { isSimpleStringZodSchema } from "@langchain/core/utils/types";
import {
  emitEvent,
  wantsContent,
  normalizeToolInput,
  runIdsFrom,
  type CircuitState,
  type RunContext,
  type ToolCallOutcome,
} from "@reins/core";
import {
  BrokenCircuitError,
  BulkheadRejectedError as CockatielBulkheadRejectedError,
  CircuitState as CockatielCircuitState,
  ConsecutiveBreaker,
  ExponentialBackoff,
  TaskCancelledError,
  TimeoutStrategy,
  bulkhead as createBulkhead,
  circuitBreaker as createCircuitBreaker,
  decorrelatedJitterGenerator,
  fallback as createFallback,
  fullJitterGenerator,
  handleWhen,
  noJitterGenerator,
  retry as createRetry,
  timeout as createTimeout,
  type BulkheadPolicy,
  type CircuitBreakerPolicy,
  type RetryPolicy,
  type TimeoutPolicy,
  type IExponentialBackoffOptions,
} from "cockatiel";
import {
  BulkheadRejectedError,
  CallLimitExceededError,
  CircuitOpenError,
  DuplicateCallError,
  RunStoppedError,
  ToolExecutionError,
  ToolExecutorOptionsError,
  ToolResultCheckError,
  ToolTimeoutError,
  ToolValidationError,
  SideEffectNotApprovedError,
} from "./errors";
import { defaultFormatObservation, ensureReadableObservation } from "./format-observation";
import { guardAbortListeners } from "./guarded-signal";
import { MODEL_MESSAGES } from "./messages";
import { decideSideEffectCall } from "./confirmation";
import { UntrustedObservationGuard } from "./untrusted-observation";
import { isRetryableError, toError } from "./normalize-error";
import { checkResultShape, type ResultCheckFailure } from "./result-check";
import { InMemoryToolResultStore, type ToolResultStore } from "./result-store";
import { countsAgainstCircuit, failureObservation, isKnownFailure, outcomeOf } from "./failure-observation";
import { previewText, prepareToolInput, withConfirmField, type PreparedToolInput, type ToolInputKind } from "./tool-input";
import { resolveToolPolicy, type ResolvedToolPolicy } from "./tool-policy";
import {
  resolveToolExecutorOptions,
  type ResolvedToolExecutorOptions,
  type ToolExecutorLogger,
  type ToolExecutorOptions,
} from "./tool-executor-options";

/** A tool returned by {@link ToolExecutor.wrap}: the original's name, description and schema. */
export type WrappedTool = StructuredTool;

type InputKind = ToolInputKind;

interface ToolState {
  readonly name: string;
  readonly original: StructuredToolInterface;
  readonly policy: ResolvedToolPolicy;
  readonly kind: InputKind;
  /** The schema the wrapped tool exposes (original, plus `confirm` for side-effect object tools). */
  readonly schema: unknown;
  readonly breaker: CircuitBreakerPolicy | undefined;
  readonly bulkhead: BulkheadPolicy | undefined;
  readonly timeout: TimeoutPolicy | undefined;
  readonly retry: RetryPolicy | undefined;
  /** The original tool answers `[content, artifact]` (`responseFormat: "content_and_artifact"`). */
  readonly contentAndArtifact: boolean;
  /** A plain `DynamicTool`'s function, called directly (see {@link directFuncOf}). */
  readonly directFunc: DynamicTool["func"] | undefined;
  readonly store: ToolResultStore | undefined;
  wrapped: WrappedTool;
}

interface RunSlot {
  readonly callCounts: Map<string, number>;
  readonly idempotency: Map<string, { observation?: string }>;
}

interface RunHandle {
  /** Id reported on events: the registered top-level run, or the tool run's parent run. */
  readonly runId: string | undefined;
  readonly context: RunContext | undefined;
  readonly slot: RunSlot | undefined;
}

interface CallResult {
  readonly observation: string;
  readonly outcome: ToolCallOutcome;
  readonly error?: Error;
  /** The raw result of a successful call (what the cache stores). */
  readonly raw?: unknown;
  /** The `ToolMessage` artifact: the tool's own artifact (`content_and_artifact`), else the raw result. */
  readonly artifact?: unknown;
  /** A LangGraph direct output (`Command`, `ToolMessage`) returned by the tool, passed through. */
  readonly direct?: unknown;
  /** How many times the original tool was started (0: the circuit, bulkhead or caller stopped it first). */
  readonly toolCalls?: number;
}

interface AttemptState {
  attempts: number;
  lastError: Error | undefined;
  readonly toolInput: unknown;
  readonly parentSignal: AbortSignal | undefined;
  /** The top-level run of the call (copied onto its retry and circuit events). */
  readonly runId: string | undefined;
}

/** A signal that never aborts, for calls made without one. */
const NEVER_ABORTED = new AbortController().signal;

const SLOT_PREFIX = "@reins/tool-executor";
let executorCount = 0;

/** Id of the ToolCall the wrapper sends to a `content_and_artifact` tool, to recognise its reply. */
const INNER_TOOL_CALL_ID = "reins-tool-executor-inner-call";

const CONTENT_AND_ARTIFACT = Symbol("reins.tool-executor.content-and-artifact");

/** A `content_and_artifact` tool's reply, unwrapped from the ToolMessage LangChain built. */
interface ContentAndArtifact {
  readonly [CONTENT_AND_ARTIFACT]: true;
  readonly content: unknown;
  readonly artifact: unknown;
}

function isContentAndArtifact(value: unknown): value is ContentAndArtifact {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[CONTENT_AND_ARTIFACT] === true;
}

/** Marker the fallback policy returns so the real fallback can run with the failure's cause. */
const FALLBACK_SIGNAL = Symbol("reins.tool-executor.fallback");

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isDirectToolOutput(value: unknown): boolean {
  return isRecord(value) && value.lc_direct_tool_output === true;
}

/** Same test as LangChain's `_isToolCall`: a `ToolCall` is tagged `type: "tool_call"`. */
function isToolCallShape(value: unknown): value is { args: unknown; id?: string; name: string } {
  return isRecord(value) && value.type === "tool_call" && "args" in value;
}

/**
 * A string-input tool: a `Tool` (`DynamicTool`, `tool()` without an object schema), also one built
 * with another copy of `@langchain/core` (recognised by its class chain), or a tool whose schema is
 * a plain zod string.
 */
function isStringInputTool(tool: StructuredToolInterface): boolean {
  if (tool instanceof Tool || isSimpleStringZodSchema(tool.schema)) return true;
  for (let proto: unknown = Object.getPrototypeOf(tool), depth = 0; proto !== null && proto !== undefined && depth < 10; depth += 1) {
    const name = (proto as { constructor?: { name?: string } }).constructor?.name;
    if (name === "Tool" || name === "DynamicTool") return true;
    if (name === "StructuredTool") return false;
    proto = Object.getPrototypeOf(proto);
  }
  return false;
}

function toCircuitState(state: CockatielCircuitState): CircuitState {
  if (state === CockatielCircuitState.Closed) return "closed";
  if (state === CockatielCircuitState.HalfOpen) return "half_open";
  return "open";
}

/**
 * Wraps LangChain tools so they cannot hang, cannot fail silently and cannot fire side effects by
 * accident. Each call runs: run-stop check → validate → cache → dry-run → idempotency → call cap →
 * fallback(retry(breaker(bulkhead(timeout(call))))), the order of Polly/cockatiel resilience
 * pipelines, using cockatiel policies. Once the run's loop controller has set
 * `RunContext.loop.stop`, tools are no longer called: the model gets a short note that the task is
 * being stopped (outcome `rejected`, a `RunStoppedError`).
 * Every outcome is a non-empty observation string for the model; operators get typed errors in
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
  private readonly trackedRuns = new Map<string, RunSlot>();
  private readonly slotKey: string;
  private warnedNoRun = false;
  /** Neutralises every observation with the agent's labels and the wrapped tools' names. */
  private readonly untrusted: UntrustedObservationGuard;
  /** The call an error came from, so the shared retry policy can see its input and attempt count. */
  private readonly callOfError = new WeakMap<Error, AttemptState>();
  /** The top-level run of each inner config handed down a call (for events raised deep inside it). */
  private readonly runIdOfConfig = new WeakMap<RunnableConfig, string>();
  /** Per tool, the run of the latest call started: the run a circuit change is reported under. */
  private readonly lastRunIdOfTool = new Map<string, string | undefined>();

  /**
   * @param options - see {@link ToolExecutorOptions}
   * @throws {ToolExecutorOptionsError} when an option or policy is invalid (names the field)
   */
  constructor(options: ToolExecutorOptions = {}) {
    this.options = resolveToolExecutorOptions(options);
    this.untrusted = new UntrustedObservationGuard(this.options.labels);
    executorCount += 1;
    this.slotKey = `${SLOT_PREFIX}#${executorCount}`;
  }

  /**
   * Wraps tools. Same names, descriptions, schemas (object-schema side-effect tools gain an
   * optional `confirm: boolean`) and `returnDirect`. String-input tools stay string-input.
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
    // Own keys only: a tool named "constructor" or "toString" must not pick up Object.prototype members.
    const override = Object.prototype.hasOwnProperty.call(this.options.policies, tool.name) ? this.options.policies[tool.name] : undefined;
    const policy = resolveToolPolicy(this.options.defaults, override, `policies.${tool.name}`);
    const kind: InputKind = isStringInputTool(tool) ? "string" : "object";
    const schema = kind === "object" && policy.sideEffects ? withConfirmField(tool.schema) : tool.schema;
    const state: ToolState = {
      name: tool.name,
      original: tool,
      policy,
      kind,
      schema,
      breaker: existing?.breaker ?? this.createBreaker(tool.name, policy),
      bulkhead: policy.bulkhead === undefined ? undefined : createBulkhead(policy.bulkhead.maxConcurrent, policy.bulkhead.maxQueued),
      // abortOnReturn: false — aborting a finished call only costs a DOMException per call (~25 µs on Node 20).
      timeout: Number.isFinite(policy.timeoutMs) ? createTimeout(policy.timeoutMs, { strategy: TimeoutStrategy.Aggressive, abortOnReturn: false }) : undefined,
      retry: this.createRetryPolicy(tool.name, policy),
      directFunc: kind === "string" && !this.options.forwardCallbacks ? directFuncOf(tool) : undefined,
      contentAndArtifact: (tool as { responseFormat?: string }).responseFormat === "content_and_artifact",
      store:
        policy.cache === undefined
          ? undefined
          : (policy.cache.store ?? new InMemoryToolResultStore({ maxEntries: policy.cache.maxEntries, now: this.options.now })),
      wrapped: undefined as unknown as WrappedTool,
    };
    state.wrapped = this.createWrapper(state);
    this.states.set(tool.name, state);
    return state.wrapped;
  }

  /** The resolved policy of a wrapped tool, or `undefined` when no tool of that name is wrapped. */
  policyOf(toolName: string): ResolvedToolPolicy | undefined {
    return this.states.get(toolName)?.policy;
  }

  /** The circuit state of a wrapped tool (`undefined` when unknown or without breaker). */
  circuitStateOf(toolName: string): CircuitState | undefined {
    const breaker = this.states.get(toolName)?.breaker;
    return breaker === undefined ? undefined : toCircuitState(breaker.state);
  }

  private createBreaker(toolName: string, policy: ResolvedToolPolicy): CircuitBreakerPolicy | undefined {
    if (policy.circuitBreaker === undefined) return undefined;
    const breaker = createCircuitBreaker(
      handleWhen((error) => countsAgainstCircuit(error)),
      { halfOpenAfter: policy.circuitBreaker.halfOpenAfterMs, breaker: new ConsecutiveBreaker(policy.circuitBreaker.failureThreshold) },
    );
    breaker.onStateChange((state) => {
      const circuitState = toCircuitState(state);
      const runId = this.lastRunIdOfTool.get(toolName);
      this.emit({
        type: "circuit_state",
        toolName,
        state: circuitState,
        ...(circuitState === "open" ? { halfOpenAfterMs: policy.circuitBreaker?.halfOpenAfterMs } : {}),
        ...(runId !== undefined ? { runId } : {}),
      });
      this.log(state === CockatielCircuitState.Closed ? "info" : "warn", `Circuit of tool "${toolName}" is now ${toCircuitState(state)}.`, { toolName });
    });
    return breaker;
  }

  private createRetryPolicy(toolName: string, policy: ResolvedToolPolicy): RetryPolicy | undefined {
    const retryOptions = policy.retry;
    if (retryOptions === undefined) return undefined;
    const retryPolicy = createRetry(
      handleWhen((error) => {
        const call = this.callOfError.get(error);
        if (call === undefined || call.parentSignal?.aborted === true) return false;
        // Once this failure opened the circuit, another attempt would only wait out a backoff to be refused.
        if (CircuitOpenError.isInstance(error) || this.states.get(toolName)?.breaker?.state === CockatielCircuitState.Open) return false;
        if (retryOptions.retryOn !== undefined) {
          try {
            return retryOptions.retryOn(error, { toolName, toolInput: call.toolInput, attempt: call.attempts });
          } catch (hookError) {
            this.log("warn", `retry.retryOn threw for tool "${toolName}"; not retrying.`, { toolName, error: toError(hookError) });
            return false;
          }
        }
        return isRetryableError(error);
      }),
      {
        maxAttempts: retryOptions.maxAttempts - 1,
        backoff: new ExponentialBackoff({
          initialDelay: retryOptions.initialDelayMs,
          maxDelay: retryOptions.maxDelayMs,
          generator: generatorOf(retryOptions.jitter),
        } as Partial<IExponentialBackoffOptions<unknown>>),
      },
    );
    retryPolicy.onRetry((event) => {
      this.emit({
        type: "tool_retry",
        toolName,
        attempt: event.attempt + 1,
        delayMs: event.delay,
        error: "error" in event ? toError(event.error) : undefined,
        ...(this.callOfRetry(event) ?? {}),
      });
    });
    return retryPolicy;
  }

  private createWrapper(state: ToolState): WrappedTool {
    const executor = this;
    const fields = {
      name: state.original.name,
      description: state.original.description,
      returnDirect: state.original.returnDirect ?? false,
      verboseParsingErrors: false,
    };
    const wrapper: StructuredTool =
      state.kind === "string"
        ? new (class ReinsWrappedStringTool extends Tool {
            name = fields.name;
            description = fields.description;
            protected async _call(): Promise<string> {
              throw new Error("ReinsWrappedStringTool runs through call()");
            }
          })({ verboseParsingErrors: false })
        : new (class ReinsWrappedStructuredTool extends StructuredTool {
            name = fields.name;
            description = fields.description;
            schema = state.schema as StructuredTool["schema"];
            protected async _call(): Promise<string> {
              throw new Error("ReinsWrappedStructuredTool runs through call()");
            }
          })({ verboseParsingErrors: false });
    wrapper.returnDirect = fields.returnDirect;
    // Provider-specific binding fields and metadata travel with the tool (e.g. cache-control extras).
    const source = state.original as unknown as Record<string, unknown>;
    const target = wrapper as unknown as Record<string, unknown>;
    for (const key of ["extras", "metadata", "tags"]) if (source[key] !== undefined) target[key] = source[key];
    if (state.kind === "string") (wrapper as unknown as { schema: unknown }).schema = state.original.schema;
    const call = (arg: unknown, configArg?: unknown, tags?: string[]): Promise<unknown> => executor.runCall(state, wrapper, arg, configArg, tags);
    // Shadow the prototype's `call` (used by invoke() and by AgentExecutor's stream path) so the
    // schema check, callbacks and failure handling are ours: invalid input becomes an observation
    // instead of a ToolInputParsingException that would crash the AgentExecutor.
    Object.defineProperty(wrapper, "call", { value: call, writable: true, configurable: true, enumerable: false });
    return wrapper;
  }

  /** Runs one call of a wrapped tool with LangChain's callback protocol. */
  private async runCall(state: ToolState, wrapper: StructuredTool, arg: unknown, configArg: unknown, tags: string[] | undefined): Promise<unknown> {
    const config = parseCallbackConfigArg(configArg as Parameters<typeof parseCallbackConfigArg>[0]) as RunnableConfig & {
      toolCall?: { id?: string };
    };
    const toolCall = isToolCallShape(arg) ? arg : undefined;
    const rawInput = toolCall === undefined ? arg : toolCall.args;
    const toolCallId = toolCall?.id ?? config.toolCall?.id;
    const callbackManager = await CallbackManager.configure(
      config.callbacks,
      wrapper.callbacks,
      config.tags ?? tags,
      wrapper.tags,
      config.metadata,
      wrapper.metadata,
      { verbose: wrapper.verbose },
    );
    const callbackInput = isRecord(rawInput) ? rawInput : typeof rawInput === "string" ? rawInput : previewText(rawInput);
    const runManager = await callbackManager?.handleToolStart(
      wrapper.toJSON(),
      callbackInput as string | Record<string, unknown>,
      config.runId,
      undefined,
      undefined,
      undefined,
      config.runName ?? state.name,
      toolCallId,
    );
    let result: CallResult;
    try {
      result = await this.execute(state, rawInput, runManager, config);
    } catch (unexpected) {
      // Only a defect of this package gets here; report it to callbacks, then answer the model.
      const error = toError(unexpected);
      await runManager?.handleToolError(error);
      this.log("error", `Unexpected failure in the tool executor for tool "${state.name}".`, { toolName: state.name, error });
      return MODEL_MESSAGES.permanentError(state.name, "internal error in the tool executor");
    }
    if (result.direct !== undefined) {
      await runManager?.handleToolEnd(result.direct);
      return result.direct;
    }
    const output =
      toolCallId === undefined
        ? result.observation
        : new ToolMessage({
            content: result.observation,
            tool_call_id: toolCallId,
            name: state.name,
            status: result.outcome === "success" || result.outcome === "cached" || result.outcome === "fallback" || result.outcome === "dry_run" ? "success" : "error",
            artifact: result.artifact,
          });
    await runManager?.handleToolEnd(output);
    return output;
  }

  /** The pipeline of one call; resolves to the observation and outcome, never rejects for tool failures. */
  private async execute(
    state: ToolState,
    rawInput: unknown,
    runManager: CallbackManagerForToolRun | undefined,
    config: RunnableConfig,
  ): Promise<CallResult> {
    const startedAt = this.options.now();
    const run = this.findRun(runManager, config);
    let result: CallResult;
    let toolInput: unknown = rawInput;
    const stop = run.context?.loop.stop;
    if (stop !== undefined) {
      // The loop controller has decided to end this run: the tool is not called at all.
      const error = new RunStoppedError({ toolName: state.name, stopReason: stop.reason, runId: run.runId });
      result = { observation: MODEL_MESSAGES.runStopping(state.name), outcome: "rejected", error };
    } else {
      try {
        const prepared = await prepareToolInput({ toolName: state.name, kind: state.kind, schema: state.original.schema, policy: state.policy }, rawInput);
        if ("issues" in prepared) {
          const error = new ToolValidationError({ toolName: state.name, issues: prepared.issues, toolInput: rawInput });
          result = { observation: prepared.observation, outcome: "invalid_input", error };
        } else {
          toolInput = prepared.toolInput;
          // The original tool gets the caller's config minus its callbacks (one tool run per action),
          // or the wrapper's child callbacks when forwardCallbacks is on.
          const innerConfig: RunnableConfig = { ...config, runId: undefined, callbacks: this.options.forwardCallbacks ? runManager?.getChild() : undefined };
          if (run.runId !== undefined) this.runIdOfConfig.set(innerConfig, run.runId);
          result = await this.executePrepared(state, prepared.toolInput, prepared, run, innerConfig);
        }
      } catch (unexpected) {
        const error = toError(unexpected);
        result = { observation: MODEL_MESSAGES.permanentError(state.name, error.message), outcome: "error", error };
      }
    }
    // Every observation (result, failure message, fallback value, dry-run preview) and the loop
    // notes that quote earlier results pass the neutraliser of the one grammar.
    const notes = this.drainNotes(run);
    const safe = this.untrusted.neutralize(result.observation);
    const observation = notes === undefined ? safe : `${safe}\n\n${this.untrusted.neutralize(notes)}`;
    const durationMs = Math.max(0, this.options.now() - startedAt);
    const content = wantsContent([this.options.metrics, this.options.onEvent]) ? { toolInput, observation } : {};
    this.emit({ type: "tool_call", toolName: state.name, outcome: result.outcome, durationMs, error: result.error, runId: run.runId, ...content });
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

  private async executePrepared(
    state: ToolState,
    toolInput: unknown,
    confirmation: Pick<PreparedToolInput, "confirmation" | "confirmationInput">,
    run: RunHandle,
    config: RunnableConfig,
  ): Promise<CallResult> {
    const { policy, name: toolName } = state;
    const context = { toolName, toolInput, ...(run.runId !== undefined ? { runId: run.runId } : {}) };

    let cacheKey: string | undefined;
    if (policy.cache !== undefined && state.store !== undefined) {
      try {
        cacheKey = `${toolName}:${policy.cache.key?.(toolInput, { toolName }) ?? normalizeToolInput(toolInput)}`;
      } catch (keyError) {
        this.log("warn", `cache.key threw for tool "${toolName}"; calling the tool without the cache.`, { toolName, error: toError(keyError) });
      }
    }
    if (cacheKey !== undefined && policy.cache !== undefined && state.store !== undefined) {
      try {
        const hit = await state.store.get(cacheKey);
        // The age is checked here too, so a store that keeps entries past their TTL cannot serve them.
        if (isRecord(hit) && "value" in hit && typeof hit.storedAtMs === "number" && this.options.now() - hit.storedAtMs < policy.cache.ttlMs) {
          return { observation: this.format(hit.value, context), outcome: "cached", artifact: hit.value };
        }
      } catch (storeError) {
        this.log("warn", `Cache store failed on get for tool "${toolName}"; calling the tool.`, { toolName, error: toError(storeError) });
      }
    }

    if (policy.sideEffects) {
      const gate = await this.gateSideEffectCall(state, toolInput, confirmation, run);
      if (gate !== undefined) return gate;
    }

    let idempotencySlotKey: string | undefined;
    if (policy.sideEffects && policy.idempotencyKey !== undefined) {
      if (run.slot === undefined) {
        this.warnNoRun(toolName, "idempotencyKey");
      } else {
        const key = policy.idempotencyKey === true ? normalizeToolInput(toolInput) : policy.idempotencyKey(toolInput, { toolName });
        idempotencySlotKey = `${toolName}\u0000${key}`;
        const previous = run.slot.idempotency.get(idempotencySlotKey);
        if (previous !== undefined) {
          const error = new DuplicateCallError({ toolName, idempotencyKey: key, runId: run.runId });
          return { observation: MODEL_MESSAGES.duplicate(toolName, previous.observation), outcome: "rejected", error };
        }
      }
    }

    if (Number.isFinite(policy.maxCallsPerRun)) {
      if (run.slot === undefined) {
        this.warnNoRun(toolName, "maxCallsPerRun");
      } else {
        const count = run.slot.callCounts.get(toolName) ?? 0;
        if (count >= policy.maxCallsPerRun) {
          const error = new CallLimitExceededError({ toolName, maxCallsPerRun: policy.maxCallsPerRun, runId: run.runId });
          return { observation: MODEL_MESSAGES.callLimit(toolName, policy.maxCallsPerRun), outcome: "rejected", error };
        }
        run.slot.callCounts.set(toolName, count + 1);
      }
    }

    // Registered only once the call really goes ahead (a call-cap rejection must not mark it done).
    let idempotencyEntry: { observation?: string } | undefined;
    if (idempotencySlotKey !== undefined && run.slot !== undefined) {
      idempotencyEntry = {};
      run.slot.idempotency.set(idempotencySlotKey, idempotencyEntry);
    }
    const result = await this.runResilient(state, toolInput, config);
    if (idempotencyEntry !== undefined && idempotencySlotKey !== undefined && run.slot !== undefined) {
      // The tool never started (circuit open, bulkhead full, cancelled while queued): a repeat is
      // not a duplicate, so forget the key. Once the tool started, a repeat is dropped even after a
      // failure, since the action may have happened.
      if (result.toolCalls === 0) run.slot.idempotency.delete(idempotencySlotKey);
      else idempotencyEntry.observation = result.observation;
    }
    if (result.outcome === "success" && cacheKey !== undefined && state.store !== undefined && policy.cache !== undefined && result.direct === undefined) {
      const value = result.raw;
      let cacheable = true;
      try {
        cacheable = policy.cache.cacheable?.(value, context) ?? true;
      } catch (hookError) {
        cacheable = false;
        this.log("warn", `cache.cacheable threw for tool "${toolName}"; result not cached.`, { toolName, error: toError(hookError) });
      }
      if (cacheable) {
        try {
          await state.store.set(cacheKey, { value, storedAtMs: this.options.now() }, policy.cache.ttlMs);
        } catch (storeError) {
          this.log("warn", `Cache store failed on set for tool "${toolName}".`, { toolName, error: toError(storeError) });
        }
      }
    }
    return result;
  }

  /** fallback(retry(breaker(bulkhead(timeout(call))))); the result counts the tool's starts. */
  private async runResilient(state: ToolState, toolInput: unknown, config: RunnableConfig): Promise<CallResult> {
    const attemptState: AttemptState = { attempts: 0, lastError: undefined, toolInput, parentSignal: config.signal, runId: this.runIdOfConfig.get(config) };
    const result = await this.runResilientWith(state, toolInput, config, attemptState);
    return { ...result, toolCalls: attemptState.attempts };
  }

  private async runResilientWith(state: ToolState, toolInput: unknown, config: RunnableConfig, attemptState: AttemptState): Promise<CallResult> {
    const { policy, name: toolName } = state;
    const parentSignal = config.signal;

    /** `inFlight.call` receives the tool's own promise, which may outlive an abandoned attempt. */
    const timed = async (signal: AbortSignal, inFlight?: { call?: Promise<unknown> }): Promise<unknown> => {
      attemptState.attempts += 1;
      if (state.timeout === undefined) return this.callOriginal(state, toolInput, signal, config);
      try {
        // Without a caller signal nothing upstream can abort, so skip cockatiel's parent-signal listener.
        return await state.timeout.execute(
          ({ signal: attemptSignal }) => {
            // cockatiel's fresh per-attempt signal, aborted by us at the deadline: the tool's abort
            // listeners run guarded, as one that throws would otherwise crash the process.
            guardAbortListeners(attemptSignal, (listenerError) =>
              this.log("warn", `An abort listener of tool "${toolName}" threw; ignored.`, { toolName, error: toError(listenerError) }),
            );
            const call = this.callOriginal(state, toolInput, attemptSignal, config);
            if (inFlight !== undefined) inFlight.call = call;
            return call;
          },
          parentSignal === undefined ? undefined : signal,
        );
      } catch (error) {
        if (error instanceof TaskCancelledError && parentSignal?.aborted !== true) {
          throw new ToolTimeoutError({ toolName, timeoutMs: policy.timeoutMs, cause: error });
        }
        throw error;
      }
    };
    const limited = async (signal: AbortSignal): Promise<unknown> => {
      const bulkhead = state.bulkhead;
      const limits = policy.bulkhead;
      if (bulkhead === undefined || limits === undefined) return timed(signal);
      const toTyped = (error: unknown): unknown =>
        error instanceof CockatielBulkheadRejectedError
          ? new BulkheadRejectedError({ toolName, maxConcurrent: limits.maxConcurrent, maxQueued: limits.maxQueued, cause: error })
          : error;
      if (limits.releaseOnTimeout || state.timeout === undefined) {
        try {
          return await bulkhead.execute(({ signal: inner }) => timed(inner), signal);
        } catch (error) {
          throw toTyped(error);
        }
      }
      // The slot is held until the tool itself settles, even after the caller got its timeout
      // answer; the caller's promise is therefore settled from inside the bulkhead task.
      return new Promise<unknown>((resolve, reject) => {
        let gaveUp = false;
        let queueTimer: ReturnType<typeof setTimeout> | undefined;
        if (bulkhead.executionSlots === 0 && bulkhead.queueSlots > 0) {
          // Queued behind calls that may never settle: wait at most timeoutMs for a slot.
          queueTimer = setTimeout(() => {
            gaveUp = true;
            reject(
              new ToolTimeoutError({
                toolName,
                timeoutMs: policy.timeoutMs,
                message: `Tool "${toolName}" waited ${policy.timeoutMs} ms for a free bulkhead slot (${limits.maxConcurrent} busy) and was not started.`,
              }),
            );
          }, policy.timeoutMs);
        }
        bulkhead
          .execute(async ({ signal: inner }) => {
            if (queueTimer !== undefined) clearTimeout(queueTimer);
            if (gaveUp) return;
            const inFlight: { call?: Promise<unknown> } = {};
            try {
              resolve(await timed(inner, inFlight));
            } catch (error) {
              reject(error);
              if (inFlight.call !== undefined) await inFlight.call.then(ignore, ignore);
            }
          }, signal)
          .catch((error: unknown) => {
            if (queueTimer !== undefined) clearTimeout(queueTimer);
            reject(toTyped(error));
          });
      });
    };
    const guarded = async (signal: AbortSignal): Promise<unknown> => {
      if (state.breaker === undefined) return limited(signal);
      this.lastRunIdOfTool.set(toolName, attemptState.runId);
      try {
        return await state.breaker.execute(({ signal: inner }) => limited(inner), signal);
      } catch (error) {
        if (error instanceof BrokenCircuitError) {
          // cockatiel's lastFailure is `{ error }` or `{ value }`: report the failure itself as the cause.
          const last = state.breaker.lastFailure as { error?: unknown } | undefined;
          throw new CircuitOpenError({ toolName, cause: last !== undefined && "error" in last ? last.error : error });
        }
        throw error;
      }
    };
    const attempt = async (signal: AbortSignal): Promise<unknown> => {
      try {
        return await guarded(signal);
      } catch (thrown) {
        const error = isKnownFailure(thrown) ? (thrown as Error) : new ToolExecutionError({ toolName, cause: toError(thrown) });
        attemptState.lastError = error;
        this.callOfError.set(error, attemptState);
        throw error;
      }
    };
    const retried = async (signal: AbortSignal): Promise<unknown> =>
      state.retry === undefined ? attempt(signal) : state.retry.execute(({ signal: inner }) => attempt(inner), signal);

    const neverAborted = parentSignal ?? NEVER_ABORTED;
    if (policy.fallback === undefined) {
      try {
        const value = await retried(neverAborted);
        return this.success(state, toolInput, value, attemptState.runId);
      } catch (thrown) {
        return this.failure(state, attemptState.lastError ?? toError(thrown), attemptState.attempts);
      }
    }
    const fallbackPolicy = createFallback(
      // Not for input errors: the model must learn its input was invalid, not get a stand-in answer.
      handleWhen((error) => parentSignal?.aborted !== true && !ToolValidationError.isInstance(error)),
      () => FALLBACK_SIGNAL,
    );
    let value: unknown;
    try {
      value = await fallbackPolicy.execute(() => retried(neverAborted));
    } catch (thrown) {
      return this.failure(state, attemptState.lastError ?? toError(thrown), attemptState.attempts);
    }
    if (value !== FALLBACK_SIGNAL) return this.success(state, toolInput, value, attemptState.runId);
    const cause = attemptState.lastError ?? new ToolExecutionError({ toolName, cause: new Error("unknown failure") });
    return this.runFallback(state, policy.fallback, toolInput, cause, attemptState.attempts, config);
  }

  private async runFallback(
    state: ToolState,
    fallback: NonNullable<ResolvedToolPolicy["fallback"]>,
    toolInput: unknown,
    cause: Error,
    attempts: number,
    config: RunnableConfig,
  ): Promise<CallResult> {
    const toolName = state.name;
    const runId = this.runIdOfConfig.get(config);
    const context = { toolName, toolInput, ...(runId !== undefined ? { runId } : {}) };
    try {
      if (typeof fallback === "string") return { observation: ensureReadableObservation(fallback, toolName), outcome: "fallback", error: cause };
      if (typeof fallback === "function") {
        const value = await fallback(cause, toolInput);
        return { observation: this.format(value, context), outcome: "fallback", error: cause, artifact: value };
      }
      if ("message" in fallback) return { observation: ensureReadableObservation(fallback.message, toolName), outcome: "fallback", error: cause };
      if ("value" in fallback) return { observation: this.format(fallback.value, context), outcome: "fallback", error: cause, artifact: fallback.value };
      const backup = this.states.get(fallback.tool);
      if (backup === undefined || backup === state || backup.policy.sideEffects) {
        const error = new ToolExecutorOptionsError({
          field: `policies.${toolName}.fallback.tool`,
          value: fallback.tool,
          reason:
            backup !== undefined && backup !== state
              ? `"${fallback.tool}" has sideEffects: a fallback call would skip its dry run, confirmation and idempotency key`
              : `no other tool named "${fallback.tool}" is wrapped by this executor (wrapped: ${[...this.states.keys()].join(", ")})`,
        });
        this.log("error", error.message, { toolName, error });
        return this.failure(state, cause, attempts);
      }
      const backupResult = await this.runResilientWithoutFallback(backup, toolInput, config);
      if (backupResult.outcome !== "success") {
        return { observation: MODEL_MESSAGES.fallbackToolFailed(toolName, backup.name), outcome: outcomeOf(cause), error: cause };
      }
      return {
        observation: MODEL_MESSAGES.fallbackUsed(toolName, backup.name, backupResult.observation),
        outcome: "fallback",
        error: cause,
        artifact: backupResult.artifact,
      };
    } catch (fallbackError) {
      this.log("warn", `Fallback of tool "${toolName}" threw.`, { toolName, error: toError(fallbackError), cause });
      return this.failure(state, cause, attempts);
    }
  }

  private async runResilientWithoutFallback(state: ToolState, toolInput: unknown, config: RunnableConfig): Promise<CallResult> {
    const withoutFallback: ToolState = { ...state, policy: { ...state.policy, fallback: undefined } };
    return this.runResilient(withoutFallback, toolInput, config);
  }

  private success(state: ToolState, toolInput: unknown, value: unknown, runId: string | undefined): CallResult {
    const context = { toolName: state.name, toolInput, ...(runId !== undefined ? { runId } : {}) };
    if (isContentAndArtifact(value)) {
      return { observation: this.format(value.content, context), outcome: "success", raw: value.content, artifact: value.artifact };
    }
    if (isDirectToolOutput(value)) return { observation: "", outcome: "success", direct: value, raw: value, artifact: value };
    return { observation: this.format(value, context), outcome: "success", raw: value, artifact: value };
  }

  private failure(state: ToolState, error: Error, attempts: number): CallResult {
    return { observation: failureObservation(state.name, error, attempts, state.policy.circuitBreaker?.halfOpenAfterMs ?? 0), outcome: outcomeOf(error), error };
  }

  /** Calls the original tool once and checks its result; throws typed errors. */
  private async callOriginal(state: ToolState, toolInput: unknown, signal: AbortSignal, config: RunnableConfig): Promise<unknown> {
    const toolName = state.name;
    const innerConfig: RunnableConfig = {
      signal,
      callbacks: config.callbacks,
      tags: config.tags,
      metadata: config.metadata,
      configurable: config.configurable,
      runName: config.runName,
    };
    let value: unknown;
    try {
      if (state.directFunc !== undefined) value = await state.directFunc(toolInput as string, undefined, innerConfig);
      else if (state.contentAndArtifact) {
        // Called with a ToolCall so LangChain returns a ToolMessage carrying the artifact.
        const toolCall = { id: INNER_TOOL_CALL_ID, name: toolName, args: state.kind === "string" ? { input: toolInput } : toolInput, type: "tool_call" };
        value = await state.original.invoke(toolCall as never, innerConfig);
      } else value = await state.original.invoke(toolInput as never, innerConfig);
    } catch (thrown) {
      if (thrown instanceof ToolInputParsingException) {
        throw new ToolValidationError({ toolName, issues: [{ path: "", message: thrown.message }], toolInput, cause: thrown });
      }
      throw new ToolExecutionError({ toolName, cause: toError(thrown) });
    }
    if (value instanceof Error) throw new ToolExecutionError({ toolName, cause: value });
    if (state.contentAndArtifact && isRecord(value) && value.tool_call_id === INNER_TOOL_CALL_ID) {
      const unwrapped: ContentAndArtifact = { [CONTENT_AND_ARTIFACT]: true, content: value.content, artifact: value.artifact };
      const failure = await this.checkResult(state, toolInput, unwrapped.content);
      if (failure !== undefined) throw new ToolResultCheckError({ toolName, label: failure.label, detail: failure.detail, status: failure.status });
      return unwrapped;
    }
    if (isDirectToolOutput(value)) return value;
    const failure = await this.checkResult(state, toolInput, value);
    if (failure !== undefined) {
      throw new ToolResultCheckError({ toolName, label: failure.label, detail: failure.detail, status: failure.status });
    }
    return value;
  }

  private async checkResult(state: ToolState, toolInput: unknown, value: unknown): Promise<ResultCheckFailure | undefined> {
    const { policy, name: toolName } = state;
    if (policy.resultChecks !== undefined) {
      const failure = checkResultShape(value, policy.resultChecks);
      if (failure !== undefined) return failure;
    }
    if (policy.checkResult === undefined) return undefined;
    const verdict = await policy.checkResult(value, { toolName, toolInput });
    if (verdict === undefined || verdict === null || verdict === true) return undefined;
    if (verdict === false) return { label: "check_failed", detail: "checkResult rejected the result" };
    if (typeof verdict === "string") return { label: "check_failed", detail: verdict };
    const failure = verdict as Partial<ResultCheckFailure>;
    return {
      label: typeof failure.label === "string" && failure.label !== "" ? failure.label : "check_failed",
      detail: typeof failure.detail === "string" && failure.detail !== "" ? failure.detail : "checkResult rejected the result",
      status: typeof failure.status === "number" ? failure.status : undefined,
    };
  }

  private format(value: unknown, context: { toolName: string; toolInput: unknown; runId?: string }): string {
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

  /** Finds the run of a call: a registered run in the store, else the tool run's parent run. */
  /** Dry run, token and approve for a side-effect call: `undefined` when the call goes ahead. */
  private async gateSideEffectCall(
    state: ToolState,
    toolInput: unknown,
    confirmation: Pick<PreparedToolInput, "confirmation" | "confirmationInput">,
    run: RunHandle,
  ): Promise<CallResult | undefined> {
    const { policy, name: toolName } = state;
    const decision = await decideSideEffectCall({
      toolName,
      toolInput,
      confirmation: confirmation.confirmation,
      rawInput: confirmation.confirmationInput,
      confirmWhen: policy.confirmWhen,
      approve: policy.approve,
      runKey: run.slot ?? this,
      runId: run.runId,
    });
    if (decision.proceed) return undefined;
    if (decision.reason === "not_approved") {
      if (decision.error !== undefined) this.log("warn", `approve threw for tool "${toolName}"; the call was refused.`, { toolName, error: decision.error });
      return { observation: MODEL_MESSAGES.notApproved(toolName), outcome: "rejected", error: new SideEffectNotApprovedError({ toolName, runId: run.runId, ...(decision.error !== undefined ? { cause: decision.error } : {}) }) };
    }
    const inputText = previewText(toolInput);
    const custom = policy.preview?.(toolInput, { toolName });
    const observation =
      custom !== undefined
        ? `${custom}\n${policy.confirmWhen === undefined ? MODEL_MESSAGES.confirmationHint(toolName, decision.token) : ""}`.trim()
        : policy.confirmWhen !== undefined
          ? MODEL_MESSAGES.dryRunConfirmWhen(toolName, inputText)
          : state.kind === "object"
            ? MODEL_MESSAGES.dryRunObject(toolName, inputText, decision.token)
            : MODEL_MESSAGES.dryRunString(toolName, inputText, decision.token);
    return { observation: ensureReadableObservation(observation, toolName), outcome: "dry_run" };
  }

  private findRun(runManager: CallbackManagerForToolRun | undefined, config: RunnableConfig): RunHandle {
    const ids = [...runIdsFrom(runManager), ...runIdsFrom(config)];
    const store = this.options.runContext;
    if (store !== undefined) {
      for (const id of ids) {
        const context = store.contextOf(id);
        if (context !== undefined) {
          let slot = context.slots.get(this.slotKey) as RunSlot | undefined;
          if (slot === undefined) {
            slot = { callCounts: new Map(), idempotency: new Map() };
            context.slots.set(this.slotKey, slot);
          }
          return { runId: context.runId, context, slot };
        }
      }
    }
    const parentRunId = runManager?.parentRunId ?? ids[1];
    if (parentRunId === undefined) return { runId: undefined, context: undefined, slot: undefined };
    let slot = this.trackedRuns.get(parentRunId);
    if (slot === undefined) {
      slot = { callCounts: new Map(), idempotency: new Map() };
      this.trackedRuns.set(parentRunId, slot);
      while (this.trackedRuns.size > this.options.maxTrackedRuns) {
        const oldest = this.trackedRuns.keys().next().value;
        if (oldest === undefined) break;
        this.trackedRuns.delete(oldest);
      }
    }
    return { runId: parentRunId, context: undefined, slot };
  }

  private drainNotes(run: RunHandle): string | undefined {
    const notes = run.context?.loop.pendingNotes;
    if (notes === undefined || notes.length === 0) return undefined;
    const drained = notes.splice(0, notes.length).filter((note) => typeof note === "string" && note.trim() !== "");
    return drained.length === 0 ? undefined : drained.join("\n");
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

  /** The run of the call a retry belongs to, as an event field. */
  private callOfRetry(event: object): { runId: string } | undefined {
    const error = (event as { error?: unknown }).error;
    const runId = error instanceof Error ? this.callOfError.get(error)?.runId : undefined;
    return runId === undefined ? undefined : { runId };
  }

  private emit(event: Parameters<typeof emitEvent>[0]): void {
    emitEvent(event, [this.options.metrics, this.options.onEvent], (error) =>
      this.log("warn", "An event recorder or listener threw; the event was dropped for it.", { error: toError(error), eventType: event.type }),
    );
  }

  private log(level: keyof ToolExecutorLogger, message: string, fields?: Record<string, unknown>): void {
    try {
      this.options.logger[level]?.(message, fields);
    } catch {
      // A broken logger must never break a tool call.
    }
  }
}

function ignore(): void {
  // Settlement of an abandoned call is awaited only to free its bulkhead slot.
}

function generatorOf(jitter: string): IExponentialBackoffOptions<unknown>["generator"] {
  if (jitter === "none") return noJitterGenerator as IExponentialBackoffOptions<unknown>["generator"];
  if (jitter === "full") return fullJitterGenerator as IExponentialBackoffOptions<unknown>["generator"];
  return decorrelatedJitterGenerator as IExponentialBackoffOptions<unknown>["generator"];
}

/**
 * The function of a plain `DynamicTool` (the class `tool()` builds for string input), when calling
 * it directly is exactly what `invoke()` would end up doing: no callbacks or default config on the
 * tool, plain content responses, `_call` not overridden. Skipping LangChain's second round of
 * config merging, schema parsing and callback setup saves about 10 µs per call; the executor has
 * already done that work for the wrapper. Any other tool goes through `invoke()`.
 */
function directFuncOf(tool: StructuredToolInterface): DynamicTool["func"] | undefined {
  if (!(tool instanceof DynamicTool)) return undefined;
  if (Object.getPrototypeOf(tool) !== DynamicTool.prototype) return undefined;
  const fields = tool as unknown as Record<string, unknown>;
  if (fields.callbacks !== undefined || fields.defaultConfig !== undefined || fields.verbose === true) return undefined;
  if (tool.responseFormat !== undefined && tool.responseFormat !== "content") return undefined;
  if (typeof tool.func !== "function") return undefined;
  return tool.func.bind(tool);
}
