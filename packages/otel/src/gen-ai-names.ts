/**
 * The OpenTelemetry names this package emits, in one place for review. The `gen_ai.*` names follow
 * the GenAI semantic conventions at development status, as published in
 * open-telemetry/semantic-conventions-genai v0.1.0 (their first release after they left
 * semantic-conventions v1.41.0; the client metrics kept their names, the agent and tool metrics are
 * new there): metrics `gen_ai.client.token.usage`, `gen_ai.client.operation.duration`,
 * `gen_ai.invoke_agent.duration`, `gen_ai.execute_tool.duration`; spans `invoke_agent {agent}` and
 * `execute_tool {tool}`. Names Reins adds for its own facts live under `reins.*`.
 */

/** The GenAI semantic-conventions release these names were taken from. */
export const GEN_AI_SEMCONV_VERSION = "semantic-conventions-genai 0.1.0 (development)";

/** The GenAI metric names (histograms). */
export const GEN_AI_METRICS = Object.freeze({
  tokenUsage: "gen_ai.client.token.usage",
  operationDuration: "gen_ai.client.operation.duration",
  invokeAgentDuration: "gen_ai.invoke_agent.duration",
  executeToolDuration: "gen_ai.execute_tool.duration",
});

/** The GenAI attribute keys used. */
export const GEN_AI_ATTRIBUTES = Object.freeze({
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  agentName: "gen_ai.agent.name",
  toolName: "gen_ai.tool.name",
  toolType: "gen_ai.tool.type",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  tokenType: "gen_ai.token.type",
  usageInputTokens: "gen_ai.usage.input_tokens",
  usageOutputTokens: "gen_ai.usage.output_tokens",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  errorType: "error.type",
});

/** Values of `gen_ai.operation.name`. */
export const GEN_AI_OPERATIONS = Object.freeze({
  chat: "chat",
  invokeAgent: "invoke_agent",
  executeTool: "execute_tool",
});

/** `error.type` when nothing more specific is known (the semconv fallback value). */
export const ERROR_TYPE_OTHER = "_OTHER";

/** Reins' own attribute keys (span and metric attributes, span event attributes). */
export const REINS_ATTRIBUTES = Object.freeze({
  runId: "reins.run.id",
  runStatus: "reins.run.status",
  stopReason: "reins.stop_reason",
  toolOutcome: "reins.tool.outcome",
  toolAttempt: "reins.tool.attempt",
  toolRetries: "reins.tool.retries",
  retryDelayMs: "reins.tool.retry_delay_ms",
  circuitState: "reins.circuit.state",
  halfOpenAfterMs: "reins.circuit.half_open_after_ms",
  parserRepair: "reins.parser.repair",
  parserErrorReason: "reins.parser.error_reason",
  parserObservation: "reins.parser.observation",
  parserLlmOutput: "reins.parser.llm_output",
  loopKind: "reins.loop.kind",
  loopLevel: "reins.loop.level",
  observationRawChars: "reins.observation.raw_chars",
  observationCleanChars: "reins.observation.clean_chars",
  observationTruncated: "reins.observation.truncated",
  tokensEstimated: "reins.tokens.estimated",
  parserRepairs: "reins.parser.repairs",
  loopDetections: "reins.loop.detections",
  toolCalls: "reins.tool.calls",
  secretKinds: "reins.secret.kinds",
  secretCount: "reins.secret.count",
});

/** Reins' span event names (on the `invoke_agent` span, or on `execute_tool` for retries). */
export const REINS_SPAN_EVENTS = Object.freeze({
  parserRepair: "reins.parser_repair",
  parserError: "reins.parser_error",
  toolRetry: "reins.tool_retry",
  circuitState: "reins.circuit_state",
  observationCleaned: "reins.observation_cleaned",
  loopDetection: "reins.loop_detection",
  stop: "reins.stop",
  secretRedaction: "reins.secret_redaction",
});
