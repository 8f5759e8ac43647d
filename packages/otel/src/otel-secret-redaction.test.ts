import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { createTestSdk, type TestSdk } from "./__fixtures__/otel-sdk";
import { createOtelRecorder, OtelRecorderOptionsError, type OtelRecorderOptions } from "./index";

// Built at run time so no secret-looking literal sits in the source.
const OPENAI_KEY = `sk-${"aB3dE5fG7hJ9kL1m".repeat(3)}`;
const BEARER_TOKEN = "x7Yz".repeat(8);
const GOOGLE_KEY = `AIza${"Sy0123456789abcdefghijklmnopqrstuvwxyz".slice(0, 35)}`;

function recordRun(telemetry: TestSdk, options: OtelRecorderOptions): ReadableSpan[] {
  const otel = createOtelRecorder({ meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider, captureContent: true, ...options });
  otel.record({ type: "run_start", runId: "r1", input: `use key ${OPENAI_KEY}` });
  otel.record({ type: "tool_call", runId: "r1", toolName: "fetch", toolInput: { headers: { Authorization: `Bearer ${BEARER_TOKEN}` } }, outcome: "success", durationMs: 5, observation: `?key=${GOOGLE_KEY}` } as never);
  otel.record({ type: "run_end", runId: "r1", status: "success", stopReason: "final_answer", durationMs: 10, output: `done with ${OPENAI_KEY}` } as never);
  return telemetry.exporter.getFinishedSpans();
}

describe("createOtelRecorder", () => {
  describe("with captureContent and secrets in the content", () => {
    let telemetry: TestSdk;
    beforeEach(() => {
      telemetry = createTestSdk();
    });
    afterEach(async () => {
      await telemetry.shutdown();
    });

    it("redacts them from every content attribute by default and notes it on the span", () => {
      const spans = recordRun(telemetry, {});
      const everything = JSON.stringify(spans.map((span) => [span.attributes, span.events]));
      for (const secret of [OPENAI_KEY, BEARER_TOKEN, GOOGLE_KEY]) expect(everything).not.toContain(secret);
      const tool = spans.find((span) => span.name === "execute_tool fetch") as ReadableSpan;
      expect(String(tool.attributes["gen_ai.tool.call.arguments"])).toContain("Bearer [redacted authorization]");
      expect(tool.attributes["gen_ai.tool.call.result"]).toBe("?key=[redacted google_api_key]");
      const toolRedaction = tool.events.find((event) => event.name === "reins.secret_redaction");
      expect(toolRedaction?.attributes).toEqual({ "reins.secret.kinds": ["authorization", "google_api_key"], "reins.secret.count": 2 });
      const run = spans.find((span) => span.name.startsWith("invoke_agent")) as ReadableSpan;
      expect(String(run.attributes["gen_ai.input.messages"])).toContain("use key [redacted openai_api_key]");
      expect(String(run.attributes["gen_ai.output.messages"])).toContain("done with [redacted openai_api_key]");
      expect(run.events.filter((event) => event.name === "reins.secret_redaction")).toHaveLength(2);
    });

    it("records them verbatim only with secretRedaction: false", () => {
      const spans = recordRun(telemetry, { secretRedaction: false });
      const tool = spans.find((span) => span.name === "execute_tool fetch") as ReadableSpan;
      expect(tool.attributes["gen_ai.tool.call.result"]).toBe(`?key=${GOOGLE_KEY}`);
      expect(tool.events.some((event) => event.name === "reins.secret_redaction")).toBe(false);
    });
  });

  describe("with an invalid secretRedaction", () => {
    it("throws OtelRecorderOptionsError naming the field", () => {
      expect(() => createOtelRecorder({ secretRedaction: { enabled: "yes" } as never })).toThrow(OtelRecorderOptionsError);
      expect(() => createOtelRecorder({ secretRedaction: { enabled: "yes" } as never })).toThrow(expect.objectContaining({ field: "secretRedaction" }));
    });
  });
});
