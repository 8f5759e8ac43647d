import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent, humanInTheLoopMiddleware } from "langchain";
import { z } from "zod/v4";
import type { ReinsEvent } from "@reins/core";
import { buildDurableAgent, ledgerOf } from "./__fixtures__/durable-agent";
import { createReinsMiddleware } from "./index";

const lookup = tool(async ({ query }: { query: string }) => `Facts about ${query}.`, {
  name: "lookup",
  description: "Look something up",
  schema: z.object({ query: z.string() }),
});

const lastAi = (messages: readonly BaseMessage[]): AIMessage => messages.filter((message): message is AIMessage => AIMessage.isInstance(message)).at(-1) as AIMessage;

describe("a checkpointed chat thread", () => {
  it("answers all 8 turns with default options (the recursion budget is counted per invocation, not over the thread)", async () => {
    let model = fakeModel();
    for (let turn = 1; turn <= 8; turn += 1) model = model.respondWithTools([{ name: "lookup", args: { query: `topic ${turn}` }, id: `call_${turn}` }]).respond(new AIMessage(`Answer ${turn}.`));
    const agent = createAgent({ model, tools: [lookup], middleware: [createReinsMiddleware()], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "chat-8" } };
    const answers: string[] = [];
    const stops: unknown[] = [];
    for (let turn = 1; turn <= 8; turn += 1) {
      const result = await agent.invoke({ messages: [new HumanMessage(`Question ${turn}`)] }, config);
      answers.push(String(lastAi(result.messages).content));
      stops.push(result.stopReason);
    }
    expect(answers).toEqual(Array.from({ length: 8 }, (_, index) => `Answer ${index + 1}.`));
    expect(stops).toEqual(Array.from({ length: 8 }, () => "final_answer"));
  });

  it("answers every turn on stream() too, each turn a run of its own in the streamed state", async () => {
    let model = fakeModel();
    for (let turn = 1; turn <= 8; turn += 1) model = model.respondWithTools([{ name: "lookup", args: { query: `t${turn}` }, id: `s_${turn}` }]).respond(new AIMessage(`Streamed ${turn}.`));
    const agent = createAgent({ model, tools: [lookup], middleware: [createReinsMiddleware()], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "chat-stream" }, streamMode: "values" as const };
    const seen: Array<{ answer: string; stopReason: unknown; runId: unknown }> = [];
    for (let turn = 1; turn <= 8; turn += 1) {
      let last: { messages: BaseMessage[]; stopReason?: unknown; reinsRun?: { runId: string } } | undefined;
      for await (const chunk of await agent.stream({ messages: [new HumanMessage(`Q${turn}`)] }, config)) last = chunk as typeof last;
      seen.push({ answer: String(lastAi(last?.messages ?? []).content), stopReason: last?.stopReason, runId: last?.reinsRun?.runId });
    }
    expect(seen.map((each) => each.answer)).toEqual(Array.from({ length: 8 }, (_, index) => `Streamed ${index + 1}.`));
    expect(seen.every((each) => each.stopReason === "final_answer")).toBe(true);
    expect(new Set(seen.map((each) => each.runId)).size).toBe(8);
  });

  it("starts a new run for every new input: counts, notes and caps do not carry over from the previous turn", async () => {
    const events: ReinsEvent[] = [];
    let model = fakeModel();
    for (let turn = 1; turn <= 3; turn += 1) {
      model = model
        .respondWithTools([{ name: "lookup", args: { query: "same" }, id: `a_${turn}` }])
        .respondWithTools([{ name: "lookup", args: { query: "same" }, id: `b_${turn}` }])
        .respond(new AIMessage(`Done ${turn}.`));
    }
    const agent = createAgent({
      model,
      tools: [lookup],
      middleware: [createReinsMiddleware({ onEvent: (event) => events.push(event), toolExecutor: { policies: { lookup: { maxCallsPerRun: 2 } } } })],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "chat-runs" } };
    const runIds: string[] = [];
    for (let turn = 1; turn <= 3; turn += 1) {
      const result = await agent.invoke({ messages: [new HumanMessage(`Question ${turn}`)] }, config);
      expect(result.stopReason).toBe("final_answer");
      expect(result.reinsRun?.modelCalls).toBe(3);
      expect(result.reinsRun?.steps).toHaveLength(2);
      runIds.push(String(result.reinsRun?.runId));
    }
    expect(new Set(runIds).size).toBe(3);
    // Two calls per run, within each run's cap of 2: none rejected.
    const outcomes = events.flatMap((event) => (event.type === "tool_call" ? [event.outcome] : []));
    expect(outcomes).toEqual(Array.from({ length: 6 }, () => "success"));
  });
});

describe("a run resumed by a rebuilt agent (same process, same checkpointer)", () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(path.join(tmpdir(), "reins-durable-"));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("after each approval interrupt, keeps the call cap and the step budget and stops with a stopReason", async () => {
    const checkpointer = new MemorySaver();
    const ledgerPath = path.join(directory, "ledger.txt");
    const config = { configurable: { thread_id: "approve" } };
    let result = await buildDurableAgent({ checkpointer, ledgerPath, approval: true }).agent.invoke({ messages: [new HumanMessage("Charge me.")] }, config);
    let resumes = 0;
    while (result.stopReason === undefined && resumes < 20) {
      expect(result.__interrupt__).toBeDefined();
      resumes += 1;
      // A new agent (new middleware, new process-local state) for every resume.
      result = await buildDurableAgent({ checkpointer, ledgerPath, approval: true }).agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    }
    expect(result.stopReason).toBe("max_steps");
    expect(ledgerOf(ledgerPath)).toEqual([1, 2, 3]);
    expect(result.reinsRun?.modelCalls).toBe(8);
    const rejected = result.messages.filter((message) => ToolMessage.isInstance(message) && message.metadata?.reinsOutcome === "rejected");
    expect(rejected.length).toBeGreaterThan(0);
  });
});

describe("a refused tool call's correction", () => {
  it("is saved with the reply, so a rebuilt agent resuming after an interrupt still answers it", async () => {
    const checkpointer = new MemorySaver();
    // One scripted model for both agents (it stands for the provider, which outlives the process).
    const model = fakeModel()
      .respondWithTools([
        { name: "lookup", args: { query: "x" }, id: "good" },
        { name: "lookpu", args: { query: "x" }, id: "bad" },
      ])
      .respond(new AIMessage("Done."));
    const build = () =>
      createAgent({
        model,
        tools: [lookup],
        middleware: [createReinsMiddleware(), humanInTheLoopMiddleware({ interruptOn: { lookup: true } })],
        checkpointer,
      });
    const config = { configurable: { thread_id: "corrections" } };
    const paused = await build().invoke({ messages: [new HumanMessage("Look it up.")] }, config);
    expect(paused.__interrupt__).toBeDefined();
    const reply = paused.messages.find((message): message is AIMessage => AIMessage.isInstance(message));
    expect(Object.keys((reply?.response_metadata?.reinsCorrections ?? {}) as object)).toEqual(["bad"]);
    const result = await build().invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    const answers = result.messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
    const bad = answers.find((message) => message.tool_call_id === "bad");
    expect(bad?.status).toBe("error");
    expect(String(bad?.content)).toContain('unavailable tool "lookpu"');
    expect(bad?.metadata?.reinsOutcome).toBe("invalid_input");
    expect(answers.find((message) => message.tool_call_id === "good")?.content).toBe("Facts about x.");
    expect(result.stopReason).toBe("final_answer");
  });
});

describe("a run resumed by the same agent object after each approval interrupt", () => {
  it("gets a new recursion budget per invocation and does not count the time paused for approval", async () => {
    const directory = mkdtempSync(path.join(tmpdir(), "reins-durable-"));
    try {
      let clock = 1_000_000;
      const ledgerPath = path.join(directory, "ledger.txt");
      const { agent } = buildDurableAgent({ checkpointer: new MemorySaver(), ledgerPath, approval: true, maxDurationMs: 60_000, now: () => clock });
      const config = { configurable: { thread_id: "same-agent" } };
      let result = await agent.invoke({ messages: [new HumanMessage("Charge me.")] }, config);
      let resumes = 0;
      while (result.stopReason === undefined && resumes < 20) {
        resumes += 1;
        clock += 3_600_000; // an hour waiting for the approval
        result = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
      }
      // Before: the thread's steps were counted against one invocation's recursionLimit (a max_steps stop at 4 model calls).
      expect(result.stopReason).toBe("max_steps");
      expect(result.reinsRun?.modelCalls).toBe(8);
      expect(result.reinsRun?.stop?.message).toBe("The run reached its step budget of 8 model calls.");
      expect(result.reinsRun?.activeMs).toBeLessThan(60_000);
      expect(ledgerOf(ledgerPath)).toEqual([1, 2, 3]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe("the run record's decisions on createAgent", () => {
  it("prices a dated model name by its table prefix, so maxCostUsd stops the run (cost_budget)", async () => {
    const reply = (id: string) =>
      new AIMessage({
        content: "",
        tool_calls: [{ name: "lookup", args: { query: id }, id, type: "tool_call" }],
        usage_metadata: { input_tokens: 600_000, output_tokens: 0, total_tokens: 600_000 },
        response_metadata: { model_name: "gpt-4o-mini-2024-07-18" },
      });
    const model = fakeModel().respond(reply("a")).respond(reply("b")).respond(reply("c"));
    const agent = createAgent({
      model,
      tools: [lookup],
      middleware: [createReinsMiddleware({ loopControl: { prices: { "gpt-4o-mini": { inputUsdPerMillionTokens: 1, outputUsdPerMillionTokens: 1 } }, maxCostUsd: 1 } })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("Look it up.")] });
    expect(result.stopReason).toBe("cost_budget");
    expect(result.reinsRun?.costUsd).toBeCloseTo(1.2, 6);
    expect(result.reinsRun?.modelCalls).toBe(2);
  });

  it("times the model call, the tool call and each cycle (step_duration for llm, tool and cycle), as the classic paths do", async () => {
    const events: ReinsEvent[] = [];
    const model = fakeModel().respondWithTools([{ name: "lookup", args: { query: "x" }, id: "only" }]).respond(new AIMessage("Done."));
    const agent = createAgent({ model, tools: [lookup], middleware: [createReinsMiddleware({ onEvent: (event) => events.push(event) })] });
    await agent.invoke({ messages: [new HumanMessage("Look it up.")] });
    const phases = events.flatMap((event) => (event.type === "step_duration" ? [event.phase] : []));
    expect([...phases].sort()).toEqual(["cycle", "cycle", "llm", "llm", "tool"]);
    expect(events.every((event) => event.type !== "step_duration" || (Number.isFinite(event.durationMs) && event.durationMs >= 0))).toBe(true);
  });

  it("puts the repeat warning on the next ToolMessage as a rendered note, marked by metadata.reinsNotesAt, with the typed outcome", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "lookup", args: { query: "same" }, id: "first" }])
      .respondWithTools([{ name: "lookup", args: { query: "same" }, id: "second" }])
      .respondWithTools([{ name: "lookup", args: { query: "same" }, id: "third" }])
      .respond(new AIMessage("Done."));
    const agent = createAgent({ model, tools: [lookup], middleware: [createReinsMiddleware()] });
    const result = await agent.invoke({ messages: [new HumanMessage("Look it up.")] });
    // The same call with the same result: the warning comes with the third result (two were identical already).
    const [first, before, second] = result.messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
    expect(first.content).toBe("Facts about same.");
    expect(first.metadata).toEqual({ reinsOutcome: "success" });
    expect(before.content).toBe("Facts about same.");
    expect(String(second.content).startsWith("Facts about same.\n\n")).toBe(true);
    expect(String(second.content)).toMatch(/lookup/);
    expect(second.metadata?.reinsNotesAt).toBe("Facts about same.".length);
    expect(second.metadata?.reinsOutcome).toBe("success");
    expect(result.stopReason).toBe("final_answer");
    // Delivered once: the record holds no note for a later turn.
    expect(result.reinsRun?.notes).toEqual([]);
  });
});
