/**
 * The trace page's labels and times against the run, on both agent paths: the classic
 * `createReactAgent` + `AgentExecutor` and `createAgent` + `createReinsMiddleware`. One fake clock
 * (loop control's `now`) is moved by the model and the tools: each model call and tool call takes a
 * known time, so each step's cycle (from the reply that chose it to the next reply) is known, and a
 * timed-out call must read "timeout" on both.
 *
 * LangChain 1.x only: `createAgent` does not exist on the 0.3 line (skipped there, by name).
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { PromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod/v4";
import { REACT_PROMPT_TEMPLATE } from "@reins/core";
import { readAuditTrail, renderTimelineHtml, renderTimelineText, type LoopAuditRecord } from "@reins/loop-control";
import { ScriptedChatModel } from "@reins/testing";

const line03 = process.env.REINS_LANGCHAIN_LINE === "0.3";

/** Model call k takes MODEL_MS[k]; `lookup` takes 1 s; `weather` takes 2 s of the clock and then hangs until the ToolExecutor's timeout. */
const MODEL_MS = [300, 500, 700];
const LOOKUP_MS = 1000;
const WEATHER_MS = 2000;
/** Step 1: its reply (after 300 ms) to the next reply: its tool (1 s) and the next model call (500 ms). */
const EXPECTED_CYCLES = ["cycle 1.50 s", "cycle 2.70 s"];

interface Clock {
  nowMs: number;
}

function toolsOf(clock: Clock) {
  const lookup = tool(async ({ query }: { query: string }) => ((clock.nowMs += LOOKUP_MS), `Capital of ${query}: Paris.`), {
    name: "lookup",
    description: "Look up a country's capital",
    schema: z.object({ query: z.string() }),
  });
  const weather = tool(
    async (_input: { city: string }, config) => {
      clock.nowMs += WEATHER_MS;
      return new Promise<string>((_resolve, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
    },
    { name: "weather", description: "Weather of a city", schema: z.object({ city: z.string() }) },
  );
  return [lookup, weather];
}

// A real 20 ms timer ends the hanging call (the ToolExecutor's own timeout); the times read come from the fake clock.
const POLICIES = { weather: { timeoutMs: 20, retry: false as const } };

// Each path imports and builds a whole agent stack: seconds on a shared machine.
jest.setTimeout(60_000);

/** The ReAct replies; model call k moves the clock on by MODEL_MS[k]. */
const replies = (clock: Clock) =>
  [
    'Thought: I need the capital.\nAction: lookup\nAction Input: {"query": "France"}',
    'Thought: Now the weather.\nAction: weather\nAction Input: {"city": "Paris"}',
    "Thought: I know enough.\nFinal Answer: Paris; the weather service timed out.",
  ].map((reply, index) => () => ((clock.nowMs += MODEL_MS[index]), reply));

async function classicRecords(): Promise<LoopAuditRecord[]> {
  const { AgentExecutor } = await import("@langchain/classic/agents");
  const { createReactAgent } = await import("@reins/react-agent");
  const clock: Clock = { nowMs: Date.now() };
  const records: LoopAuditRecord[] = [];
  const agent = await createReactAgent({
    llm: new ScriptedChatModel({ replies: replies(clock) }),
    tools: toolsOf(clock),
    prompt: PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE),
    toolExecutor: { policies: POLICIES },
    loopControl: { now: () => clock.nowMs, audit: { sink: (record) => records.push(record) } },
  });
  const executor = new AgentExecutor({ agent, tools: agent.tools });
  await executor.invoke({ input: "Capital and weather of France?" }, { callbacks: agent.callbacks });
  return records;
}

/** The hand-built path: the stock AgentExecutor, a ToolExecutor and a LoopControlHandler sharing one RunContextStore. */
async function handBuiltRecords(): Promise<LoopAuditRecord[]> {
  const { AgentExecutor } = await import("@langchain/classic/agents");
  const { RunnableLambda } = await import("@langchain/core/runnables");
  const { RunContextStore } = await import("@reins/core");
  const { LoopControlHandler } = await import("@reins/loop-control");
  const { ToolExecutor } = await import("@reins/tool-executor");
  const { HardenedReActOutputParser } = await import("@reins/react-output-parser");
  const clock: Clock = { nowMs: Date.now() };
  const records: LoopAuditRecord[] = [];
  const runContext = new RunContextStore({ now: () => clock.nowMs });
  const tools = new ToolExecutor({ runContext, policies: POLICIES }).wrap(toolsOf(clock));
  const loopControl = new LoopControlHandler({ mode: "finish", runContext, now: () => clock.nowMs, audit: { sink: (record) => records.push(record) } });
  const parser = new HardenedReActOutputParser({ tools });
  const model = new ScriptedChatModel({ replies: replies(clock) });
  const agent = RunnableLambda.from(async (_inputs: { input: string }, config) => {
    const reply = await model.invoke("next step", config);
    return parser.parse(typeof reply.content === "string" ? reply.content : JSON.stringify(reply.content));
  });
  const executor = new AgentExecutor({ agent: Object.assign(agent, { singleAction: true }), tools });
  await executor.invoke({ input: "Capital and weather of France?" }, { callbacks: [loopControl] });
  return records;
}

async function createAgentRecords(): Promise<LoopAuditRecord[]> {
  const { fakeModel } = await import("@langchain/core/testing");
  const { createAgent } = await import("langchain");
  const { createReinsMiddleware } = await import("@reins/agent-middleware");
  const clock: Clock = { nowMs: Date.now() };
  const records: LoopAuditRecord[] = [];
  const replies = [
    new AIMessage({ content: "I need the capital.", tool_calls: [{ name: "lookup", args: { query: "France" }, id: "call_lookup", type: "tool_call" }] }),
    new AIMessage({ content: "Now the weather.", tool_calls: [{ name: "weather", args: { city: "Paris" }, id: "call_weather", type: "tool_call" }] }),
    new AIMessage("Paris; the weather service timed out."),
  ];
  let model = fakeModel();
  replies.forEach((reply, index) => {
    model = model.respond(() => ((clock.nowMs += MODEL_MS[index]), reply));
  });
  const agent = createAgent({
    model,
    tools: toolsOf(clock),
    middleware: [createReinsMiddleware({ toolExecutor: { policies: POLICIES }, loopControl: { now: () => clock.nowMs }, audit: { sink: (record) => records.push(record) } })],
  });
  await agent.invoke({ messages: [new HumanMessage("Capital and weather of France?")] });
  return records;
}

(line03 ? describe.skip : describe)("the trace page's labels and times match the run on both paths (LangChain 1.x only)", () => {
  it.each([
    ["classic createReactAgent + AgentExecutor", classicRecords],
    ["hand-built AgentExecutor + LoopControlHandler", handBuiltRecords],
    ["createAgent + createReinsMiddleware", createAgentRecords],
  ])("%s: each step's cycle runs from its reply to the next, the cycles add up, and the timeout says timeout", async (_path, recordsOf) => {
    const records = await recordsOf();
    expect(records.map((record) => [record.tool, record.outcome, record.callOutcome])).toEqual([
      ["lookup", "observed", "success"],
      ["weather", "tool_error", "timeout"],
      [undefined, "finish", undefined],
    ]);
    const trail = readAuditTrail(records.map((record) => JSON.stringify(record)).join("\n"));
    const [run] = trail.runs;
    expect(run.turns.map((turn) => turn.llmMs)).toEqual(MODEL_MS);
    expect(run.turns.map((turn) => turn.cycleMs)).toEqual([LOOKUP_MS + MODEL_MS[1], WEATHER_MS + MODEL_MS[2], undefined]);
    // The cycles add up to the time from the first reply to the last.
    const replies = run.turns.map((turn) => turn.startedAtMs);
    expect((run.turns[0].cycleMs ?? 0) + (run.turns[1].cycleMs ?? 0)).toBe((replies.at(-1) ?? 0) - replies[0]);

    const text = renderTimelineText(trail);
    expect(text).toMatch(/#1 .*lookup.*→ observed {2}\(llm 300 ms, tool 1\.00 s, cycle 1\.50 s\)/);
    expect(text).toMatch(/#2 .*weather.*→ timeout {2}\(llm 500 ms, tool 2\.0\d s, cycle 2\.70 s\)/);
    expect(text).not.toContain("tool error");
    const html = renderTimelineHtml(trail);
    for (const cycle of EXPECTED_CYCLES) expect(html).toContain(cycle);
    expect(html).toContain('<span class="badge">timeout</span><span class="badge timeout">timeout</span>');
    expect(html).not.toContain(">tool error<");
  });
});
