import type { AgentAction, AgentStep } from "@langchain/core/agents";
import { AIMessage } from "@langchain/core/messages";
import type { ReinsEvent } from "@reins/core";
import type { LoopAuditRecord } from "./audit";
import { renderLoopNote } from "./messages";
import { TrajectoryLoopControl } from "./trajectory-loop-control";

function action(tool: string, toolInput: string, thought = `use ${tool}`): AgentAction {
  return { tool, toolInput, log: `Thought: ${thought}\nAction: ${tool}\nAction Input: ${toolInput}` };
}

describe("TrajectoryLoopControl", () => {
  describe("pricing a dated model name", () => {
    const prices = { "gpt-4o-mini": { inputUsdPerMillionTokens: 0.15, outputUsdPerMillionTokens: 0.6 } };
    const usage = { input_tokens: 1_000_000, output_tokens: 0, total_tokens: 1_000_000 };

    it.each([
      ["reported by the provider", { model_name: "gpt-4o-mini-2024-07-18" }, undefined],
      ["requested by the agent (the reply reports none)", {}, "gpt-4o-mini-2024-07-18"],
    ])("prices a dated name %s like its base entry, so maxCostUsd stops the run", (_how, metadata, requested) => {
      const loop = new TrajectoryLoopControl({ prices, maxCostUsd: 0.1, mode: "finish" });
      const steps: AgentStep[] = [];
      const run = loop.runOf(steps);
      loop.modelReplied(run, new AIMessage({ content: "x", usage_metadata: usage, response_metadata: metadata }), () => "", 1, requested);
      expect(run.costUsd).toBeCloseTo(0.15, 10);
      const chosen = action("search", "a");
      loop.actionChosen(run, chosen);
      steps.push({ action: chosen, observation: "A" });
      expect(loop.beforePlan(run, steps)?.reason).toBe("cost_budget");
    });
  });

  describe("finding a run from its trajectory", () => {
    it("keeps one run across invoke()'s reused steps array and stream()'s new arrays of the same steps", () => {
      const loop = new TrajectoryLoopControl();
      const steps: AgentStep[] = [];
      const run = loop.runOf(steps);
      const first = action("search", "a");
      loop.actionChosen(run, first);
      steps.push({ action: first, observation: "A" });
      expect(loop.runOf(steps)).toBe(run);
      // stream(): a new array each step, holding the same step objects.
      const copy = [...steps];
      expect(loop.runOf(copy)).toBe(run);
      const other = loop.runOf([]);
      expect(other).not.toBe(run);
      expect(other.runId).not.toBe(run.runId);
    });

    it("adopts the first call's state for a run whose first reply was rejected on stream()", () => {
      let now = 1_000;
      const loop = new TrajectoryLoopControl({ now: () => now });
      const run = loop.runOf([]);
      loop.rejectedFirstReply(run, "Use Action:", "garbled");
      now = 5_000;
      const exceptionStep: AgentStep = { action: { tool: "_Exception", toolInput: "Use Action:", log: "garbled" }, observation: "Use Action:" };
      const found = loop.runOf([exceptionStep]);
      expect(found).toBe(run);
      expect(found.startedAtMs).toBe(1_000);
      // Adopted once: an unrelated trajectory with the same text is a new run.
      expect(loop.runOf([{ ...exceptionStep, action: { ...exceptionStep.action } }])).not.toBe(run);
    });

    it("never lets a stream() run adopt the first call of an invoke() run that found its own state", () => {
      let now = 1_000;
      const loop = new TrajectoryLoopControl({ now: () => now, maxDurationMs: 60_000 });
      const invokeSteps: AgentStep[] = [];
      const invokeRun = loop.runOf(invokeSteps);
      loop.rejectedFirstReply(invokeRun, "Use Action:", "garbled");
      invokeSteps.push({ action: { tool: "_Exception", toolInput: "Use Action:", log: "garbled" }, observation: "Use Action:" });
      expect(loop.runOf(invokeSteps)).toBe(invokeRun);
      now = 120_000;
      const streamRun = loop.runOf([{ action: { tool: "_Exception", toolInput: "Use Action:", log: "garbled" }, observation: "Use Action:" }]);
      expect(streamRun).not.toBe(invokeRun);
      expect(loop.beforePlan(streamRun, [])).toBeUndefined();
    });
  });

  describe("on a repeated action", () => {
    it("runs the call after two equal results with a typed note after its observation, then stops the 4th call before it runs", () => {
      const audit: LoopAuditRecord[] = [];
      const loop = new TrajectoryLoopControl({ audit: { sink: (record) => audit.push(record) } });
      const steps: AgentStep[] = [];
      const run = loop.runOf(steps);
      const calls = [action("search", "a"), action("search", "a"), action("search", "a"), action("search", "a")];
      expect(loop.beforePlan(run, steps)).toBeUndefined();
      for (const call of calls.slice(0, 2)) {
        expect(loop.actionChosen(run, call).stop).toBeUndefined();
        expect(loop.notesOf(run, call)).toEqual([]);
        steps.push({ action: call, observation: "A" });
        expect(loop.beforePlan(run, steps)).toBeUndefined();
      }
      expect(loop.actionChosen(run, calls[2]).stop).toBeUndefined();
      const notes = loop.notesOf(run, calls[2]);
      expect(notes).toEqual([{ kind: "repeat", toolName: "search", count: 2, previousObservation: "A" }]);
      expect(renderLoopNote(notes[0])).toContain("You already called search with this input twice. It returned: A");
      steps.push({ action: calls[2], observation: "A" });
      expect(loop.beforePlan(run, steps)).toBeUndefined();
      const verdict = loop.actionChosen(run, calls[3]);
      expect(verdict.stop).toMatchObject({ reason: "repeat" });
      loop.finished(run, "repeat", "");
      expect(audit.map((record) => record.outcome)).toEqual(["observed", "observed", "warned", "stopped", "finish"]);
      // Numbered consecutively: the refused step keeps its number, the finish comes after it.
      expect(audit.map((record) => record.step)).toEqual([1, 2, 3, 4, 5]);
      expect(audit[audit.length - 1]).toMatchObject({ stopReason: "repeat", step: 5 });
    });

    it("never stops a polled call whose result changes (job_status until done)", () => {
      const loop = new TrajectoryLoopControl();
      const steps: AgentStep[] = [];
      const run = loop.runOf(steps);
      for (const status of ["queued", "running", "running", "running 90%", "done"]) {
        expect(loop.beforePlan(run, steps)).toBeUndefined();
        const call = action("job_status", "42", "check the job again");
        expect(loop.actionChosen(run, call).stop).toBeUndefined();
        steps.push({ action: call, observation: status });
      }
      expect(loop.beforePlan(run, steps)).toBeUndefined();
    });
  });

  describe("on the step budget", () => {
    it("lets the step that reaches maxSteps run and stops at the next planning call", () => {
      const loop = new TrajectoryLoopControl({ maxSteps: 2, budgetWarnRatio: 1 });
      const steps: AgentStep[] = [];
      const run = loop.runOf(steps);
      for (const input of ["a", "b"]) {
        expect(loop.beforePlan(run, steps)).toBeUndefined();
        const chosen = action("search", input);
        expect(loop.actionChosen(run, chosen).stop).toBeUndefined();
        steps.push({ action: chosen, observation: input.toUpperCase() });
      }
      expect(loop.beforePlan(run, steps)).toMatchObject({ reason: "max_steps" });
    });
  });

  describe("on the time budget", () => {
    it("stops between steps, before the next model call, once the run's time is up", () => {
      let now = 0;
      const loop = new TrajectoryLoopControl({ now: () => now, maxDurationMs: 10_000, budgetWarnRatio: 1 });
      const steps: AgentStep[] = [];
      const run = loop.runOf(steps);
      const chosen = action("search", "a");
      loop.actionChosen(run, chosen);
      now = 12_000; // the tool took the rest of the budget
      steps.push({ action: chosen, observation: "A" });
      expect(loop.beforePlan(run, steps)).toMatchObject({ reason: "time_budget" });
    });
  });

  describe("on token usage", () => {
    it("counts the reply's usage_metadata, emits token_usage, and stops on the token budget", () => {
      const events: ReinsEvent[] = [];
      const loop = new TrajectoryLoopControl({ maxTokens: 100, onEvent: (event) => events.push(event) });
      const steps: AgentStep[] = [];
      const run = loop.runOf(steps);
      const reply = new AIMessage({ content: "x", usage_metadata: { input_tokens: 90, output_tokens: 20, total_tokens: 110 } });
      loop.modelReplied(run, reply, () => "never built", 5);
      expect(events.find((event) => event.type === "token_usage")).toMatchObject({ inputTokens: 90, outputTokens: 20, estimated: false });
      const verdict = loop.actionChosen(run, action("search", "a"));
      expect(verdict.stop).toMatchObject({ reason: "token_budget" });
    });

    it("estimates from the prompt and reply text when the reply reports no usage", () => {
      const events: ReinsEvent[] = [];
      const loop = new TrajectoryLoopControl({ onEvent: (event) => events.push(event) });
      const run = loop.runOf([]);
      loop.modelReplied(run, "12345678", () => "1234", 1);
      expect(events.find((event) => event.type === "token_usage")).toMatchObject({ inputTokens: 1, outputTokens: 2, estimated: true });
    });
  });

  describe("when the run ends", () => {
    it("emits run_end once with the status, and records each call's typed outcome", () => {
      const events: ReinsEvent[] = [];
      const audit: LoopAuditRecord[] = [];
      const loop = new TrajectoryLoopControl({ onEvent: (event) => events.push(event), audit: { sink: (record) => audit.push(record) } });
      const steps: AgentStep[] = [];
      const run = loop.runOf(steps);
      const chosen = action("search", "a");
      loop.actionChosen(run, chosen);
      steps.push({ action: chosen, observation: "Tool failed" });
      loop.beforePlan(run, steps, () => true);
      loop.finished(run, "final_answer", "Thought: done\nFinal Answer: x");
      loop.finished(run, "final_answer", "again");
      expect(events.filter((event) => event.type === "run_end")).toEqual([expect.objectContaining({ status: "success", stopReason: "final_answer" })]);
      expect(audit.map((record) => record.outcome)).toEqual(["tool_error", "finish"]);
      expect(audit[1].thought).toBe("done");
    });
  });
});
