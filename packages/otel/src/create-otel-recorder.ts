import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  metrics,
  trace,
  type Attributes,
  type Histogram,
  type MeterProvider,
  type Span,
  type TracerProvider,
} from "@opentelemetry/api";
import type { ReinsEvent, ReinsEventRecorder, ToolCallEvent, ToolCallOutcome } from "@reins/core";
import { OtelEventError, OtelRecorderOptionsError } from "./errors";
import {
  ERROR_TYPE_OTHER,
  GEN_AI_ATTRIBUTES as GA,
  GEN_AI_METRICS,
  GEN_AI_OPERATIONS,
  REINS_ATTRIBUTES as RA,
  REINS_SPAN_EVENTS,
} from "./gen-ai-names";

/** Options of {@link createOtelRecorder}. */
export interface OtelRecorderOptions {
  /**
   * Where the histograms go.
   * @default the global meter provider (`metrics.getMeterProvider()` of `@opentelemetry/api`)
   */
  meterProvider?: MeterProvider;
  /**
   * Where the spans go.
   * @default the global tracer provider (`trace.getTracerProvider()` of `@opentelemetry/api`)
   */
  tracerProvider?: TracerProvider;
  /**
   * Record content: the run's input and answer (`gen_ai.input.messages`, `gen_ai.output.messages`),
   * tool arguments and results (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) and the
   * rejected model reply of a parser error. Off by default, as the GenAI conventions require
   * (content is opt-in: it may hold personal data). When on, the recorder's `captureContent` is
   * true and Reins pieces put content in their events.
   * @default false
   */
  captureContent?: boolean;
  /**
   * `gen_ai.agent.name`, and the `{name}` of the `invoke_agent {name}` span.
   * @default "reins_react_agent"
   */
  agentName?: string;
  /**
   * `gen_ai.provider.name` on model metrics (`openai`, `anthropic`, …); omitted when not given.
   * @default undefined
   */
  providerName?: string;
  /**
   * `gen_ai.request.model` on model metrics; omitted when not given.
   * @default undefined
   */
  requestModel?: string;
  /**
   * How many distinct tool names become the `gen_ai.tool.name` metric attribute; later ones are
   * recorded as `_OTHER` (spans always carry the real name). Bounds metric cardinality.
   * @default 50
   */
  maxToolNames?: number;
  /**
   * How many runs may have an open `invoke_agent` span at once. A run past this (one that never
   * sent `run_end`) is ended, oldest first, with `error.type` `reins.run_abandoned`.
   * @default 1000
   */
  maxOpenRuns?: number;
  /**
   * Clock in epoch milliseconds (span start and end times).
   * @default Date.now
   */
  now?: () => number;
}

/** Defaults of {@link OtelRecorderOptions}. */
export const DEFAULT_OTEL_RECORDER_OPTIONS = Object.freeze({
  captureContent: false,
  agentName: "reins_react_agent",
  maxToolNames: 50,
  maxOpenRuns: 1000,
});

/** Explicit bucket boundaries the GenAI conventions give for `_duration` histograms, in seconds. */
export const GEN_AI_DURATION_BUCKETS_SECONDS = Object.freeze([
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
]);

/** Explicit bucket boundaries the GenAI conventions give for `gen_ai.client.token.usage`. */
export const GEN_AI_TOKEN_BUCKETS = Object.freeze([
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
]);

/** A {@link ReinsEventRecorder} that writes OpenTelemetry GenAI metrics and spans. */
export interface OtelRecorder extends ReinsEventRecorder {
  /** True when content is recorded (see {@link OtelRecorderOptions.captureContent}). */
  readonly captureContent: boolean;
  /** Runs whose `invoke_agent` span is open (started, not ended). */
  readonly openRuns: number;
  /**
   * Records one Reins event. Never throws for a well-formed event; an event type it does not know
   * (from a newer `@reins/core`) is ignored, and a per-step event whose run has no open span still
   * counts in the metrics but adds no span event.
   * @throws {OtelEventError} when `event` is not an object with a string `type`
   */
  record(event: ReinsEvent): void;
  /**
   * Ends every open `invoke_agent` span (status error, `error.type` `reins.run_abandoned`), e.g.
   * before the process exits. Call the providers' own `shutdown()` afterwards to flush them.
   */
  endOpenRuns(): void;
}

interface PendingRetry {
  readonly attributes: Attributes;
  readonly atMs: number;
}

interface OpenRun {
  readonly span: Span;
  readonly startedAtMs: number;
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
  parserRepairs: number;
  loopDetections: number;
  /** Retries seen per tool, attached as span events to that tool's `execute_tool` span. */
  readonly pendingRetries: Map<string, PendingRetry[]>;
}

/** Outcomes of a tool call that ended in an error (the fallback filled in for one). */
const FAILED_OUTCOMES: ReadonlySet<ToolCallOutcome> = new Set<ToolCallOutcome>([
  "error",
  "timeout",
  "circuit_open",
  "rejected",
  "invalid_input",
  "fallback",
]);

/** At most this many retries wait per tool per run for their span (a runaway loop stays bounded). */
const MAX_PENDING_RETRIES = 32;
const ABANDONED = "reins.run_abandoned";

function checkPositiveInteger(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new OtelRecorderOptionsError({ field, value, reason: "expected an integer ≥ 1" });
  }
  return value;
}

function checkOptionalString(field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw new OtelRecorderOptionsError({ field, value, reason: "expected a non-empty string" });
  return value;
}

function nonNegative(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Tool arguments as the conventions want them: a JSON string (a plain string stays as it is). */
function argumentsText(toolInput: unknown): string {
  if (typeof toolInput === "string") return toolInput;
  try {
    return JSON.stringify(toolInput) ?? String(toolInput);
  } catch {
    return String(toolInput);
  }
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : argumentsText(value);
}

/** The low-cardinality `error.type` of a failed call: the typed error's name, else the outcome. */
function errorTypeOf(event: ToolCallEvent): string {
  const name = event.error?.name;
  if (typeof name === "string" && /^[A-Za-z_][A-Za-z0-9_.]{0,63}$/.test(name) && name !== "Error") return name;
  return event.outcome === "fallback" || event.outcome === "error" ? ERROR_TYPE_OTHER : event.outcome;
}

/**
 * Creates a recorder that turns Reins events into OpenTelemetry GenAI telemetry. Pass it as the
 * `metrics` option of any Reins piece (alone, or beside `createAgentMetrics()` through `onEvent`).
 *
 * Metrics (histograms, names and bucket boundaries from the GenAI conventions):
 * - `gen_ai.invoke_agent.duration` (s): one per run; `gen_ai.agent.name`, `reins.stop_reason`,
 *   `error.type` when the run ended in an error.
 * - `gen_ai.execute_tool.duration` (s): one per tool call; `gen_ai.tool.name` (bounded by
 *   `maxToolNames`), `reins.tool.outcome`, `error.type` when the call failed.
 * - `gen_ai.client.operation.duration` (s): one per model call (`gen_ai.operation.name` `chat`).
 * - `gen_ai.client.token.usage` (`{token}`): per model call, `gen_ai.token.type` `input`/`output`;
 *   `reins.tokens.estimated` is true when the provider reported none and Reins counted them.
 *
 * Spans: `invoke_agent {agentName}` from `run_start` to `run_end` (a child of the span active at
 * `run_start`), with `gen_ai.usage.*` token sums, `reins.stop_reason`, `reins.run.status`, and one
 * child `execute_tool {tool}` span per tool call (INTERNAL, timed from the call's duration) with
 * `gen_ai.tool.name`, `reins.tool.outcome` and, on failure, `error.type` and an error status.
 * Reins' own facts are span events: `reins.parser_repair`, `reins.parser_error`,
 * `reins.loop_detection`, `reins.circuit_state`, `reins.observation_cleaned` on the run span, and
 * `reins.tool_retry` on the retried call's span.
 *
 * Content (inputs, answers, tool arguments and results) is recorded only with `captureContent`.
 *
 * @param options - see {@link OtelRecorderOptions}
 * @returns the recorder
 * @throws {OtelRecorderOptionsError} when an option is invalid; `field` names it
 * @example
 * ```ts
 * import { createOtelRecorder } from "@reins/otel";
 * import { createReactAgent } from "@reins/react-agent";
 *
 * // Uses the global providers your OpenTelemetry SDK set up (NodeSDK, or your own registration).
 * const otel = createOtelRecorder({ providerName: "openai", requestModel: "gpt-4o-mini" });
 * const agent = await createReactAgent({ llm, tools, prompt, metrics: otel });
 * ```
 */
export function createOtelRecorder(options: OtelRecorderOptions = {}): OtelRecorder {
  if (typeof options !== "object" || options === null) throw new OtelRecorderOptionsError({ field: "options", value: options, reason: "expected an object" });
  const meterProvider = options.meterProvider ?? metrics.getMeterProvider();
  if (typeof meterProvider?.getMeter !== "function") {
    throw new OtelRecorderOptionsError({ field: "meterProvider", value: meterProvider, reason: "expected an OpenTelemetry MeterProvider (with getMeter)" });
  }
  const tracerProvider = options.tracerProvider ?? trace.getTracerProvider();
  if (typeof tracerProvider?.getTracer !== "function") {
    throw new OtelRecorderOptionsError({ field: "tracerProvider", value: tracerProvider, reason: "expected an OpenTelemetry TracerProvider (with getTracer)" });
  }
  const captureContent = options.captureContent ?? DEFAULT_OTEL_RECORDER_OPTIONS.captureContent;
  if (typeof captureContent !== "boolean") throw new OtelRecorderOptionsError({ field: "captureContent", value: captureContent, reason: "expected a boolean" });
  const agentName = checkOptionalString("agentName", options.agentName) ?? DEFAULT_OTEL_RECORDER_OPTIONS.agentName;
  const providerName = checkOptionalString("providerName", options.providerName);
  const requestModel = checkOptionalString("requestModel", options.requestModel);
  const maxToolNames = checkPositiveInteger("maxToolNames", options.maxToolNames ?? DEFAULT_OTEL_RECORDER_OPTIONS.maxToolNames);
  const maxOpenRuns = checkPositiveInteger("maxOpenRuns", options.maxOpenRuns ?? DEFAULT_OTEL_RECORDER_OPTIONS.maxOpenRuns);
  const now = options.now ?? Date.now;
  if (typeof now !== "function") throw new OtelRecorderOptionsError({ field: "now", value: now, reason: "expected a function returning epoch milliseconds" });

  const scope = "@reins/otel";
  const meter = meterProvider.getMeter(scope);
  const tracer = tracerProvider.getTracer(scope);
  const durationHistogram = (name: string, description: string): Histogram =>
    meter.createHistogram(name, { unit: "s", description, advice: { explicitBucketBoundaries: [...GEN_AI_DURATION_BUCKETS_SECONDS] } });
  const invokeAgentDuration = durationHistogram(GEN_AI_METRICS.invokeAgentDuration, "Duration of one agent run (one top-level AgentExecutor invocation).");
  const executeToolDuration = durationHistogram(GEN_AI_METRICS.executeToolDuration, "Duration of one tool call, retries included.");
  const operationDuration = durationHistogram(GEN_AI_METRICS.operationDuration, "GenAI operation duration (one model call).");
  const tokenUsage = meter.createHistogram(GEN_AI_METRICS.tokenUsage, {
    unit: "{token}",
    description: "Number of input and output tokens used.",
    advice: { explicitBucketBoundaries: [...GEN_AI_TOKEN_BUCKETS] },
  });

  const modelAttributes: Attributes = {
    [GA.operationName]: GEN_AI_OPERATIONS.chat,
    ...(providerName !== undefined ? { [GA.providerName]: providerName } : {}),
    ...(requestModel !== undefined ? { [GA.requestModel]: requestModel } : {}),
  };
  const toolNames = new Set<string>();
  const toolMetricName = (toolName: string): string => {
    if (toolNames.has(toolName)) return toolName;
    if (toolNames.size < maxToolNames && typeof toolName === "string" && toolName.length > 0 && toolName.length <= 64) {
      toolNames.add(toolName);
      return toolName;
    }
    return ERROR_TYPE_OTHER;
  };

  // Insertion order is start order: the first entry is the oldest open run.
  const runs = new Map<string, OpenRun>();

  const endRun = (runId: string, run: OpenRun, endMs: number): void => {
    runs.delete(runId);
    run.span.setAttributes({
      [GA.usageInputTokens]: run.inputTokens,
      [GA.usageOutputTokens]: run.outputTokens,
      [RA.toolCalls]: run.toolCalls,
      [RA.parserRepairs]: run.parserRepairs,
      [RA.loopDetections]: run.loopDetections,
    });
    run.span.end(endMs);
  };

  const abandon = (runId: string, run: OpenRun): void => {
    run.span.setAttribute(GA.errorType, ABANDONED);
    run.span.setStatus({ code: SpanStatusCode.ERROR, message: "The run sent no run_end before its span had to be closed." });
    endRun(runId, run, now());
  };

  const startRun = (runId: string, startedAtMs: number, input: unknown): OpenRun => {
    while (runs.size >= maxOpenRuns) {
      const [oldestId, oldest] = runs.entries().next().value as [string, OpenRun];
      abandon(oldestId, oldest);
    }
    const span = tracer.startSpan(
      `${GEN_AI_OPERATIONS.invokeAgent} ${agentName}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: startedAtMs,
        attributes: {
          [GA.operationName]: GEN_AI_OPERATIONS.invokeAgent,
          [GA.agentName]: agentName,
          [RA.runId]: runId,
          ...(captureContent && input !== undefined
            ? { [GA.inputMessages]: JSON.stringify([{ role: "user", parts: [{ type: "text", content: textOf(input) }] }]) }
            : {}),
        },
      },
      context.active(),
    );
    const run: OpenRun = { span, startedAtMs, inputTokens: 0, outputTokens: 0, toolCalls: 0, parserRepairs: 0, loopDetections: 0, pendingRetries: new Map() };
    runs.set(runId, run);
    return run;
  };

  const runOf = (runId: string | undefined): OpenRun | undefined => (runId === undefined ? undefined : runs.get(runId));

  const recordToolCall = (event: ToolCallEvent): void => {
    const endMs = now();
    const durationMs = nonNegative(event.durationMs) ?? 0;
    const failed = FAILED_OUTCOMES.has(event.outcome);
    const errorType = failed ? errorTypeOf(event) : undefined;
    executeToolDuration.record(durationMs / 1000, {
      [GA.operationName]: GEN_AI_OPERATIONS.executeTool,
      [GA.toolName]: toolMetricName(event.toolName),
      [RA.toolOutcome]: event.outcome,
      ...(errorType !== undefined ? { [GA.errorType]: errorType } : {}),
    });
    const run = runOf(event.runId);
    if (run !== undefined) run.toolCalls += 1;
    const parent = run === undefined ? context.active() : trace.setSpan(ROOT_CONTEXT, run.span);
    const span = tracer.startSpan(
      `${GEN_AI_OPERATIONS.executeTool} ${event.toolName}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: endMs - durationMs,
        attributes: {
          [GA.operationName]: GEN_AI_OPERATIONS.executeTool,
          [GA.toolName]: event.toolName,
          [GA.toolType]: "function",
          [RA.toolOutcome]: event.outcome,
          ...(event.runId !== undefined ? { [RA.runId]: event.runId } : {}),
          ...(errorType !== undefined ? { [GA.errorType]: errorType } : {}),
          ...(captureContent && event.toolInput !== undefined ? { [GA.toolCallArguments]: argumentsText(event.toolInput) } : {}),
          ...(captureContent && event.observation !== undefined ? { [GA.toolCallResult]: event.observation } : {}),
        },
      },
      parent,
    );
    const retries = run?.pendingRetries.get(event.toolName);
    if (retries !== undefined) {
      run?.pendingRetries.delete(event.toolName);
      span.setAttribute(RA.toolRetries, retries.length);
      for (const retry of retries) span.addEvent(REINS_SPAN_EVENTS.toolRetry, retry.attributes, retry.atMs);
    }
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: event.error?.message ?? `The tool call ended as ${event.outcome}.` });
    span.end(endMs);
  };

  const record = (event: ReinsEvent): void => {
    if (typeof event !== "object" || event === null || typeof (event as { type?: unknown }).type !== "string") {
      throw new OtelEventError({ event });
    }
    switch (event.type) {
      case "run_start": {
        const existing = runs.get(event.runId);
        if (existing !== undefined) abandon(event.runId, existing);
        startRun(event.runId, now(), event.input);
        return;
      }
      case "run_end": {
        const endMs = now();
        const durationMs = nonNegative(event.durationMs);
        const run = runs.get(event.runId) ?? startRun(event.runId, endMs - (durationMs ?? 0), undefined);
        const errorType = event.status === "error" ? ERROR_TYPE_OTHER : undefined;
        invokeAgentDuration.record((durationMs ?? endMs - run.startedAtMs) / 1000, {
          [GA.operationName]: GEN_AI_OPERATIONS.invokeAgent,
          [GA.agentName]: agentName,
          [RA.stopReason]: event.stopReason,
          ...(errorType !== undefined ? { [GA.errorType]: errorType } : {}),
        });
        run.span.setAttributes({ [RA.stopReason]: event.stopReason, [RA.runStatus]: event.status });
        run.span.addEvent(REINS_SPAN_EVENTS.stop, { [RA.stopReason]: event.stopReason, [RA.runStatus]: event.status }, endMs);
        if (captureContent && event.output !== undefined) {
          run.span.setAttribute(
            GA.outputMessages,
            JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: event.output }], finish_reason: event.stopReason === "final_answer" ? "stop" : event.stopReason }]),
          );
        }
        if (errorType !== undefined) {
          run.span.setAttribute(GA.errorType, errorType);
          run.span.setStatus({ code: SpanStatusCode.ERROR, message: `The run ended in an error (stop reason ${event.stopReason}).` });
        }
        endRun(event.runId, run, endMs);
        return;
      }
      case "tool_call":
        recordToolCall(event);
        return;
      case "tool_retry": {
        const run = runOf(event.runId);
        if (run === undefined) return;
        const retries = run.pendingRetries.get(event.toolName) ?? [];
        if (retries.length >= MAX_PENDING_RETRIES) return;
        retries.push({
          atMs: now(),
          attributes: {
            [GA.toolName]: event.toolName,
            [RA.toolAttempt]: event.attempt,
            [RA.retryDelayMs]: nonNegative(event.delayMs) ?? 0,
            ...(event.error !== undefined ? { [GA.errorType]: event.error.name || ERROR_TYPE_OTHER } : {}),
          },
        });
        run.pendingRetries.set(event.toolName, retries);
        return;
      }
      case "step_duration": {
        if (event.phase !== "llm") return;
        const durationMs = nonNegative(event.durationMs);
        if (durationMs !== undefined) operationDuration.record(durationMs / 1000, modelAttributes);
        return;
      }
      case "token_usage": {
        const inputTokens = nonNegative(event.inputTokens);
        const outputTokens = nonNegative(event.outputTokens);
        const estimated = { [RA.tokensEstimated]: event.estimated === true };
        if (inputTokens !== undefined) tokenUsage.record(inputTokens, { ...modelAttributes, ...estimated, [GA.tokenType]: "input" });
        if (outputTokens !== undefined) tokenUsage.record(outputTokens, { ...modelAttributes, ...estimated, [GA.tokenType]: "output" });
        const run = runOf(event.runId);
        if (run !== undefined) {
          run.inputTokens += inputTokens ?? 0;
          run.outputTokens += outputTokens ?? 0;
        }
        return;
      }
      case "parser_repair": {
        const run = runOf(event.runId);
        if (run === undefined) return;
        run.parserRepairs += 1;
        run.span.addEvent(REINS_SPAN_EVENTS.parserRepair, { [RA.parserRepair]: event.repair }, now());
        return;
      }
      case "parser_error":
        runOf(event.runId)?.span.addEvent(
          REINS_SPAN_EVENTS.parserError,
          {
            [RA.parserErrorReason]: event.reason,
            ...(captureContent ? { [RA.parserObservation]: event.message } : {}),
            ...(captureContent && event.llmOutput !== undefined ? { [RA.parserLlmOutput]: event.llmOutput } : {}),
          },
          now(),
        );
        return;
      case "loop_detection": {
        const run = runOf(event.runId);
        if (run === undefined) return;
        run.loopDetections += 1;
        run.span.addEvent(REINS_SPAN_EVENTS.loopDetection, { [RA.loopKind]: event.kind, [RA.loopLevel]: event.level }, now());
        return;
      }
      case "circuit_state":
        runOf(event.runId)?.span.addEvent(
          REINS_SPAN_EVENTS.circuitState,
          {
            [GA.toolName]: event.toolName,
            [RA.circuitState]: event.state,
            ...(event.halfOpenAfterMs !== undefined ? { [RA.halfOpenAfterMs]: event.halfOpenAfterMs } : {}),
          },
          now(),
        );
        return;
      case "observation_cleaned":
        runOf(event.runId)?.span.addEvent(
          REINS_SPAN_EVENTS.observationCleaned,
          {
            ...(event.toolName !== undefined ? { [GA.toolName]: event.toolName } : {}),
            [RA.observationRawChars]: event.rawChars,
            [RA.observationCleanChars]: event.cleanChars,
            [RA.observationTruncated]: event.truncated,
          },
          now(),
        );
        return;
      default:
        return;
    }
  };

  return Object.freeze({
    captureContent,
    get openRuns() {
      return runs.size;
    },
    record,
    endOpenRuns: () => {
      for (const [runId, run] of [...runs]) abandon(runId, run);
    },
  });
}
