import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  trace,
  type Attributes,
  type Histogram,
  type Span,
} from "@opentelemetry/api";
import type { ReinsEvent, ReinsEventRecorder, ToolCallEvent } from "@reins/core";
import { OtelEventError, type OtelRecorderOptionsError } from "./errors";
import { FAILED_OUTCOMES, argumentsText, errorTypeOf, nonNegative, textOf } from "./otel-values";
import {
  GEN_AI_DURATION_BUCKETS_SECONDS,
  GEN_AI_TOKEN_BUCKETS,
  resolveOtelRecorderOptions,
  type OtelRecorderOptions,
} from "./otel-recorder-options";
import {
  ERROR_TYPE_OTHER,
  GEN_AI_ATTRIBUTES as GA,
  GEN_AI_METRICS,
  GEN_AI_OPERATIONS,
  REINS_ATTRIBUTES as RA,
  REINS_SPAN_EVENTS,
} from "./gen-ai-names";

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

/** At most this many retries wait per tool per run for their span (a runaway loop stays bounded). */
const MAX_PENDING_RETRIES = 32;
const ABANDONED = "reins.run_abandoned";

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
  const { meterProvider, tracerProvider, captureContent, secretRedactor, agentName, providerName, requestModel, maxToolNames, maxOpenRuns, now } =
    resolveOtelRecorderOptions(options);
  /** Content as recorded: secrets redacted, their kinds collected for the span's redaction event. */
  const content = (text: string, kinds: string[]): string => {
    const redacted = secretRedactor.redactText(text);
    kinds.push(...redacted.kinds);
    return redacted.value;
  };
  const noteRedactions = (span: Span, kinds: readonly string[], timeMs: number): void => {
    if (kinds.length > 0) span.addEvent(REINS_SPAN_EVENTS.secretRedaction, { [RA.secretKinds]: [...new Set(kinds)], [RA.secretCount]: kinds.length }, timeMs);
  };

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
    const inputKinds: string[] = [];
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
            ? { [GA.inputMessages]: JSON.stringify([{ role: "user", parts: [{ type: "text", content: content(textOf(input), inputKinds) }] }]) }
            : {}),
        },
      },
      context.active(),
    );
    noteRedactions(span, inputKinds, startedAtMs);
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
    const kinds: string[] = [];
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
          ...(captureContent && event.toolInput !== undefined ? { [GA.toolCallArguments]: content(argumentsText(event.toolInput), kinds) } : {}),
          ...(captureContent && event.observation !== undefined ? { [GA.toolCallResult]: content(event.observation, kinds) } : {}),
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
    noteRedactions(span, kinds, endMs);
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
          const kinds: string[] = [];
          run.span.setAttribute(
            GA.outputMessages,
            JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: content(event.output, kinds) }], finish_reason: event.stopReason === "final_answer" ? "stop" : event.stopReason }]),
          );
          noteRedactions(run.span, kinds, endMs);
        }
        if (errorType !== undefined) {
          run.span.setAttribute(GA.errorType, errorType);
          run.span.setStatus({ code: SpanStatusCode.ERROR, message: `The run ended in an error (stop reason ${event.stopReason}).` });
        }
        endRun(event.runId, run, endMs);
        return;
      }
      case "tool_start":
        // The execute_tool span is built at the call's `tool_call` event, which carries its duration.
        return;
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
      case "parser_error": {
        const span = runOf(event.runId)?.span;
        const kinds: string[] = [];
        span?.addEvent(
          REINS_SPAN_EVENTS.parserError,
          {
            [RA.parserErrorReason]: event.reason,
            ...(captureContent ? { [RA.parserObservation]: content(event.message, kinds) } : {}),
            ...(captureContent && event.llmOutput !== undefined ? { [RA.parserLlmOutput]: content(event.llmOutput, kinds) } : {}),
          },
          now(),
        );
        if (span !== undefined) noteRedactions(span, kinds, now());
        return;
      }
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
