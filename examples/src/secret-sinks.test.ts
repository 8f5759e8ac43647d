/**
 * Issue 33's done-when as one table: every common secret shape (packages/testing/src/secret-shapes.ts),
 * planted at once in the question, a tool input, a tool result, a tool error and the answer, on
 * both agent paths (createReactAgent + AgentExecutor; createAgent + createReinsMiddleware), reaches
 * none of the sinks: the audit trail, the trace page (text and HTML), OpenTelemetry with content
 * capture on and off (attributes, span events, span status), `onEvent`, the ToolExecutor's logger,
 * Prometheus, and the result-cache store's keys. The tool error the model reads is redacted too.
 * LangChain 1.x only (createAgent does not exist on 0.3: skipped there, by name).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicTool, tool } from "@langchain/core/tools";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { REACT_PROMPT_TEMPLATE, combineRecorders, type ReinsEvent } from "@reins/core";
import { readAuditTrail, renderTimelineHtml, renderTimelineText } from "@reins/loop-control";
import { createAgentMetrics } from "@reins/metrics";
import { createOtelRecorder } from "@reins/otel";
import { SECRET_SHAPES, ScriptedChatModel, leakedFragments, type SecretShape } from "@reins/testing";
import type { CachedToolResult, ToolResultStore } from "@reins/tool-executor";
import { Registry } from "prom-client";
import { z } from "zod/v4";
import { createTestSdk, type TestSdk } from "../../packages/otel/src/__fixtures__/otel-sdk";

const line03 = process.env.REINS_LANGCHAIN_LINE === "0.3";

/** Everything that left Reins in one run, by sink, as text. */
interface Sinks {
  readonly audit: string;
  readonly tracePage: string;
  readonly otelCaptureOn: string;
  readonly otelCaptureOff: string;
  readonly onEvent: string;
  readonly logger: string;
  readonly prometheus: string;
  readonly storeKeys: string;
  /** What the model read for the failing tool call. */
  readonly toolErrorToModel: string;
}

/** Errors as their message, stack and own fields (a JSON.stringify of an Error is `{}`). */
function serialize(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (item instanceof Error ? { ...item, name: item.name, message: item.message, stack: item.stack, cause: item.cause } : typeof item === "bigint" ? String(item) : item));
}

function spanText(spans: readonly ReadableSpan[]): string {
  return serialize(spans.map((span) => ({ name: span.name, attributes: span.attributes, status: span.status, events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })) })));
}

/** The sinks one run writes to, set up fresh. */
function createSinks() {
  const registry = new Registry();
  const sdkOn: TestSdk = createTestSdk();
  const sdkOff: TestSdk = createTestSdk();
  const recorder = combineRecorders([
    createAgentMetrics({ registry }),
    createOtelRecorder({ meterProvider: sdkOn.meterProvider, tracerProvider: sdkOn.tracerProvider, captureContent: true }),
    createOtelRecorder({ meterProvider: sdkOff.meterProvider, tracerProvider: sdkOff.tracerProvider, captureContent: false }),
  ]);
  const auditRecords: unknown[] = [];
  const events: ReinsEvent[] = [];
  const logLines: unknown[] = [];
  const keys: string[] = [];
  const entries = new Map<string, CachedToolResult>();
  const store: ToolResultStore = {
    get: (key) => (keys.push(key), entries.get(key)),
    set: (key, entry) => void (keys.push(key), entries.set(key, entry)),
  };
  const logger = Object.fromEntries(["debug", "info", "warn", "error"].map((level) => [level, (...args: unknown[]) => void logLines.push(args)]));
  const toolExecutor = { logger, defaults: { retry: false as const }, policies: { lookup: { cache: { ttlMs: 60_000, scope: "global" as const, store } } } };
  const collect = async (toolErrorToModel: string): Promise<Sinks> => {
    const jsonl = auditRecords.map((record) => JSON.stringify(record)).join("\n");
    const trail = readAuditTrail(jsonl);
    const sinks: Sinks = {
      audit: jsonl,
      tracePage: `${renderTimelineText(trail)}\n${renderTimelineHtml(trail)}`,
      otelCaptureOn: spanText(sdkOn.exporter.getFinishedSpans()),
      otelCaptureOff: spanText(sdkOff.exporter.getFinishedSpans()),
      onEvent: serialize(events),
      logger: serialize(logLines),
      prometheus: await registry.metrics(),
      storeKeys: keys.join("\n"),
      toolErrorToModel,
    };
    await sdkOn.shutdown();
    await sdkOff.shutdown();
    // The sinks were written to at all (a test over empty sinks would pass for nothing).
    expect(auditRecords.length).toBeGreaterThan(0);
    expect(events.length).toBeGreaterThan(0);
    expect(logLines.length).toBeGreaterThan(0);
    expect(keys.length).toBeGreaterThan(0);
    expect(sinks.otelCaptureOn).toContain("execute_tool");
    return sinks;
  };
  return { recorder, auditSink: (record: unknown) => void auditRecords.push(record), onEvent: (event: ReinsEvent) => void events.push(event), toolExecutor, collect };
}

const planted = (shape: SecretShape) => ({
  question: `My credential is: ${shape.text}\nWhat is it for?`,
  toolInput: `check ${shape.text}`,
  toolResult: `found:\n${shape.text}\n(end)`,
  toolError: `upstream rejected ${shape.text}`,
  answer: `It is ${shape.text} .`,
});

async function runClassic(shape: SecretShape): Promise<Sinks> {
  const { AgentExecutor } = await import("@langchain/classic/agents");
  const { createReactAgent } = await import("@reins/react-agent");
  const texts = planted(shape);
  const sinks = createSinks();
  const lookup = new DynamicTool({ name: "lookup", description: "Looks a credential up.", func: async () => texts.toolResult });
  const failing = new DynamicTool({ name: "verify", description: "Verifies a credential.", func: async () => {
    throw new Error(texts.toolError);
  } });
  const llm = new ScriptedChatModel({
    replies: [`Thought: look it up.\nAction: lookup\nAction Input: ${texts.toolInput}`, "Thought: verify it.\nAction: verify\nAction Input: now", `Final Answer: ${texts.answer}`],
  });
  const agent = await createReactAgent({
    llm,
    tools: [lookup, failing],
    prompt: PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE),
    metrics: sinks.recorder,
    onEvent: sinks.onEvent,
    toolExecutor: sinks.toolExecutor,
    loopControl: { audit: { sink: sinks.auditSink } },
  });
  const result = await new AgentExecutor({ agent, tools: agent.tools, returnIntermediateSteps: true }).invoke({ input: texts.question });
  const steps = result.intermediateSteps as Array<{ action: { tool: string }; observation: string }>;
  const toolError = steps.filter((step) => step.action.tool === "verify").map((step) => step.observation);
  expect(toolError).toHaveLength(1);
  // The model's next prompt holds the same failure text.
  expect(llm.prompts.at(-1)).toContain(toolError[0]);
  return sinks.collect(toolError.join("\n"));
}

async function runCreateAgent(shape: SecretShape): Promise<Sinks> {
  const { AIMessage, HumanMessage, ToolMessage } = await import("@langchain/core/messages");
  const { fakeModel } = await import("@langchain/core/testing");
  const { createAgent } = await import("langchain");
  const { createReinsMiddleware } = await import("@reins/agent-middleware");
  const texts = planted(shape);
  const sinks = createSinks();
  const lookup = tool(async () => texts.toolResult, { name: "lookup", description: "Looks a credential up.", schema: z.object({ query: z.string() }) });
  const failing = tool(
    async () => {
      throw new Error(texts.toolError);
    },
    { name: "verify", description: "Verifies a credential.", schema: z.object({ query: z.string() }) },
  );
  const model = fakeModel()
    .respond(new AIMessage({ content: "", tool_calls: [{ name: "lookup", args: { query: texts.toolInput }, id: "call_lookup", type: "tool_call" }] }))
    .respond(new AIMessage({ content: "", tool_calls: [{ name: "verify", args: { query: "now" }, id: "call_verify", type: "tool_call" }] }))
    .respond(new AIMessage(texts.answer));
  const agent = createAgent({
    model,
    tools: [lookup, failing],
    middleware: [createReinsMiddleware({ metrics: sinks.recorder, onEvent: sinks.onEvent, toolExecutor: sinks.toolExecutor, audit: { sink: sinks.auditSink } })],
  });
  const { messages } = (await agent.invoke({ messages: [new HumanMessage(texts.question)] })) as { messages: BaseMessage[] };
  const toolError = messages.filter((message) => ToolMessage.isInstance(message) && (message as InstanceType<typeof ToolMessage>).tool_call_id === "call_verify");
  expect(toolError).toHaveLength(1);
  return sinks.collect(String(toolError[0]?.content));
}

const SINK_NAMES: ReadonlyArray<keyof Sinks> = ["audit", "tracePage", "otelCaptureOn", "otelCaptureOff", "onEvent", "logger", "prometheus", "storeKeys", "toolErrorToModel"];

(line03 ? describe.skip : describe)("secrets in every sink, both agent paths (LangChain 1.x only: createAgent does not exist on 0.3)", () => {
  describe.each([
    ["createReactAgent + AgentExecutor", runClassic],
    ["createAgent + createReinsMiddleware", runCreateAgent],
  ] as const)("on %s", (_path, run) => {
    it.each(SECRET_SHAPES.map((shape) => [shape.shape, shape] as const))("leaks no %s planted in the question, tool input, tool result, tool error and answer", async (_name, shape) => {
      const sinks = await run(shape);
      const leaks = SINK_NAMES.flatMap((sink) => leakedFragments(sinks[sink], [shape]).map((leak) => `${sink}: ${leak}`));
      expect(leaks).toEqual([]);
      // The redaction is visible where content is kept, never silent.
      expect(sinks.otelCaptureOn).toContain("[redacted ");
      expect(sinks.toolErrorToModel).toContain("[redacted ");
    });
  });
});
