// @reins/otel on the LangChain v1 path: createAgent + createReinsMiddleware({ metrics: otel }),
// read back through the real OpenTelemetry SDK (a pull metric reader, an in-memory span exporter).
// The createReactAgent path has the same checks in packages/otel/src/create-otel-recorder.test.ts.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { SpanStatusCode, type Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { createAgent } from "langchain";
import { z } from "zod/v4";
import { createOtelRecorder, GEN_AI_METRICS, type OtelRecorder } from "@reins/otel";
import { countWhere, createTestSdk, histogram, metricsByName, sumWhere, type TestSdk } from "../../otel/src/__fixtures__/otel-sdk";
import { createReinsMiddleware, type ReinsMiddlewareOptions } from "./index";

interface Telemetry extends TestSdk {
  readonly otel: OtelRecorder;
}

function createTelemetry(captureContent = false): Telemetry {
  const sdk = createTestSdk();
  const otel = createOtelRecorder({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider, agentName: "support_agent", captureContent });
  return { ...sdk, otel };
}

function spansNamed(spans: readonly ReadableSpan[], prefix: string): ReadableSpan[] {
  return spans.filter((span) => span.name.startsWith(prefix));
}

const search = tool(async ({ query }: { query: string }) => `Results for ${query}: Paris is the capital of France.`, {
  name: "search",
  description: "Search the web",
  schema: z.object({ query: z.string() }),
});

class CrmUnauthorizedError extends Error {
  override readonly name = "CrmUnauthorizedError";
}

const crmLookup = tool(
  async () => {
    throw new CrmUnauthorizedError("upstream returned 401 Unauthorized: API key revoked");
  },
  { name: "crm_lookup", description: "Look up a customer", schema: z.object({ customerId: z.string() }) },
);

const TOOLS = [search, crmLookup];
const input = (content: string) => ({ messages: [new HumanMessage(content)] });
const noRetry: ReinsMiddlewareOptions["toolExecutor"] = { defaults: { retry: false } };

describe("@reins/otel through createAgent + createReinsMiddleware (real OpenTelemetry SDK)", () => {
  let telemetry: Telemetry;
  beforeEach(() => {
    telemetry = createTelemetry();
  });
  afterEach(async () => {
    await telemetry.shutdown();
  });

  /** One run: a search that answers, a CRM lookup that throws, then the answer. */
  async function answeredRun() {
    const model = fakeModel()
      .respondWithTools([{ name: "search", args: { query: "capital of France" }, id: "call_1" }])
      .respondWithTools([{ name: "crm_lookup", args: { customerId: "c-9" }, id: "call_2" }])
      .respond(new AIMessage("Paris; the CRM could not be reached."));
    const agent = createAgent({ model, tools: TOOLS, middleware: [createReinsMiddleware({ toolExecutor: noRetry, metrics: telemetry.otel })] });
    return agent.invoke(input("Capital of France, and who is c-9?"));
  }

  it("records gen_ai.execute_tool.duration per call with gen_ai.tool.name, and error.type on the failing tool", async () => {
    const result = await answeredRun();
    expect(result.stopReason).toBe("final_answer");
    const tools = histogram(await metricsByName(telemetry.reader), GEN_AI_METRICS.executeToolDuration);
    expect(tools.descriptor.unit).toBe("s");
    expect(countWhere(tools, { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search", "reins.tool.outcome": "success" })).toBe(1);
    const failed = tools.dataPoints.filter((point) => point.attributes["gen_ai.tool.name"] === "crm_lookup");
    expect(failed).toHaveLength(1);
    expect(failed[0].value.count).toBe(1);
    expect(failed[0].attributes["reins.tool.outcome"]).toBe("error");
    expect(failed[0].attributes["error.type"]).toBe("CrmUnauthorizedError");
    // The successful call's point carries no error.type.
    expect(tools.dataPoints.find((point) => point.attributes["gen_ai.tool.name"] === "search")?.attributes["error.type"]).toBeUndefined();
  });

  it("records gen_ai.invoke_agent.duration once per run and gen_ai.client.operation.duration per model call", async () => {
    await answeredRun();
    const byName = await metricsByName(telemetry.reader);
    const runs = histogram(byName, GEN_AI_METRICS.invokeAgentDuration);
    expect(runs.descriptor.unit).toBe("s");
    expect(countWhere(runs, {})).toBe(1);
    expect(countWhere(runs, { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent", "reins.stop_reason": "final_answer" })).toBe(1);
    expect(runs.dataPoints[0].attributes["error.type"]).toBeUndefined();
    // Three model turns: two tool calls, then the answer.
    expect(countWhere(histogram(byName, GEN_AI_METRICS.operationDuration), { "gen_ai.operation.name": "chat" })).toBe(3);
  });

  it("records gen_ai.client.token.usage per model call: Reins' estimate, marked, where fakeModel reports no usage_metadata", async () => {
    const result = await answeredRun();
    // fakeModel's replies carry no usage_metadata: the middleware estimates (text length / 4).
    const replies = result.messages.filter((message): message is AIMessage => AIMessage.isInstance(message));
    expect(replies.length).toBe(3);
    for (const reply of replies) expect(reply.usage_metadata).toBeUndefined();
    const tokens = histogram(await metricsByName(telemetry.reader), GEN_AI_METRICS.tokenUsage);
    expect(tokens.descriptor.unit).toBe("{token}");
    expect(countWhere(tokens, { "gen_ai.token.type": "input", "reins.tokens.estimated": true })).toBe(3);
    expect(countWhere(tokens, { "gen_ai.token.type": "output", "reins.tokens.estimated": true })).toBe(3);
    expect(countWhere(tokens, { "reins.tokens.estimated": false })).toBe(0);
    expect(sumWhere(tokens, { "gen_ai.token.type": "input" })).toBeGreaterThan(0);
  });

  it("records the provider's usage_metadata, unmarked, when the model reports it", async () => {
    const model = fakeModel()
      .respond(new AIMessage({ content: "", tool_calls: [{ name: "search", args: { query: "Paris" }, id: "call_1", type: "tool_call" }], usage_metadata: { input_tokens: 120, output_tokens: 15, total_tokens: 135 } }))
      .respond(new AIMessage({ content: "Paris.", usage_metadata: { input_tokens: 180, output_tokens: 3, total_tokens: 183 } }));
    const agent = createAgent({ model, tools: TOOLS, middleware: [createReinsMiddleware({ metrics: telemetry.otel })] });
    expect((await agent.invoke(input("Capital of France?"))).stopReason).toBe("final_answer");
    const tokens = histogram(await metricsByName(telemetry.reader), GEN_AI_METRICS.tokenUsage);
    expect(sumWhere(tokens, { "gen_ai.token.type": "input", "reins.tokens.estimated": false })).toBe(300);
    expect(sumWhere(tokens, { "gen_ai.token.type": "output", "reins.tokens.estimated": false })).toBe(18);
    const [run] = spansNamed(telemetry.exporter.getFinishedSpans(), "invoke_agent");
    expect(run.attributes["gen_ai.usage.input_tokens"]).toBe(300);
    expect(run.attributes["gen_ai.usage.output_tokens"]).toBe(18);
  });

  it("emits an invoke_agent span with one child execute_tool span per call; the failed call has error.type and an error status", async () => {
    await answeredRun();
    const spans = telemetry.exporter.getFinishedSpans();
    expect(telemetry.otel.openRuns).toBe(0);
    const runs = spansNamed(spans, "invoke_agent ");
    expect(runs.map((span) => span.name)).toEqual(["invoke_agent support_agent"]);
    const [run] = runs;
    expect(run.attributes["gen_ai.operation.name"]).toBe("invoke_agent");
    expect(run.attributes["reins.stop_reason"]).toBe("final_answer");
    expect(run.attributes["reins.tool.calls"]).toBe(2);
    expect(run.status.code).not.toBe(SpanStatusCode.ERROR);

    const calls = spansNamed(spans, "execute_tool ");
    expect(calls.map((span) => span.name).sort()).toEqual(["execute_tool crm_lookup", "execute_tool search"]);
    for (const call of calls) {
      expect(call.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
      expect(call.spanContext().traceId).toBe(run.spanContext().traceId);
      expect(call.attributes["reins.run.id"]).toBe(run.attributes["reins.run.id"]);
    }
    const failed = calls.find((span) => span.name === "execute_tool crm_lookup");
    expect(failed?.attributes["gen_ai.tool.name"]).toBe("crm_lookup");
    expect(failed?.attributes["error.type"]).toBe("CrmUnauthorizedError");
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    const ok = calls.find((span) => span.name === "execute_tool search");
    expect(ok?.attributes["error.type"]).toBeUndefined();
    expect(ok?.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it("puts reins.stop_reason repeat on the span and the histogram of a run the repeat detector stopped, with its loop detections", async () => {
    const model = fakeModel();
    for (let index = 0; index < 6; index += 1) model.respondWithTools([{ name: "search", args: { query: "same" }, id: `call_${index}` }]);
    model.respond(new AIMessage("never reached"));
    const agent = createAgent({ model, tools: TOOLS, middleware: [createReinsMiddleware({ metrics: telemetry.otel })] });
    const result = await agent.invoke(input("loop"));
    expect(result.stopReason).toBe("repeat");

    const runs = histogram(await metricsByName(telemetry.reader), GEN_AI_METRICS.invokeAgentDuration);
    expect(countWhere(runs, { "reins.stop_reason": "repeat" })).toBe(1);
    expect(countWhere(runs, { "reins.stop_reason": "final_answer" })).toBe(0);

    const spans = telemetry.exporter.getFinishedSpans();
    const [run] = spansNamed(spans, "invoke_agent ");
    expect(run.attributes["reins.stop_reason"]).toBe("repeat");
    expect(run.attributes["reins.run.status"]).toBe("stopped");
    expect(run.events.filter((event) => event.name === "reins.loop_detection").map((event) => event.attributes?.["reins.loop.kind"])).toContain("repeat");
    expect(run.events.find((event) => event.name === "reins.stop")?.attributes?.["reins.stop_reason"]).toBe("repeat");
    // Default repeat detector: the same call with the same result runs 3 times; the 4th is refused (not run).
    const calls = spansNamed(spans, "execute_tool ");
    expect(calls).toHaveLength(3);
    for (const call of calls) expect(call.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(telemetry.otel.openRuns).toBe(0);
  });

  it("records the run's input and output messages on invoke_agent with captureContent (GenAI JSON: role + parts)", async () => {
    await telemetry.shutdown();
    telemetry = createTelemetry(true);
    await answeredRun();
    const [run] = spansNamed(telemetry.exporter.getFinishedSpans(), "invoke_agent");
    expect(JSON.parse(String(run.attributes["gen_ai.input.messages"]))).toEqual([{ role: "user", parts: [{ type: "text", content: "Capital of France, and who is c-9?" }] }]);
    expect(JSON.parse(String(run.attributes["gen_ai.output.messages"]))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "Paris; the CRM could not be reached." }], finish_reason: "stop" },
    ]);
  });

  it("records tool arguments and results on execute_tool only with captureContent", async () => {
    const contentKeys = ["gen_ai.tool.call.arguments", "gen_ai.tool.call.result"];
    await answeredRun();
    for (const span of telemetry.exporter.getFinishedSpans()) for (const key of contentKeys) expect(span.attributes[key]).toBeUndefined();
    await telemetry.shutdown();

    telemetry = createTelemetry(true);
    await answeredRun();
    const searchSpan = telemetry.exporter.getFinishedSpans().find((span) => span.name === "execute_tool search");
    expect(JSON.parse(String(searchSpan?.attributes["gen_ai.tool.call.arguments"]))).toEqual({ query: "capital of France" });
    expect(String(searchSpan?.attributes["gen_ai.tool.call.result"])).toContain("Paris is the capital of France");
  });

  it("keeps two concurrent runs' tool spans under their own invoke_agent span", async () => {
    const agentFor = (query: string) =>
      createAgent({
        model: fakeModel().respondWithTools([{ name: "search", args: { query }, id: `call_${query}` }]).respond(new AIMessage(`Done ${query}.`)),
        tools: TOOLS,
        middleware: [middleware],
      });
    const middleware = createReinsMiddleware({ metrics: telemetry.otel });
    await Promise.all([agentFor("a").invoke(input("a")), agentFor("b").invoke(input("b"))]);
    const spans = telemetry.exporter.getFinishedSpans();
    const runs = spansNamed(spans, "invoke_agent ");
    expect(runs).toHaveLength(2);
    expect(new Set(runs.map((span) => span.spanContext().traceId)).size).toBe(2);
    for (const run of runs) {
      const children = spans.filter((span) => span.parentSpanContext?.spanId === run.spanContext().spanId && span.name.startsWith("execute_tool "));
      expect(children).toHaveLength(1);
      expect(children[0].attributes["reins.run.id"]).toBe(run.attributes["reins.run.id"]);
    }
  });
});
