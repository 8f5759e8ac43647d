import { AgentExecutor } from "@langchain/classic/agents";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicTool } from "@langchain/core/tools";
import { SpanStatusCode, type Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { REACT_PROMPT_TEMPLATE, combineRecorders, type ReinsEvent } from "@reins/core";
import { createAgentMetrics } from "@reins/metrics";
import { Registry } from "prom-client";
import { createReactAgent } from "@reins/react-agent";
import { ToolExecutionError, ToolTimeoutError } from "@reins/tool-executor";
// The react-agent's scripted chat model (works on @langchain/core 0.3 and 1.x).
import { ScriptedChatModel } from "@reins/testing";
import { countWhere, createTestSdk, histogram, metricsByName, type TestSdk } from "./__fixtures__/otel-sdk";
import { createOtelRecorder, GEN_AI_METRICS, OtelEventError, OtelRecorderOptionsError, type OtelRecorderOptions } from "./index";

type Telemetry = TestSdk;
const createTelemetry = createTestSdk;

const REACT_PROMPT = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);

/** A tool that fails with HTTP 503 the first time (retried), then answers. */
function flakyForecast(): DynamicTool {
  let calls = 0;
  return new DynamicTool({
    name: "forecast",
    description: "Weather forecast for a city.",
    func: async () => {
      calls += 1;
      if (calls === 1) throw Object.assign(new Error("upstream unavailable"), { status: 503 });
      return "Oslo: 4 °C, light rain";
    },
  });
}

function brokenParcel(): DynamicTool {
  return new DynamicTool({
    name: "parcel",
    description: "Tracks a parcel.",
    func: async () => {
      throw Object.assign(new Error("parcel service said 400: unknown id"), { status: 400 });
    },
  });
}

/** One createReactAgent run: a repaired reply, a retried call, a failed call, the answer. */
async function runAgent(options: Omit<OtelRecorderOptions, "meterProvider" | "tracerProvider">, telemetry: Telemetry, extra?: (event: ReinsEvent) => void) {
  const otel = createOtelRecorder({ ...options, meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider });
  const llm = new ScriptedChatModel({
    chunkChars: 7,
    replies: [
      "**Thought:** I need the forecast.\n**Action:** forecast\n**Action Input:** Oslo",
      "Thought: now the parcel.\nAction: parcel\nAction Input: ZX-1",
      "Thought: I know enough.\nFinal Answer: Oslo has 4 °C and light rain; the parcel id is unknown.",
    ],
  });
  const agent = await createReactAgent({
    llm,
    tools: [flakyForecast(), brokenParcel()],
    prompt: REACT_PROMPT,
    metrics: otel,
    ...(extra !== undefined ? { onEvent: extra } : {}),
    toolExecutor: { policies: { forecast: { retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 1, jitter: "none" } } } },
  });
  const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true, maxIterations: 6 });
  const result = await executor.invoke({ input: "Weather in Oslo, and where is parcel ZX-1?" }, { callbacks: agent.callbacks });
  return { otel, result };
}

function spansNamed(spans: readonly ReadableSpan[], prefix: string): ReadableSpan[] {
  return spans.filter((span) => span.name.startsWith(prefix));
}

function parentIdOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

describe("createOtelRecorder", () => {
  describe("on one createReactAgent run with the real OpenTelemetry SDK", () => {
    let telemetry: Telemetry;
    beforeEach(() => {
      telemetry = createTelemetry();
    });
    afterEach(async () => {
      await telemetry.shutdown();
    });

    it("records the GenAI histograms: one agent run, one duration per tool call, model calls and tokens", async () => {
      const { result } = await runAgent({}, telemetry);
      expect(result.stopReason).toBe("final_answer");
      const byName = await metricsByName(telemetry.reader);

      const runs = histogram(byName, GEN_AI_METRICS.invokeAgentDuration);
      expect(runs.descriptor.unit).toBe("s");
      expect(countWhere(runs, { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "reins_react_agent", "reins.stop_reason": "final_answer" })).toBe(1);

      const tools = histogram(byName, GEN_AI_METRICS.executeToolDuration);
      expect(tools.descriptor.unit).toBe("s");
      expect(countWhere(tools, { "gen_ai.tool.name": "forecast", "reins.tool.outcome": "success" })).toBe(1);
      const failed = tools.dataPoints.find((point) => point.attributes["gen_ai.tool.name"] === "parcel");
      expect(failed?.attributes["reins.tool.outcome"]).toBe("error");
      expect(failed?.attributes["error.type"]).toBe("ToolExecutionError");
      // The GenAI bucket boundaries (0.01 s … 81.92 s).
      expect(failed?.value.buckets.boundaries).toEqual([0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]);

      const modelCalls = histogram(byName, GEN_AI_METRICS.operationDuration);
      expect(countWhere(modelCalls, { "gen_ai.operation.name": "chat" })).toBe(3);

      const tokens = histogram(byName, GEN_AI_METRICS.tokenUsage);
      expect(tokens.descriptor.unit).toBe("{token}");
      expect(countWhere(tokens, { "gen_ai.token.type": "input" })).toBe(3);
      expect(countWhere(tokens, { "gen_ai.token.type": "output" })).toBe(3);
      const input = tokens.dataPoints.find((point) => point.attributes["gen_ai.token.type"] === "input");
      expect(input?.value.sum).toBeGreaterThan(0);
    });

    it("emits invoke_agent with one child execute_tool span per call, error.type on the failure, Reins facts as attributes and events", async () => {
      await runAgent({}, telemetry);
      const spans = telemetry.exporter.getFinishedSpans();
      const [run, ...otherRuns] = spansNamed(spans, "invoke_agent ");
      expect(otherRuns).toHaveLength(0);
      expect(run.name).toBe("invoke_agent reins_react_agent");
      expect(run.attributes["gen_ai.operation.name"]).toBe("invoke_agent");
      expect(run.attributes["reins.stop_reason"]).toBe("final_answer");
      expect(run.attributes["reins.run.status"]).toBe("success");
      expect(run.attributes["gen_ai.usage.input_tokens"]).toEqual(expect.any(Number));
      expect(run.attributes["gen_ai.usage.input_tokens"] as number).toBeGreaterThan(0);
      expect(run.status.code).not.toBe(SpanStatusCode.ERROR);

      const tools = spansNamed(spans, "execute_tool ");
      expect(tools.map((span) => span.name).sort()).toEqual(["execute_tool forecast", "execute_tool parcel"]);
      for (const span of tools) {
        expect(parentIdOf(span)).toBe(run.spanContext().spanId);
        expect(span.spanContext().traceId).toBe(run.spanContext().traceId);
        expect(span.attributes["gen_ai.operation.name"]).toBe("execute_tool");
      }
      const forecast = tools.find((span) => span.name === "execute_tool forecast") as ReadableSpan;
      expect(forecast.attributes["reins.tool.outcome"]).toBe("success");
      expect(forecast.attributes["reins.tool.retries"]).toBe(1);
      expect(forecast.events.map((event) => event.name)).toEqual(["reins.tool_retry"]);
      expect(forecast.events[0].attributes?.["reins.tool.attempt"]).toBe(2);

      const parcel = tools.find((span) => span.name === "execute_tool parcel") as ReadableSpan;
      expect(parcel.status.code).toBe(SpanStatusCode.ERROR);
      expect(parcel.attributes["reins.tool.outcome"]).toBe("error");
      expect(parcel.attributes["error.type"]).toBe("ToolExecutionError");

      const runEvents = run.events.map((event) => event.name);
      expect(runEvents).toContain("reins.parser_repair");
      expect(runEvents).toContain("reins.observation_cleaned");
      expect(runEvents[runEvents.length - 1]).toBe("reins.stop");
      const repair = run.events.find((event) => event.name === "reins.parser_repair");
      expect(typeof repair?.attributes?.["reins.parser.repair"]).toBe("string");
    });

    it("records no content by default: no tool arguments or results, no messages", async () => {
      const seen: ReinsEvent[] = [];
      const { otel } = await runAgent({}, telemetry, (event) => seen.push(event));
      expect(otel.captureContent).toBe(false);
      for (const span of telemetry.exporter.getFinishedSpans()) {
        for (const key of ["gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "gen_ai.input.messages", "gen_ai.output.messages"]) {
          expect(span.attributes[key]).toBeUndefined();
        }
      }
      // The pieces left content out of the events too.
      const toolCalls = seen.filter((event) => event.type === "tool_call");
      expect(toolCalls.length).toBeGreaterThan(0);
      for (const event of toolCalls) expect("toolInput" in event || "observation" in event).toBe(false);
    });

    it("records tool arguments and results with captureContent", async () => {
      const { otel } = await runAgent({ captureContent: true }, telemetry);
      expect(otel.captureContent).toBe(true);
      const forecast = telemetry.exporter.getFinishedSpans().find((span) => span.name === "execute_tool forecast") as ReadableSpan;
      expect(forecast.attributes["gen_ai.tool.call.arguments"]).toBe("Oslo");
      expect(String(forecast.attributes["gen_ai.tool.call.result"])).toContain("4 °C");
      // The run's input and output messages on invoke_agent, as GenAI's JSON (role + parts).
      const [run] = spansNamed(telemetry.exporter.getFinishedSpans(), "invoke_agent");
      expect(JSON.parse(String(run.attributes["gen_ai.input.messages"]))).toEqual([{ role: "user", parts: [{ type: "text", content: "Weather in Oslo, and where is parcel ZX-1?" }] }]);
      expect(JSON.parse(String(run.attributes["gen_ai.output.messages"]))).toEqual([
        { role: "assistant", parts: [{ type: "text", content: "Oslo has 4 °C and light rain; the parcel id is unknown." }], finish_reason: "stop" },
      ]);
    });

    it("records the run's input and output messages with captureContent without callbacks too (createReactAgent's own loop control)", async () => {
      const otel = createOtelRecorder({ captureContent: true, meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider });
      const llm = new ScriptedChatModel({ chunkChars: 7, replies: ["Thought: look.\nAction: forecast\nAction Input: Oslo", "Thought: done.\nFinal Answer: 4 °C."] });
      const agent = await createReactAgent({ llm, tools: [flakyForecast()], prompt: REACT_PROMPT, metrics: otel });
      const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true, maxIterations: 4 });
      await executor.invoke({ input: "Weather in Oslo?" });
      const [run] = spansNamed(telemetry.exporter.getFinishedSpans(), "invoke_agent");
      expect(JSON.parse(String(run.attributes["gen_ai.input.messages"]))).toEqual([{ role: "user", parts: [{ type: "text", content: "Weather in Oslo?" }] }]);
      expect(JSON.parse(String(run.attributes["gen_ai.output.messages"]))).toEqual([{ role: "assistant", parts: [{ type: "text", content: "4 °C." }], finish_reason: "stop" }]);
    });

    it("works beside the Prometheus catalog through combineRecorders, content included", async () => {
      const registry = new Registry();
      const otel = createOtelRecorder({ captureContent: true, meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider });
      const llm = new ScriptedChatModel({ chunkChars: 7, replies: ["Thought: look.\nAction: forecast\nAction Input: Oslo", "Thought: done.\nFinal Answer: 4 °C."] });
      const agent = await createReactAgent({ llm, tools: [flakyForecast()], prompt: REACT_PROMPT, metrics: combineRecorders([createAgentMetrics({ registry }), otel]) });
      const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true, maxIterations: 4 });
      await executor.invoke({ input: "Weather in Oslo?" }, { callbacks: agent.callbacks });
      expect(await registry.metrics()).toMatch(/react_agent_runs_total\{status="success"\} 1/);
      const forecast = telemetry.exporter.getFinishedSpans().find((span) => span.name === "execute_tool forecast") as ReadableSpan;
      expect(forecast.attributes["gen_ai.tool.call.arguments"]).toBe("Oslo");
    });

    it("carries the run id on every per-step event the pieces emit", async () => {
      const seen: ReinsEvent[] = [];
      await runAgent({}, telemetry, (event) => seen.push(event));
      const runIds = new Set(seen.filter((event) => event.type === "run_start").map((event) => (event as { runId: string }).runId));
      expect(runIds.size).toBe(1);
      const perStep = seen.filter((event) => ["parser_repair", "tool_retry", "observation_cleaned", "tool_call"].includes(event.type));
      expect(new Set(perStep.map((event) => event.type))).toEqual(new Set(["parser_repair", "tool_retry", "observation_cleaned", "tool_call"]));
      for (const event of perStep) expect(runIds.has((event as { runId?: string }).runId ?? "")).toBe(true);
    });
  });

  describe("on events recorded by hand", () => {
    let telemetry: Telemetry;
    beforeEach(() => {
      telemetry = createTelemetry();
    });
    afterEach(async () => {
      await telemetry.shutdown();
    });

    it("marks a run that ended in an error with error.type and an error status", async () => {
      let nowMs = 1_000;
      const otel = createOtelRecorder({ meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider, now: () => nowMs });
      otel.record({ type: "run_start", runId: "r1" });
      otel.record({ type: "loop_detection", runId: "r1", kind: "repeat", level: "stop" });
      nowMs += 2_500;
      otel.record({ type: "run_end", runId: "r1", status: "error", stopReason: "error", durationMs: 2_500 });
      const [span] = telemetry.exporter.getFinishedSpans();
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes["error.type"]).toBe("_OTHER");
      expect(span.attributes["reins.loop.detections"]).toBe(1);
      expect(span.events.map((event) => event.name)).toEqual(["reins.loop_detection", "reins.stop"]);
      const runs = histogram(await metricsByName(telemetry.reader), GEN_AI_METRICS.invokeAgentDuration);
      expect(runs.dataPoints[0].attributes["error.type"]).toBe("_OTHER");
      expect(runs.dataPoints[0].value.sum).toBeCloseTo(2.5);
    });

    it("ends the oldest open run past maxOpenRuns as abandoned, so a run without run_end cannot leak", () => {
      const otel = createOtelRecorder({ meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider, maxOpenRuns: 2 });
      otel.record({ type: "run_start", runId: "a" });
      otel.record({ type: "run_start", runId: "b" });
      otel.record({ type: "run_start", runId: "c" });
      expect(otel.openRuns).toBe(2);
      const [abandoned] = telemetry.exporter.getFinishedSpans();
      expect(abandoned.attributes["reins.run.id"]).toBe("a");
      expect(abandoned.attributes["error.type"]).toBe("reins.run_abandoned");
      otel.endOpenRuns();
      expect(otel.openRuns).toBe(0);
      expect(telemetry.exporter.getFinishedSpans()).toHaveLength(3);
    });

    it("bounds the gen_ai.tool.name metric attribute by maxToolNames, keeping the real name on the span", async () => {
      const otel = createOtelRecorder({ meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider, maxToolNames: 1 });
      otel.record({ type: "tool_call", toolName: "search", outcome: "success", durationMs: 5 });
      otel.record({ type: "tool_call", toolName: "invented_tool", outcome: "success", durationMs: 5 });
      const tools = histogram(await metricsByName(telemetry.reader), GEN_AI_METRICS.executeToolDuration);
      expect(tools.dataPoints.map((point) => point.attributes["gen_ai.tool.name"]).sort()).toEqual(["_OTHER", "search"]);
      expect(telemetry.exporter.getFinishedSpans().map((span) => span.attributes["gen_ai.tool.name"]).sort()).toEqual(["invented_tool", "search"]);
    });

    it("names error.type after what the tool threw, not the ToolExecutor's ToolExecutionError wrapper", async () => {
      class CrmUnauthorizedError extends Error {
        override readonly name = "CrmUnauthorizedError";
      }
      const otel = createOtelRecorder({ meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider });
      const wrapped = (cause: Error) => new ToolExecutionError({ toolName: "crm", cause });
      otel.record({ type: "tool_call", toolName: "crm", outcome: "error", durationMs: 5, error: wrapped(new CrmUnauthorizedError("401")) });
      otel.record({ type: "tool_call", toolName: "http", outcome: "error", durationMs: 5, error: wrapped(Object.assign(new Error("503"), { status: 503 })) });
      otel.record({ type: "tool_call", toolName: "slow", outcome: "timeout", durationMs: 5, error: new ToolTimeoutError({ toolName: "slow", timeoutMs: 5 }) });
      const byTool = new Map(telemetry.exporter.getFinishedSpans().map((span) => [span.attributes["gen_ai.tool.name"], span.attributes["error.type"]]));
      expect(Object.fromEntries(byTool)).toEqual({ crm: "CrmUnauthorizedError", http: "ToolExecutionError", slow: "ToolTimeoutError" });
      const tools = histogram(await metricsByName(telemetry.reader), GEN_AI_METRICS.executeToolDuration);
      expect(tools.dataPoints.find((point) => point.attributes["gen_ai.tool.name"] === "crm")?.attributes["error.type"]).toBe("CrmUnauthorizedError");
    });

    it("ignores an event type it does not know and throws a typed error for a non-event", () => {
      const otel = createOtelRecorder({ meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider });
      expect(() => otel.record({ type: "from_a_newer_core" } as unknown as ReinsEvent)).not.toThrow();
      expect(() => otel.record(null as unknown as ReinsEvent)).toThrow(OtelEventError);
    });
  });

  describe("options", () => {
    it.each<[string, OtelRecorderOptions]>([
      ["meterProvider", { meterProvider: {} as never }],
      ["tracerProvider", { tracerProvider: 3 as never }],
      ["captureContent", { captureContent: "yes" as never }],
      ["agentName", { agentName: " " }],
      ["maxToolNames", { maxToolNames: 0 }],
      ["maxOpenRuns", { maxOpenRuns: 1.5 }],
      ["now", { now: 5 as never }],
    ])("rejects a bad %s, naming the field", (field, options) => {
      let caught: unknown;
      try {
        createOtelRecorder(options);
      } catch (error) {
        caught = error;
      }
      expect(OtelRecorderOptionsError.isInstance(caught)).toBe(true);
      expect((caught as OtelRecorderOptionsError).field).toBe(field);
    });

    it("uses the global providers when none are given (the API's no-op ones when no SDK is registered)", () => {
      const otel = createOtelRecorder();
      expect(() => {
        otel.record({ type: "run_start", runId: "r" });
        otel.record({ type: "tool_call", toolName: "t", outcome: "success", durationMs: 1, runId: "r" });
        otel.record({ type: "run_end", runId: "r", status: "success", stopReason: "final_answer", durationMs: 2 });
      }).not.toThrow();
      expect(otel.openRuns).toBe(0);
    });
  });
});
