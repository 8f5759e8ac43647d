// The swap without callbacks under load (integration suite: a 1 000-run load test per executor
// path). Each reply comes after a seeded pause on jest's fake timers, so the runs interleave the same
// way on every run of the test, on a quiet machine or a loaded one.
import { AgentExecutor } from "@langchain/classic/agents";
import { PromptTemplate } from "@langchain/core/prompts";
import { REACT_PROMPT_TEMPLATE, type ReinsEvent } from "@reins/core";
import { seededRandom, settleWithFakeTimers } from "@reins/testing";
import { createReactAgent } from "./index";
import { addTool, capitalTool, PATHS, RUN_KIND_STOP_REASONS, RUN_KINDS, runOn, scriptedByPromptModel, seededPause } from "./__fixtures__/scripted-runs";

const REACT_PROMPT = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);

describe("createReactAgent under load, without callbacks", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  describe.each(PATHS)("with 1 000 concurrent executor.%s calls on one agent", (path) => {
    it("keeps every run's loop state apart: each run gets the outcome of its own script", async () => {
      const events: ReinsEvent[] = [];
      const agent = await createReactAgent({
        llm: scriptedByPromptModel(seededPause(seededRandom(1_000), 3)),
        tools: [capitalTool(), addTool()],
        prompt: REACT_PROMPT,
        onEvent: (event) => {
          if (event.type === "run_start" || event.type === "run_end") events.push(event);
        },
      });
      const executor = new AgentExecutor({ agent, tools: agent.tools });
      const runs = Array.from({ length: 1_000 }, (_, index) => `run-${index} ${RUN_KINDS[index % RUN_KINDS.length]}`);
      const { value: results } = await settleWithFakeTimers(Promise.all(runs.map((input) => runOn(executor, input, path))), { stepMs: 1 });
      results.forEach((result, index) => {
        const kind = RUN_KINDS[index % RUN_KINDS.length];
        expect(result.stopReason).toBe(RUN_KIND_STOP_REASONS[kind]);
        if (kind === "answer") expect(result.output).toBe(`Tokyo for run-${index}`);
        if (kind === "garbled") expect(result.output).toBe(`nothing for run-${index}`);
        if (kind === "repeat") {
          expect(result.output).toContain("- capital(France): Paris");
          expect((result.findings as unknown[]).length).toBe(3);
        }
        if (kind === "cycle") expect(result.output).toContain("- capital(Germany): Berlin");
      });
      expect(events.filter((event) => event.type === "run_start")).toHaveLength(1_000);
      expect(new Set(events.filter((event) => event.type === "run_end").map((event) => event.runId)).size).toBe(1_000);
      // streamEvents runs LangChain's event-stream tracer per run: on the 0.3 line, 1 000 of them at
      // once take minutes on a loaded 2-core machine.
    }, 600_000);
  });
});
