export { createAgentMetrics, type AgentMetrics } from "./create-agent-metrics";
export {
  resolveAgentMetricsOptions,
  DEFAULT_AGENT_METRICS_OPTIONS,
  type AgentMetricsOptions,
  type ResolvedAgentMetricsOptions,
} from "./agent-metrics-options";
export type { AgentMetricInstruments, InstrumentOf } from "./instruments";
export {
  AGENT_METRIC_CATALOG,
  BUDGET_STOP_REASON_VALUES,
  LOOP_LEVEL_VALUES,
  OBSERVATION_STAGE_VALUES,
  OTHER_LABEL,
  TOKEN_TYPE_VALUES,
  UNKNOWN_TOOL_LABEL,
  UNREGISTERED_TOOL_LABEL,
  type AgentMetricDefinition,
  type AgentMetricKey,
  type AgentMetricType,
  type TypedAgentMetricDefinition,
} from "./metric-catalog";
export { MetricConflictError, MetricsEventError, MetricsOptionsError, ReinsMetricsError, type ReinsMetricsErrorOptions } from "./errors";
export {
  DEFAULT_METRICS_SERVER_OPTIONS,
  MAX_METRICS_SERVER_CONNECTIONS,
  startMetricsServer,
  type MetricsServer,
  type MetricsServerOptions,
} from "./metrics-server";
export { registerClusterWorker } from "./cluster-worker";
