import { metrics, trace, type MeterProvider, type TracerProvider } from "@opentelemetry/api";
import { createOptionChecks, createSecretRedactor, type OptionChecks, type SecretRedactionOptions, type SecretRedactor } from "@reins/core";
import { OtelRecorderOptionsError } from "./errors";

/** Options of `createOtelRecorder`. */
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
   * With `captureContent`, secrets are redacted from every content attribute (provider API keys,
   * bearer tokens, credentials in URLs, cloud keys, JWTs, private keys; `createSecretRedactor` of
   * `@reins/core`), and the span gets a `reins.secret_redaction` event with the kinds and count.
   * `{ patterns }` adds patterns; `false` records secrets verbatim.
   * @default {} (the default patterns, on)
   */
  secretRedaction?: SecretRedactionOptions | false;
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

/** The options with every default applied. */
export interface ResolvedOtelRecorderOptions {
  readonly meterProvider: MeterProvider;
  readonly tracerProvider: TracerProvider;
  readonly captureContent: boolean;
  readonly secretRedactor: SecretRedactor;
  readonly agentName: string;
  readonly providerName: string | undefined;
  readonly requestModel: string | undefined;
  readonly maxToolNames: number;
  readonly maxOpenRuns: number;
  readonly now: () => number;
}

const check: OptionChecks = createOptionChecks((field, value, reason) => {
  throw new OtelRecorderOptionsError({ field, value, reason });
});

/**
 * Validates `options` and applies {@link DEFAULT_OTEL_RECORDER_OPTIONS} and the global providers.
 *
 * @param options - the caller's options
 * @returns every option set
 * @throws {OtelRecorderOptionsError} when an option is invalid; `field` names it
 */
export function resolveOtelRecorderOptions(options: OtelRecorderOptions): ResolvedOtelRecorderOptions {
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
  let secretRedactor: SecretRedactor;
  try {
    secretRedactor = createSecretRedactor(options.secretRedaction ?? {});
  } catch (error) {
    throw new OtelRecorderOptionsError({ field: "secretRedaction", value: options.secretRedaction, reason: error instanceof Error ? error.message : String(error), cause: error });
  }
  const agentName = check.optionalString("agentName", options.agentName) ?? DEFAULT_OTEL_RECORDER_OPTIONS.agentName;
  const providerName = check.optionalString("providerName", options.providerName);
  const requestModel = check.optionalString("requestModel", options.requestModel);
  const maxToolNames = check.integer("maxToolNames", options.maxToolNames ?? DEFAULT_OTEL_RECORDER_OPTIONS.maxToolNames, 1);
  const maxOpenRuns = check.integer("maxOpenRuns", options.maxOpenRuns ?? DEFAULT_OTEL_RECORDER_OPTIONS.maxOpenRuns, 1);
  const now = options.now ?? Date.now;
  if (typeof now !== "function") throw new OtelRecorderOptionsError({ field: "now", value: now, reason: "expected a function returning epoch milliseconds" });
  return { meterProvider, tracerProvider, captureContent, secretRedactor, agentName, providerName, requestModel, maxToolNames, maxOpenRuns, now };
}
