export {
  createOtelRecorder,
  DEFAULT_OTEL_RECORDER_OPTIONS,
  GEN_AI_DURATION_BUCKETS_SECONDS,
  GEN_AI_TOKEN_BUCKETS,
  type OtelRecorder,
  type OtelRecorderOptions,
} from "./create-otel-recorder";
export {
  ERROR_TYPE_OTHER,
  GEN_AI_ATTRIBUTES,
  GEN_AI_METRICS,
  GEN_AI_OPERATIONS,
  GEN_AI_SEMCONV_VERSION,
  REINS_ATTRIBUTES,
  REINS_SPAN_EVENTS,
} from "./gen-ai-names";
export { OtelEventError, OtelRecorderOptionsError, ReinsOtelError, type ReinsOtelErrorOptions } from "./errors";
