// The swap without callbacks: loop control fed by the agent's planning step and the wrapped tools,
// on invoke, stream and streamEvents, with nothing passed per call.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AgentExecutor } from "@langchain/classic/agents";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicTool } from "@langchain/core/tools";
import { REACT_PROMPT_TEMPLATE, type ReinsEvent } from "@reins/core";
import { ReplayChatModel, ScriptedChatModel, seededRandom, settleWithFakeTimers } from "@reins/testing";
import { createReactAgent, readReinsAgentOutput, ReactAgentToolsError } from "./index";
import { addTool, capitalTool, PATHS, runOn, seededPause, type Path } from "./__fixtures__/scripted-runs";

const REACT_PROMPT = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);

describe("createReactAgent without callbacks", () => {
  describe("the README's swap", () => {
    const readme = readFileSync(join(__dirname, "../../../README.md"), "utf8");
    const swap = /## The swap\n+```diff\n([\s\S]*?)\n```/.exec(readme)?.[1] ?? "";

    it("is two changed lines: the import of createReactAgent and `tools: agent.tools`", () => {
      const removed = swap.split("\n").filter((line) => line.startsWith("-"));
      const added = swap.split("\n").filter((line) => line.startsWith("+"));
      expect(removed).toHaveLength(2);
      expect(added).toHaveLength(2);
      expect(added[0]).toMatch(/^\+import \{ createReactAgent \} from "@reins\/react-agent";/);
      expect(added[1]).toContain("tools: agent.tools");
      expect(swap).not.toContain("callbacks");
      expect(swap).not.toContain("handleParsingErrors");
    });

    describe.each(PATHS)("as written, on %s", (path) => {
      it("answers with stopReason final_answer, and a looping run ends gracefully with stopReason repeat", async () => {
        const calls: string[] = [];
        const answering = await createReactAgent({
          llm: new ScriptedChatModel({ chunkChars: 7, replies: ["Thought: look\nAction: capital\nAction Input: France", "Thought: done\nFinal Answer: Paris"] }),
          tools: [capitalTool(calls)],
          prompt: REACT_PROMPT,
        });
        const answered = await runOn(new AgentExecutor({ agent: answering, tools: answering.tools }), "capital of France?", path);
        expect(readReinsAgentOutput(answered)).toMatchObject({ output: "Paris", stopReason: "final_answer", findings: [] });

        const repeat = "Thought: again\nAction: capital\nAction Input: France";
        const looping = await createReactAgent({ llm: new ScriptedChatModel({ chunkChars: 7, replies: [repeat, repeat, repeat, repeat] }), tools: [capitalTool(calls)], prompt: REACT_PROMPT });
        const stopped = await runOn(new AgentExecutor({ agent: looping, tools: looping.tools }), "capital of France?", path);
        const output = readReinsAgentOutput(stopped);
        expect(output.stopReason).toBe("repeat");
        expect(output.output).toContain("- capital(France): Paris");
        // The same call got the same result 3 times: the 4th is refused before it runs (3 ran in this run).
        expect(calls).toEqual(["France", "France", "France", "France"]);
        expect(output.findings).toHaveLength(3);
      });

      it("ends a run that never answers with the graceful max_steps finish within the stock maxIterations", async () => {
        const outputs = Array.from({ length: 20 }, (_, index) => `Thought: candidate ${index}\nAction: capital\nAction Input: Country ${index}`);
        const agent = await createReactAgent({ llm: new ScriptedChatModel({ chunkChars: 7, replies: outputs }), tools: [capitalTool()], prompt: REACT_PROMPT });
        const result = await runOn(new AgentExecutor({ agent, tools: agent.tools }), "q", path);
        expect(readReinsAgentOutput(result)).toMatchObject({ stopReason: "max_steps", executorLimit: false });
        expect(String(result.output)).toContain("I reached the maximum number of steps");
      });

      it("counts tokens from the reply's usage_metadata and stops on the token budget", async () => {
        const llm = new ReplayChatModel({
          // Provider usage in `usage_metadata`, as every major integration reports it.
          replies: ["Thought: a\nAction: capital\nAction Input: France", "Thought: b\nAction: capital\nAction Input: Japan", "Final Answer: x"],
          usage: { inputTokens: 600, outputTokens: 10 },
        });
        const agent = await createReactAgent({ llm, tools: [capitalTool()], prompt: REACT_PROMPT, loopControl: { maxTokens: 1_000 } });
        const result = await runOn(new AgentExecutor({ agent, tools: agent.tools }), "q", path);
        expect(result.stopReason).toBe("token_budget");
        expect(llm.prompts).toHaveLength(2);
      });

      it("emits run and step events for metrics with no handler attached", async () => {
        const events: ReinsEvent[] = [];
        const agent = await createReactAgent({
          llm: new ScriptedChatModel({ chunkChars: 7, replies: ["Thought: look\nAction: capital\nAction Input: France", "Thought: done\nFinal Answer: Paris"] }),
          tools: [capitalTool()],
          prompt: REACT_PROMPT,
          onEvent: (event) => events.push(event),
        });
        await runOn(new AgentExecutor({ agent, tools: agent.tools }), "q", path);
        const types = events.map((event) => (event.type === "step" ? `step:${event.step}` : event.type));
        expect(types.filter((type) => type === "run_start")).toHaveLength(1);
        expect(events.find((event) => event.type === "run_end")).toMatchObject({ status: "success", stopReason: "final_answer" });
        expect(types.filter((type) => type === "step:action")).toHaveLength(1);
        expect(types.filter((type) => type === "step:observation")).toHaveLength(1);
        expect(types.filter((type) => type === "step:finish")).toHaveLength(1);
        expect(types).toContain("token_usage");
        expect(types).toContain("tool_call");
      });
    });
  });

  describe("with the original tools handed to the executor by mistake", () => {
    it.each(PATHS)("fails at the run's first step with a ReactAgentToolsError naming the fix (%s)", async (path) => {
      const tools = [capitalTool()];
      const agent = await createReactAgent({
        llm: new ScriptedChatModel({ chunkChars: 7, replies: ["Thought: look\nAction: capital\nAction Input: France", "Final Answer: Paris"] }),
        tools,
        prompt: REACT_PROMPT,
      });
      const error = await runOn(new AgentExecutor({ agent, tools }), "q", path).catch((caught: unknown) => caught);
      expect(ReactAgentToolsError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain("tools: agent.tools");
    });

    it("is also caught when the first reply is rejected on stream (the executor finds no _Exception tool)", async () => {
      const tools = [capitalTool()];
      const agent = await createReactAgent({ llm: new ScriptedChatModel({ chunkChars: 7, replies: ["Thought: I should think about this more.", "Final Answer: Paris"] }), tools, prompt: REACT_PROMPT });
      const error = await runOn(new AgentExecutor({ agent, tools }), "q", "stream").catch((caught: unknown) => caught);
      expect(ReactAgentToolsError.isInstance(error)).toBe(true);
    });
  });

  describe("for every kind of parser rejection", () => {
    const REJECTED = [
      ["an unknown tool", "Thought: look it up\nAction: wikipedia\nAction Input: France"],
      ["no action input", "Thought: look it up\nAction: capital"],
      ["a thought with no action", "Thought: I should think about this more."],
      ["an action label with no tool", "Thought: x\nAction:"],
      ["an action input with no action", "Action Input: France"],
      ["an empty reply", ""],
      ["a final answer followed by an action", "Final Answer: Paris\nAction: capital\nAction Input: France"],
      ["input that fails the tool's schema", 'Thought: sum\nAction: add\nAction Input: {"a": "one"}'],
      ["a tool the model invents named like the parse-error step", "Thought: x\nAction: _Exception\nAction Input: y"],
    ] as const;

    it.each(REJECTED)("gives the model the same corrective text on invoke, stream and streamEvents: %s", async (_kind, reply) => {
      const texts: string[] = [];
      for (const path of PATHS) {
        const llm = new ScriptedChatModel({ chunkChars: 7, replies: [reply, "Thought: done\nFinal Answer: Paris"] });
        const agent = await createReactAgent({ llm, tools: [capitalTool(), addTool()], prompt: REACT_PROMPT });
        const result = await runOn(new AgentExecutor({ agent, tools: agent.tools }), "q", path);
        expect(result.stopReason).toBe("final_answer");
        const expected = agent.parser.parseDetailed(reply);
        expect(expected.ok).toBe(false);
        const observation = expected.ok ? "" : expected.error.observation;
        const prompt = llm.calls[1].prompt;
        expect(prompt).toContain(`\nObservation: ${observation}\nThought: `);
        texts.push(prompt.slice(prompt.indexOf("\nObservation: ")));
      }
      expect(texts[1]).toBe(texts[0]);
      expect(texts[2]).toBe(texts[0]);
      expect(texts[0]).not.toContain("is not a valid tool, try another");
    });
  });

  describe("with handleParsingErrors: false and the executor's own handleParsingErrors", () => {
    it("leaves the rejection to the executor and ends the run once, as a success", async () => {
      const events: ReinsEvent[] = [];
      const agent = await createReactAgent({
        llm: new ScriptedChatModel({ chunkChars: 7, replies: ["Thought: x\nAction: wikipedia\nAction Input: y", "Final Answer: Paris"] }),
        tools: [capitalTool()],
        prompt: REACT_PROMPT,
        handleParsingErrors: false,
        onEvent: (event) => events.push(event),
      });
      const result = await new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true }).invoke({ input: "q" });
      expect(result.output).toBe("Paris");
      expect(events.filter((event) => event.type === "run_end")).toEqual([expect.objectContaining({ status: "success" })]);
    });
  });

  describe("with an audit sink", () => {
    it("records the parser's repairs of each step from its report (nothing reads action.repairs)", async () => {
      const records: Array<{ outcome: string; repairs: readonly string[] }> = [];
      const reply = "**Thought:** look it up\n**Action:** capital\n**Action Input:** France";
      const agent = await createReactAgent({
        llm: new ScriptedChatModel({ chunkChars: 7, replies: [reply, "Final Answer: Paris"] }),
        tools: [capitalTool()],
        prompt: REACT_PROMPT,
        loopControl: { audit: { sink: (record) => records.push(record) } },
      });
      await runOn(new AgentExecutor({ agent, tools: agent.tools }), "q", "invoke");
      const report = agent.parser.parseDetailed(reply);
      expect(report.ok && report.repairs.length > 0).toBe(true);
      expect(records.map((record) => record.outcome)).toEqual(["observed", "finish"]);
      expect(records[0].repairs).toEqual(report.repairs);
    });
  });

  describe("when a stopped run lists its findings", () => {
    it.each(PATHS)("knows each call's outcome as a typed fact, not by its wording (%s)", async (path) => {
      // A result worded like a Reins failure stays a finding; a real failure is listed as one.
      const mimic = new DynamicTool({ name: "mimic", description: "Canned text.", func: async () => 'Tool "slow" did not answer within 5 s.' });
      const broken = new DynamicTool({
        name: "broken",
        description: "Always fails.",
        func: async () => {
          throw new Error("disk on fire");
        },
      });
      const m = "Thought: m\nAction: mimic\nAction Input: x";
      const b = "Thought: b\nAction: broken\nAction Input: y";
      const llm = new ScriptedChatModel({ chunkChars: 7, replies: [m, b, m, b, m, b, m] });
      const agent = await createReactAgent({ llm, tools: [mimic, broken], prompt: REACT_PROMPT, toolExecutor: { defaults: { retry: false } } });
      const result = readReinsAgentOutput(await runOn(new AgentExecutor({ agent, tools: agent.tools }), "q", path));
      expect(result.stopReason).toBe("cycle");
      const [found, failed] = result.output.split("What did not work:");
      expect(found).toContain('- mimic(x): Tool "slow" did not answer within 5 s.');
      expect(failed).toContain("- broken(y):");
      expect(failed).not.toContain("mimic");
    });
  });

  describe("with toolExecutor: false", () => {
    it.each(PATHS)("still shows loop warnings to the model, written into the scratchpad by the agent (%s)", async (path) => {
      const repeat = "Thought: again\nAction: capital\nAction Input: France";
      const llm = new ScriptedChatModel({ chunkChars: 7, replies: [repeat, repeat, repeat, "Thought: ok\nFinal Answer: Paris"] });
      const agent = await createReactAgent({ llm, tools: [capitalTool()], prompt: REACT_PROMPT, toolExecutor: false });
      const result = await runOn(new AgentExecutor({ agent, tools: agent.tools }), "q", path);
      expect(result.stopReason).toBe("final_answer");
      expect(llm.calls[3].prompt).toContain("Observation: Paris\n\n[Loop notice] You already called capital with this input twice.");
      expect(llm.calls[2].prompt).not.toContain("[Loop notice]");
    });
  });
});

describe("createReactAgent's wrapped tools and run identity, without callbacks", () => {
  // Each run asks the same question twice: a run-scoped cache answers the second call only when
  // the tool can tell its run; no entry may answer another run.
  const twice = ["Thought: look\nAction: capital\nAction Input: France", "Thought: again\nAction: capital\nAction Input: France", "Thought: done\nFinal Answer: Paris"];
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  async function runTwice(path: Path, runs: number, oneAtATime = false): Promise<{ calls: string[]; outcomes: string[] }> {
    const calls: string[] = [];
    const outcomes: string[] = [];
    const agent = await createReactAgent({
      llm: scriptedTwiceModel(twice),
      tools: [capitalTool(calls)],
      prompt: REACT_PROMPT,
      // The repeat detector would stop the second call's run: off, so the cache decides.
      loopControl: { repeat: false },
      toolExecutor: { policies: { capital: { cache: true } } },
      onEvent: (event) => {
        if (event.type === "tool_call") outcomes.push(event.outcome);
      },
    });
    const executor = new AgentExecutor({ agent, tools: agent.tools });
    const all = async (): Promise<void> => {
      if (oneAtATime) for (let index = 0; index < runs; index += 1) await runOn(executor, `run-${index}`, path);
      else await Promise.all(Array.from({ length: runs }, (_, index) => runOn(executor, `run-${index}`, path)));
    };
    await settleWithFakeTimers(all(), { stepMs: 1 });
    return { calls, outcomes };
  }

  it("on streamEvents (run ids exist), the agent's tools find their run: each run's repeat is served from its own cache entry, never another run's", async () => {
    const { calls, outcomes } = await runTwice("streamEvents", 20);
    expect(calls).toHaveLength(20);
    expect(outcomes.filter((outcome) => outcome === "cached")).toHaveLength(20);
  });

  it.each(["invoke", "stream"] as const)("on %s with no callbacks (no run id), each call is bound to the run that planned it: each run's repeat is served from its own entry", async (path) => {
    const { calls, outcomes } = await runTwice(path, 5, true);
    expect(calls).toHaveLength(5);
    expect(outcomes.filter((outcome) => outcome === "cached")).toHaveLength(5);
  });

  it.each(["invoke", "stream"] as const)("on %s with no callbacks, concurrent runs planning the same string call are never served another run's entry", async (path) => {
    // Which of two runs planned the very same string call cannot be told: such a call is bound to
    // neither (fail safe), so at most one call per run is served from the cache.
    const { calls, outcomes } = await runTwice(path, 20);
    const cached = outcomes.filter((outcome) => outcome === "cached").length;
    expect(calls.length + cached).toBe(40);
    expect(cached).toBeLessThanOrEqual(20);
  });
});

/**
 * Replies by the number of observations in the prompt, so concurrent runs each follow the script,
 * after a seeded pause of 0–2 ms on the fake timers, so they interleave.
 */
function scriptedTwiceModel(script: string[]): ScriptedChatModel {
  const pause = seededPause(seededRandom(3), 3);
  const reply = async (prompt: string): Promise<string> => {
    const question = prompt.slice(prompt.lastIndexOf("\nQuestion: "));
    const step = question.split("\nObservation:").length - 1;
    await pause();
    return script[Math.min(step, script.length - 1)];
  };
  return new ScriptedChatModel({ replies: [reply], cycle: true, recordCalls: false });
}
