import { Registry, register as globalRegistry, Counter } from "prom-client";
import { LOOP_KINDS, RUN_STATUSES, STEP_KINDS, STEP_PHASES, STOP_REASONS, TOOL_CALL_OUTCOMES, type ReinsEvent } from "@reins/core";
import {
  AGENT_METRIC_CATALOG,
  DEFAULT_AGENT_METRICS_OPTIONS,
  LOOP_LEVEL_VALUES,
  OBSERVATION_STAGE_VALUES,
  MetricConflictError,
  MetricsOptionsError,
  createAgentMetrics,
  type AgentMetrics,
} from "./index";

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

interface Exposition {
  readonly types: Map<string, string>;
  readonly helps: Map<string, string>;
  readonly samples: Sample[];
}

/** Reads the Prometheus text exposition format (version 0.0.4) line by line. */
function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const helps = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line.length === 0) continue;
    const typeMatch = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (typeMatch) {
      types.set(typeMatch[1], typeMatch[2]);
      continue;
    }
    const helpMatch = /^# HELP (\S+) (.*)$/.exec(line);
    if (helpMatch) {
      helps.set(helpMatch[1], helpMatch[2]);
      continue;
    }
    const sampleMatch = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sampleMatch) throw new Error(`Unparseable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    if (sampleMatch[2] !== undefined) {
      for (const pair of sampleMatch[2].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2];
    }
    samples.push({ name: sampleMatch[1], labels, value: Number(sampleMatch[3]) });
  }
  return { types, helps, samples };
}

function sampleValue(exposition: Exposition, name: string, labels: Record<string, string>): number | undefined {
  const found = exposition.samples.find(
    (sample) =>
      sample.name === name &&
      Object.keys(labels).length === Object.keys(sample.labels).length &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  return found?.value;
}

/** One event per closed label value of every metric, so every series appears. */
function everyLabelEvent(): ReinsEvent[] {
  const events: ReinsEvent[] = [];
  for (const status of RUN_STATUSES) {
    events.push({ type: "run_start", runId: "r" });
    events.push({ type: "run_end", runId: "r", status, stopReason: "final_answer", durationMs: 1200 });
  }
  for (const reason of STOP_REASONS) {
    events.push({ type: "run_start", runId: "r" });
    events.push({ type: "run_end", runId: "r", status: "stopped", stopReason: reason, durationMs: 5 });
  }
  for (const step of STEP_KINDS) events.push({ type: "step", runId: "r", step });
  for (const phase of STEP_PHASES) events.push({ type: "step_duration", runId: "r", phase, durationMs: 30 });
  for (const outcome of TOOL_CALL_OUTCOMES) events.push({ type: "tool_call", toolName: "search", outcome, durationMs: 40 });
  events.push({ type: "tool_retry", toolName: "search", attempt: 2, delayMs: 100 });
  for (const operation of ["get", "set"] as const) events.push({ type: "tool_cache_error", toolName: "search", operation, error: new Error("redis down") });
  for (const operation of ["acquire", "record"] as const) events.push({ type: "circuit_store_error", toolName: "search", operation, error: new Error("redis down") });
  events.push({ type: "circuit_state", toolName: "search", state: "open" });
  events.push({ type: "parser_error", reason: "missing_action_input", message: "Action Input is missing." });
  events.push({ type: "parser_repair", repair: "json_repair" });
  events.push({ type: "observation_cleaned", toolName: "search", rawChars: 5000, cleanChars: 800, truncated: true, notes: [] });
  for (const kind of LOOP_KINDS) {
    for (const level of LOOP_LEVEL_VALUES) events.push({ type: "loop_detection", runId: "r", kind, level });
  }
  events.push({ type: "token_usage", runId: "r", inputTokens: 120, outputTokens: 30, estimated: false });
  return events;
}

describe("createAgentMetrics", () => {
  describe("exposition text", () => {
    it("has every catalog name with its type, help and exact label set", async () => {
      const metrics = createAgentMetrics({ registry: new Registry(), toolNames: ["search"] });
      for (const event of everyLabelEvent()) metrics.record(event);
      const exposition = parseExposition(await metrics.registry.metrics());
      for (const definition of Object.values(AGENT_METRIC_CATALOG)) {
        const name = `react_agent_${definition.name}`;
        expect(exposition.types.get(name)).toBe(definition.type);
        expect(exposition.helps.get(name)).toBe(definition.help);
        const sampleNames =
          definition.type === "histogram" ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name];
        const samples = exposition.samples.filter((sample) => sampleNames.includes(sample.name));
        expect(samples.length).toBeGreaterThan(0);
        for (const sample of samples) {
          const expected = [...definition.labelNames, ...(sample.name.endsWith("_bucket") ? ["le"] : [])].sort();
          expect(Object.keys(sample.labels).sort()).toEqual(expected);
        }
        for (const [labelName, values] of Object.entries(definition.labelValues)) {
          const seen = new Set(samples.map((sample) => sample.labels[labelName]));
          for (const value of values) expect(seen).toContain(value);
        }
      }
    });

    it("uses duration buckets from 10 ms to about 80 s", async () => {
      const metrics = createAgentMetrics({ registry: new Registry() });
      metrics.record({ type: "step_duration", runId: "r", phase: "llm", durationMs: 2500 });
      const exposition = parseExposition(await metrics.registry.metrics());
      const bounds = exposition.samples
        .filter((sample) => sample.name === "react_agent_step_duration_seconds_bucket")
        .map((sample) => sample.labels.le);
      expect(bounds[0]).toBe("0.01");
      expect(bounds).toContain("81.92");
      expect(bounds[bounds.length - 1]).toBe("+Inf");
      expect(DEFAULT_AGENT_METRICS_OPTIONS.durationBucketsSeconds).toHaveLength(14);
    });
  });

  describe("recording events", () => {
    let metrics: AgentMetrics;
    beforeEach(() => {
      metrics = createAgentMetrics({ registry: new Registry(), toolNames: ["search", "calculator"] });
    });
    const read = async (): Promise<Exposition> => parseExposition(await metrics.registry.metrics());

    it("counts a run end as run, duration and stop reason, and tracks runs in progress", async () => {
      metrics.record({ type: "run_start", runId: "a" });
      metrics.record({ type: "run_start", runId: "b" });
      metrics.record({ type: "run_end", runId: "a", status: "stopped", stopReason: "repeat", durationMs: 2500 });
      const exposition = await read();
      expect(sampleValue(exposition, "react_agent_runs_total", { status: "stopped" })).toBe(1);
      expect(sampleValue(exposition, "react_agent_stops_total", { reason: "repeat" })).toBe(1);
      expect(sampleValue(exposition, "react_agent_run_duration_seconds_sum", { status: "stopped" })).toBe(2.5);
      expect(sampleValue(exposition, "react_agent_runs_in_progress", {})).toBe(1);
    });

    it("counts tool calls by tool and outcome and times them in seconds", async () => {
      metrics.record({ type: "tool_call", toolName: "search", outcome: "timeout", durationMs: 30000 });
      metrics.record({ type: "tool_call", toolName: "search", outcome: "timeout", durationMs: 30000 });
      metrics.record({ type: "tool_retry", toolName: "search", attempt: 2, delayMs: 200 });
      const exposition = await read();
      expect(sampleValue(exposition, "react_agent_tool_calls_total", { tool: "search", outcome: "timeout" })).toBe(2);
      expect(sampleValue(exposition, "react_agent_tool_duration_seconds_sum", { tool: "search" })).toBe(60);
      expect(sampleValue(exposition, "react_agent_tool_retries_total", { tool: "search" })).toBe(1);
    });

    it("sets the circuit gauge to 0, 1 and 2 for closed, half-open and open", async () => {
      metrics.record({ type: "circuit_state", toolName: "search", state: "open" });
      metrics.record({ type: "circuit_state", toolName: "calculator", state: "half_open" });
      metrics.record({ type: "circuit_state", toolName: "calculator", state: "closed" });
      const exposition = await read();
      expect(sampleValue(exposition, "react_agent_circuit_state", { tool: "search" })).toBe(2);
      expect(sampleValue(exposition, "react_agent_circuit_state", { tool: "calculator" })).toBe(0);
    });

    it("records observation sizes per stage and counts truncations", async () => {
      metrics.record({ type: "observation_cleaned", toolName: "search", rawChars: 9000, cleanChars: 1000, truncated: true, notes: [] });
      metrics.record({ type: "observation_cleaned", rawChars: 10, cleanChars: 10, truncated: false, notes: [] });
      const exposition = await read();
      expect(sampleValue(exposition, "react_agent_observation_chars_sum", { stage: "raw" })).toBe(9010);
      expect(sampleValue(exposition, "react_agent_observation_chars_sum", { stage: "clean" })).toBe(1010);
      expect(sampleValue(exposition, "react_agent_observation_truncations_total", { tool: "search" })).toBe(1);
    });

    it("adds measured and estimated tokens to tokens_total by type", async () => {
      metrics.record({ type: "token_usage", runId: "a", inputTokens: 100, outputTokens: 20, estimated: false });
      metrics.record({ type: "token_usage", runId: "b", inputTokens: 50, outputTokens: 0, estimated: true });
      const exposition = await read();
      expect(sampleValue(exposition, "react_agent_tokens_total", { type: "input" })).toBe(150);
      expect(sampleValue(exposition, "react_agent_tokens_total", { type: "output" })).toBe(20);
    });

    it("counts steps, step phases, parse errors, repairs and loop detections", async () => {
      metrics.record({ type: "step", runId: "a", step: "thought" });
      metrics.record({ type: "step", runId: "a", step: "thought" });
      metrics.record({ type: "step", runId: "a", step: "action" });
      metrics.record({ type: "step_duration", runId: "a", phase: "cycle", durationMs: 1500 });
      metrics.record({ type: "parser_error", reason: "unknown_tool", message: "Tool 'x' is not available." });
      metrics.record({ type: "parser_repair", repair: "markdown_labels" });
      metrics.record({ type: "loop_detection", runId: "a", kind: "cycle", level: "warn" });
      const exposition = await read();
      expect(sampleValue(exposition, "react_agent_steps_total", { step: "thought" })).toBe(2);
      expect(sampleValue(exposition, "react_agent_steps_total", { step: "action" })).toBe(1);
      expect(sampleValue(exposition, "react_agent_step_duration_seconds_sum", { phase: "cycle" })).toBe(1.5);
      expect(sampleValue(exposition, "react_agent_parsing_errors_total", { reason: "unknown_tool" })).toBe(1);
      expect(sampleValue(exposition, "react_agent_parser_repairs_total", { repair: "markdown_labels" })).toBe(1);
      expect(sampleValue(exposition, "react_agent_loop_detections_total", { kind: "cycle", level: "warn" })).toBe(1);
    });
  });

  describe("label bounds", () => {
    it("records an unregistered tool as unregistered, until it is registered", async () => {
      const metrics = createAgentMetrics({ registry: new Registry(), toolNames: ["search"] });
      metrics.record({ type: "tool_call", toolName: "Jester", outcome: "error", durationMs: 1 });
      metrics.registerTools(["Jester"]);
      metrics.record({ type: "tool_call", toolName: "Jester", outcome: "error", durationMs: 1 });
      const exposition = parseExposition(await metrics.registry.metrics());
      expect(sampleValue(exposition, "react_agent_tool_calls_total", { tool: "unregistered", outcome: "error" })).toBe(1);
      expect(sampleValue(exposition, "react_agent_tool_calls_total", { tool: "Jester", outcome: "error" })).toBe(1);
    });

    it("never learns a tool name nobody registered, so invented names cannot crowd out the real tools", async () => {
      const metrics = createAgentMetrics({ registry: new Registry() });
      for (let index = 0; index < 60; index += 1) metrics.record({ type: "tool_call", toolName: `invented_${index}`, outcome: "error", durationMs: 1 });
      metrics.registerTools(["search"]);
      metrics.record({ type: "tool_call", toolName: "search", outcome: "success", durationMs: 1 });
      const exposition = parseExposition(await metrics.registry.metrics());
      const tools = new Set(exposition.samples.filter((sample) => sample.name === "react_agent_tool_calls_total").map((sample) => sample.labels.tool));
      expect([...tools].sort()).toEqual(["search", "unregistered"]);
      expect(sampleValue(exposition, "react_agent_tool_calls_total", { tool: "unregistered", outcome: "error" })).toBe(60);
      expect(sampleValue(exposition, "react_agent_tool_calls_total", { tool: "search", outcome: "success" })).toBe(1);
    });

    it("learns each agent's tools when several register on one metrics object, up to maxToolLabels", async () => {
      const metrics = createAgentMetrics({ registry: new Registry(), maxToolLabels: 3 });
      metrics.registerTools(["search", "weather"]);
      metrics.registerTools(["calculator", "translate"]);
      for (const toolName of ["search", "weather", "calculator", "translate"]) metrics.record({ type: "tool_retry", toolName, attempt: 2, delayMs: 0 });
      const exposition = parseExposition(await metrics.registry.metrics());
      expect(sampleValue(exposition, "react_agent_tool_retries_total", { tool: "calculator" })).toBe(1);
      expect(sampleValue(exposition, "react_agent_tool_retries_total", { tool: "unregistered" })).toBe(1);
      expect(metrics.toolLabel("translate")).toBe("unregistered");
      expect(metrics.toolLabel("unregistered")).toBe("unregistered");
    });

    it("maps free-text reasons and values outside a given list to other, never to a new series", async () => {
      const metrics = createAgentMetrics({ registry: new Registry(), parserRepairKinds: ["json_repair"] });
      metrics.record({ type: "parser_error", reason: "Could not parse LLM output: `I think...`", message: "x" });
      metrics.record({ type: "parser_repair", repair: "smart_quotes" });
      metrics.record({ type: "parser_repair", repair: "json_repair" });
      const exposition = parseExposition(await metrics.registry.metrics());
      expect(sampleValue(exposition, "react_agent_parsing_errors_total", { reason: "other" })).toBe(1);
      expect(sampleValue(exposition, "react_agent_parser_repairs_total", { repair: "other" })).toBe(1);
      expect(sampleValue(exposition, "react_agent_parser_repairs_total", { repair: "json_repair" })).toBe(1);
    });

    it("never puts run ids or error text in any label", async () => {
      const metrics = createAgentMetrics({ registry: new Registry(), toolNames: ["search"] });
      metrics.record({ type: "tool_call", toolName: "search", outcome: "error", durationMs: 3, error: new Error("secret-token-123"), runId: "run-42" });
      metrics.record({ type: "run_end", runId: "run-42", status: "error", stopReason: "error", durationMs: 10 });
      const text = await metrics.registry.metrics();
      expect(text).not.toContain("run-42");
      expect(text).not.toContain("secret-token-123");
    });
  });

  describe("creation", () => {
    it("returns the same object for the same registry and prefix instead of throwing", () => {
      const registry = new Registry();
      const first = createAgentMetrics({ registry });
      const second = createAgentMetrics({ registry, toolNames: ["search"] });
      expect(second).toBe(first);
      expect(first.toolLabel("search")).toBe("search");
    });

    it("creates separate catalogs for another prefix or another registry", () => {
      const registry = new Registry();
      const first = createAgentMetrics({ registry });
      expect(createAgentMetrics({ registry, prefix: "other_" })).not.toBe(first);
      expect(createAgentMetrics({ registry: new Registry() })).not.toBe(first);
      expect(registry.getSingleMetric("other_runs_total")).toBeDefined();
    });

    it("registers nothing in prom-client's global registry by default", () => {
      const before = globalRegistry.getMetricsAsArray().length;
      const metrics = createAgentMetrics();
      expect(metrics.registry).not.toBe(globalRegistry);
      expect(globalRegistry.getMetricsAsArray().length).toBe(before);
      expect(metrics.registry.getSingleMetric("react_agent_runs_total")).toBeDefined();
    });

    it("builds the catalog again after the registry was cleared", () => {
      const registry = new Registry();
      const first = createAgentMetrics({ registry });
      registry.clear();
      const second = createAgentMetrics({ registry });
      expect(second).not.toBe(first);
      expect(registry.getSingleMetric("react_agent_runs_total")).toBe(second.runsTotal);
    });

    it("throws MetricConflictError on a foreign metric with a catalog name and leaves nothing half-registered", () => {
      const registry = new Registry();
      new Counter({ name: "react_agent_tokens_total", help: "someone else's", registers: [registry] });
      expect(() => createAgentMetrics({ registry })).toThrow(MetricConflictError);
      expect(registry.getMetricsAsArray()).toHaveLength(1);
    });

    it.each([
      [{ prefix: "bad prefix" }, "prefix"],
      [{ durationBucketsSeconds: [1, 0.5] }, "durationBucketsSeconds"],
      [{ observationCharBuckets: [] }, "observationCharBuckets"],
      [{ maxToolLabels: -1 }, "maxToolLabels"],
      [{ toolNames: ["ok", ""] }, "toolNames"],
    ])("fails fast on %j naming the field", (options, field) => {
      let thrown: unknown;
      try {
        createAgentMetrics({ registry: new Registry(), ...(options as object) });
      } catch (error) {
        thrown = error;
      }
      expect(MetricsOptionsError.isInstance(thrown)).toBe(true);
      expect((thrown as MetricsOptionsError).field).toBe(field);
    });

    it("rejects a second call with other buckets for the same registry and prefix", () => {
      const registry = new Registry();
      createAgentMetrics({ registry });
      expect(() => createAgentMetrics({ registry, durationBucketsSeconds: [1, 2] })).toThrow(MetricsOptionsError);
    });
  });
});
