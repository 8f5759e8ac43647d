import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { DynamicTool } from "@langchain/core/tools";
import { RunContextStore, type ReinsEvent, type ReinsEventRecorder } from "@reins/core";
import { ToolExecutor } from "./index";

class NoopHandler extends BaseCallbackHandler {
  name = "noop";
}

function failingTool(): DynamicTool {
  return new DynamicTool({
    name: "parcel",
    description: "Tracks a parcel.",
    func: async () => {
      throw Object.assign(new Error("upstream unavailable"), { status: 503 });
    },
  });
}

function setUp(recorder: ReinsEventRecorder, circuitBreaker: { failureThreshold: number; halfOpenAfterMs: number } | false = false) {
  const store = new RunContextStore();
  store.start("run-1");
  store.link("tool-run-1", "run-1");
  const [wrapped] = new ToolExecutor({
    runContext: store,
    metrics: recorder,
    defaults: { retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 1, jitter: "none" }, circuitBreaker },
  }).wrap([failingTool()]);
  return wrapped;
}

describe("ToolExecutor events", () => {
  describe("of a call inside a run", () => {
    it("carry the run id on the retry and circuit events, and the breaker's wait on the open event", async () => {
      const events: ReinsEvent[] = [];
      await setUp({ record: (event) => events.push(event) }).invoke("ZX-1", { runId: "tool-run-1", callbacks: [new NoopHandler()] });
      const retry = events.find((event) => event.type === "tool_retry");
      expect(retry).toMatchObject({ type: "tool_retry", toolName: "parcel", attempt: 2, runId: "run-1" });
      // A breaker that opens on the first failure (no retry is tried against an open circuit).
      await setUp({ record: (event) => events.push(event) }, { failureThreshold: 1, halfOpenAfterMs: 30_000 }).invoke("ZX-1", {
        runId: "tool-run-1",
        callbacks: [new NoopHandler()],
      });
      const open = events.find((event) => event.type === "circuit_state");
      expect(open).toEqual({ type: "circuit_state", toolName: "parcel", state: "open", halfOpenAfterMs: 30_000, runId: "run-1" });
    });

    it("put the tool input and observation on tool_call only for a recorder that asks for content", async () => {
      const plain: ReinsEvent[] = [];
      await setUp({ record: (event) => plain.push(event) }).invoke("ZX-1", { runId: "tool-run-1", callbacks: [new NoopHandler()] });
      const withoutContent = plain.find((event) => event.type === "tool_call");
      expect(withoutContent).toBeDefined();
      expect(withoutContent).not.toHaveProperty("toolInput");
      expect(withoutContent).not.toHaveProperty("observation");

      const rich: ReinsEvent[] = [];
      await setUp({ record: (event) => rich.push(event), captureContent: true }).invoke("ZX-1", { runId: "tool-run-1", callbacks: [new NoopHandler()] });
      const withContent = rich.find((event) => event.type === "tool_call");
      expect(withContent).toMatchObject({ toolInput: "ZX-1", observation: expect.stringContaining("parcel") });
    });
  });
});
