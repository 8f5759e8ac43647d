export {
  createAgentMetrics,
  resolveAgentMetricsOptions,
  DEFAULT_AGENT_METRICS_OPTIONS,
  type AgentMetrics,
  type AgentMetricsOptions,
  type ResolvedAgentMetricsOptions,
} from "./create-agent-metrics";
export {
  AGENT_METRIC_CATALOG,
  LOOP_KIND_VALUES,
  LOOP_LEVEL_VALUES,
  OBSERVATION_STAGE_VALUES,
  OTHER_LABEL,
  PHASE_VALUES,
  RUN_STATUS_VALUES,
  STEP_VALUES,
  STOP_REASON_VALUES,
  TOKEN_TYPE_VALUES,
  TOOL_OUTCOME_VALUES,
  UNKNOWN_TOOL_LABEL,
  type AgentMetricDefinition,
  type AgentMetricKey,
  type AgentMetricType,
} from "./metric-catalog";
export { BoundedLabel, type BoundedLabelOptions } from "./bounded-label";
export { MetricConflictError, MetricsEventError, MetricsOptionsError, ReinsMetricsError, type ReinsMetricsErrorOptions } from "./errors";
export { startMetricsServer, type MetricsServer, type MetricsServerOptions } from "./metrics-server";
