/**
 * One table of trajectories through the three agent paths: the classic `createReactAgent` +
 * `AgentExecutor` (ReAct text), a hand-built ReAct agent in the stock `AgentExecutor` with a
 * `LoopControlHandler` callback and `ToolExecutor`-wrapped tools, and LangChain v1 `createAgent` +
 * `createReinsMiddleware` (tool calls). Each row is the same sequence of model decisions on all
 * three; the test asserts the same stop reason, the same number of model calls and of tool
 * executions at the stop, the same ToolExecutor outcomes, the same finding sections of a stopped
 * run's answer (dry runs and refusals under "What did not work"), and the same events (counts per
 * kind and label). A row one path cannot pass yet is `it.failing` with the gap named.
 * LangChain 1.x only: `createAgent` does not exist on the 0.3 line (skipped there, by name).
 */
import type { AgentStep } from "@langchain/core/agents";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { PromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod/v4";
import { REACT_PROMPT_TEMPLATE, type ReinsEvent, type StopReason, type ToolCallOutcome } from "@reins/core";
import { ReplayChatModel, ScriptedChatModel } from "@reins/testing";

const line03 = process.env.REINS_LANGCHAIN_LINE === "0.3";

/** One model decision: tool calls (several = one parallel turn on createAgent, consecutive steps on ReAct) or an answer. */
type Decision =
  | { readonly calls: ReadonlyArray<{ readonly tool: string; readonly input: Record<string, unknown> }>; readonly thought?: string }
  | { readonly answer: string };

interface Row {
  readonly name: string;
  readonly decisions: readonly Decision[];
  readonly policies?: Record<string, Record<string, unknown>>;
  readonly loop?: Record<string, unknown>;
  /** Token usage every model reply reports, and the model name it reports (e.g. a dated name). */
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number; readonly modelName?: string };
  /** Each tool run moves the run's fake clock (loop control's `now`) on by this many ms. */
  readonly toolTakesMs?: number;
  readonly expected: {
    readonly stopReason: StopReason;
    readonly modelCalls: number;
    readonly toolRuns: number;
    readonly outcomes: readonly ToolCallOutcome[];
    /** The findings of a stopped run's answer: which sections it has ("What I found so far", "What did not work"). */
    readonly findings?: readonly string[];
  };
  /** Set when one path does not conform yet: the gap, named (the row runs as `it.failing`). */
  readonly knownGap?: string;
}

interface PathResult {
  readonly stopReason: StopReason | undefined;
  readonly modelCalls: number;
  readonly toolRuns: number;
  readonly outcomes: ToolCallOutcome[];
  readonly findings?: string[];
  /** {@link eventCounts} of the run's events (compared across the paths, not with the row). */
  readonly events: Record<string, number>;
}

const SECTIONS = ["What I found so far:", "What did not work:"];
/** The finding sections of a stopped run's answer (a final answer has none). */
const findingsOf = (stopReason: StopReason | undefined, output: string): { findings?: string[] } =>
  stopReason === undefined || stopReason === "final_answer" ? {} : { findings: SECTIONS.filter((section) => output.includes(section)) };

const call = (tool: string, input: Record<string, unknown>): Decision => ({ calls: [{ tool, input }] });
const forever = (decision: (index: number) => Decision, count = 12): Decision[] => Array.from({ length: count }, (_, index) => decision(index));

const ROWS: readonly Row[] = [
  {
    name: "one lookup, then the answer",
    decisions: [call("lookup", { query: "france" }), { answer: "Paris." }],
    expected: { stopReason: "final_answer", modelCalls: 2, toolRuns: 1, outcomes: ["success"] },
  },
  {
    name: "the same call over and over: a repeat",
    // The same call with the same result 3 times: 3 executions, the 4th identical call refused.
    decisions: forever(() => call("lookup", { query: "france" })),
    expected: { stopReason: "repeat", modelCalls: 4, toolRuns: 3, outcomes: ["success", "success", "success"], findings: ["What I found so far:"] },
  },
  {
    name: "a failing call over and over: a repeat, its failure under what did not work",
    decisions: forever(() => call("crm_lookup", { customerId: "c-1" })),
    policies: { crm_lookup: { retry: { maxAttempts: 1 } } },
    expected: { stopReason: "repeat", modelCalls: 4, toolRuns: 3, outcomes: ["error", "error", "error"], findings: ["What did not work:"] },
  },
  {
    name: "two calls in turn, over and over: a cycle",
    decisions: forever((index) => call("lookup", { query: index % 2 === 0 ? "france" : "japan" })),
    expected: { stopReason: "cycle", modelCalls: 6, toolRuns: 5, outcomes: ["success", "success", "success", "success", "success"], findings: ["What I found so far:"] },
  },
  {
    name: "the same thought over new inputs that find nothing new: a stall",
    decisions: forever((index) => ({ calls: [{ tool: "search", input: { query: `flights to Lisbon option ${index}` } }], thought: "I still need to find a cheaper flight to Lisbon for the customer." })),
    expected: { stopReason: "stall", modelCalls: 6, toolRuns: 5, outcomes: ["success", "success", "success", "success", "success"], findings: ["What I found so far:"] },
  },
  {
    name: "a polling call whose result changes every time, then the answer: progress, not a repeat",
    decisions: [...forever(() => call("job_status", { id: "j-1" }), 4), { answer: "The job is done." }],
    expected: { stopReason: "final_answer", modelCalls: 5, toolRuns: 4, outcomes: ["success", "success", "success", "success"] },
  },
  {
    name: "a failed call, then the answer",
    decisions: [call("crm_lookup", { customerId: "c-1" }), { answer: "The CRM is down." }],
    policies: { crm_lookup: { retry: { maxAttempts: 1 } } },
    expected: { stopReason: "final_answer", modelCalls: 2, toolRuns: 1, outcomes: ["error"] },
  },
  {
    name: "a side-effect call answered with a dry run, then the answer",
    decisions: [call("send_email", { to: "a@example.com" }), { answer: "I prepared the email; please confirm." }],
    policies: { send_email: { sideEffects: true } },
    expected: { stopReason: "final_answer", modelCalls: 2, toolRuns: 0, outcomes: ["dry_run"] },
  },
  {
    name: "a side-effect call answered with a dry run over and over: a repeat, the dry run under what did not work",
    // The dry-run observation is stable within the run, so the same dry run 3 times is a repeat.
    decisions: forever(() => call("send_email", { to: "a@example.com" })),
    policies: { send_email: { sideEffects: true } },
    expected: { stopReason: "repeat", modelCalls: 4, toolRuns: 0, outcomes: ["dry_run", "dry_run", "dry_run"], findings: ["What did not work:"] },
  },
  {
    name: "a call refused by its cap over and over: a repeat, the refusal under what did not work",
    decisions: [call("lookup", { query: "france" }), ...forever(() => call("lookup", { query: "japan" }))],
    policies: { lookup: { maxCallsPerRun: 1 } },
    expected: { stopReason: "repeat", modelCalls: 5, toolRuns: 1, outcomes: ["success", "rejected", "rejected", "rejected"], findings: ["What I found so far:", "What did not work:"] },
  },
  {
    name: "new calls that each take 400 ms until the time budget ends the run",
    decisions: forever((index) => call("lookup", { query: `country ${index}` })),
    loop: { maxDurationMs: 1000 },
    toolTakesMs: 400,
    expected: { stopReason: "time_budget", modelCalls: 3, toolRuns: 3, outcomes: ["success", "success", "success"], findings: ["What I found so far:"] },
  },
  {
    name: "a call refused by its cap, then the answer",
    decisions: [call("lookup", { query: "france" }), call("lookup", { query: "japan" }), { answer: "Paris." }],
    policies: { lookup: { maxCallsPerRun: 1 } },
    expected: { stopReason: "final_answer", modelCalls: 3, toolRuns: 1, outcomes: ["success", "rejected"] },
  },
  {
    name: "new calls until the step budget ends the run",
    decisions: forever((index) => call("lookup", { query: `country ${index}` })),
    loop: { maxSteps: 4 },
    expected: { stopReason: "max_steps", modelCalls: 4, toolRuns: 4, outcomes: ["success", "success", "success", "success"], findings: ["What I found so far:"] },
  },
  {
    name: "new calls until the token budget ends the run",
    decisions: forever((index) => call("lookup", { query: `country ${index}` })),
    loop: { maxTokens: 250 },
    usage: { inputTokens: 60, outputTokens: 40 },
    expected: { stopReason: "token_budget", modelCalls: 3, toolRuns: 2, outcomes: ["success", "success"], findings: ["What I found so far:"] },
  },
  {
    name: "a dated model name priced by its table prefix: the cost budget ends the run",
    decisions: forever((index) => call("lookup", { query: `country ${index}` })),
    loop: { prices: { "gpt-4o-mini": { inputUsdPerMillionTokens: 1, outputUsdPerMillionTokens: 1 } }, maxCostUsd: 1 },
    usage: { inputTokens: 400_000, outputTokens: 0, modelName: "gpt-4o-mini-2024-07-18" },
    expected: { stopReason: "cost_budget", modelCalls: 3, toolRuns: 2, outcomes: ["success", "success"], findings: ["What I found so far:"] },
  },
  {
    name: "two tool calls at once, then the answer",
    decisions: [{ calls: [{ tool: "lookup", input: { query: "france" } }, { tool: "lookup", input: { query: "japan" } }] }, { answer: "Paris and Tokyo." }],
    expected: { stopReason: "final_answer", modelCalls: 2, toolRuns: 2, outcomes: ["success", "success"] },
    knownGap: "ReAct text has one action per model reply: the classic path takes the two calls as two steps (3 model calls)",
  },
];

interface ToolRuns {
  count: number;
  /** The fake clock (epoch ms) the tools move on; loop control's `now` when a row sets `toolTakesMs`. */
  nowMs: number;
}

/** The row's loop-control options, with the fake clock when the row's tools take time. */
const loopOptionsOf = (row: Row, runs: ToolRuns): Record<string, unknown> | undefined =>
  row.toolTakesMs === undefined ? row.loop : { ...row.loop, now: () => runs.nowMs };

function makeTools(runs: ToolRuns, tookMs = 0) {
  const ran = (): number => ((runs.nowMs += tookMs), (runs.count += 1));
  const capitals: Record<string, string> = { france: "Paris", japan: "Tokyo" };
  return [
    tool(async ({ query }: { query: string }) => (ran(), capitals[query] ?? `Nothing known about ${query}.`), {
      name: "lookup",
      description: "Look up a country's capital",
      schema: z.object({ query: z.string() }),
    }),
    tool(
      async () => {
        ran();
        throw new Error("upstream returned 503");
      },
      { name: "crm_lookup", description: "Look up a customer", schema: z.object({ customerId: z.string() }) },
    ),
    tool(async () => (ran(), "No flights found."), {
      name: "search",
      description: "Search flights",
      schema: z.object({ query: z.string() }),
    }),
    tool(async ({ id }: { id: string }) => (ran(), `Job ${id}: ${runs.count * 25}% done.`), {
      name: "job_status",
      description: "Progress of a job",
      schema: z.object({ id: z.string() }),
    }),
    tool(async ({ to }: { to: string }) => (ran(), `Sent to ${to}.`), {
      name: "send_email",
      description: "Send an email",
      schema: z.object({ to: z.string() }),
    }),
  ];
}

/**
 * The ToolExecutor outcomes of the model's calls. A call refused because the run was already
 * stopping (`StoppedRunCallError`: the stock `AgentExecutor` runs the action the handler stopped
 * the run at; Reins' agents never hand it to the tool) is not one of them.
 */
const outcomesOf = (events: readonly ReinsEvent[]): ToolCallOutcome[] =>
  events.flatMap((event) => (event.type === "tool_call" && event.error?.name !== "StoppedRunCallError" ? [event.outcome] : []));

/**
 * The run's events, normalised to counts per kind and label (`step:action`, `loop_detection:repeat:warn`,
 * `run_end:completed:final_answer`): the paths emit them from different hooks, so their order
 * within one step differs, while what was observed must not.
 */
function eventCounts(events: readonly ReinsEvent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of events) {
    const label =
      event.type === "step"
        ? `step:${event.step}`
        : event.type === "loop_detection"
          ? `loop_detection:${event.kind}:${event.level}`
          : event.type === "run_end"
            ? `run_end:${event.status}:${event.stopReason}`
            : undefined;
    if (label !== undefined) counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

/** The ReAct replies of a row's decisions (several calls in one decision = consecutive replies), with its usage. */
function modelOf(row: Row): ScriptedChatModel | ReplayChatModel {
  const replies = row.decisions.flatMap((decision) =>
    "answer" in decision
      ? [`Thought: I know the answer.\nFinal Answer: ${decision.answer}`]
      : decision.calls.map((each) => `Thought: ${decision.thought ?? `I should use ${each.tool}.`}\nAction: ${each.tool}\nAction Input: ${JSON.stringify(each.input)}`),
  );
  const usage = row.usage;
  const llm =
    usage === undefined
      ? new ScriptedChatModel({ replies })
      : new (class extends ReplayChatModel {
          async _generate(...args: Parameters<ReplayChatModel["_generate"]>) {
            const result = await super._generate(...args);
            if (usage.modelName !== undefined) for (const generation of result.generations) generation.message.response_metadata = { model_name: usage.modelName };
            return result;
          }
        })({ replies, usage });
  return llm;
}

const modelCallsOf = (llm: ScriptedChatModel | ReplayChatModel): number => (llm instanceof ScriptedChatModel ? llm.calls.length : llm.prompts.length);

/**
 * The hand-built path, as docs/guides/loop-control.md and the react-output-parser guide build it: the
 * stock `AgentExecutor` over a hand-built ReAct runnable (prompt → model with `stop` → Reins' parser,
 * `singleAction = true`), the tools wrapped by a `ToolExecutor`, and a `LoopControlHandler`
 * (`mode: "finish"`) in the call's callbacks, sharing one `RunContextStore`; the runnable returns
 * `buildLoopStopFinish` once the handler recorded a stop.
 */
async function runHandBuilt(row: Row): Promise<PathResult> {
  const { AgentExecutor } = await import("@langchain/classic/agents");
  const { RunnableLambda } = await import("@langchain/core/runnables");
  const { RunContextStore, buildLoopStopFinish, runIdsFrom } = await import("@reins/core");
  const { LoopControlHandler } = await import("@reins/loop-control");
  const { ToolExecutor } = await import("@reins/tool-executor");
  const { HardenedReActOutputParser } = await import("@reins/react-output-parser");
  const { formatReActScratchpad, renderToolDescriptions } = await import("@reins/react-agent");
  const runs: ToolRuns = { count: 0, nowMs: Date.now() };
  const events: ReinsEvent[] = [];
  const llm = modelOf(row);
  const runContext = new RunContextStore();
  const tools = new ToolExecutor({ runContext, onEvent: (event) => events.push(event), ...(row.policies !== undefined ? { policies: row.policies } : {}) }).wrap(makeTools(runs, row.toolTakesMs));
  const loopControl = new LoopControlHandler({ mode: "finish", runContext, onEvent: (event) => events.push(event), ...loopOptionsOf(row, runs) });
  const parser = new HardenedReActOutputParser({ tools });
  const prompt = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);
  const model = llm.withConfig({ stop: ["\nObservation:"] } as never);
  const agent = RunnableLambda.from(async (inputs: { input: string; steps: AgentStep[] }, config) => {
    const context = runIdsFrom(config)
      .map((runId) => runContext.contextOf(runId))
      .find((candidate) => candidate?.loop.stop !== undefined);
    if (context?.loop.stop !== undefined) return buildLoopStopFinish(context.loop.stop, inputs.steps, {}, context);
    const text = await prompt.format({
      input: inputs.input,
      tools: renderToolDescriptions(tools),
      tool_names: tools.map((each) => each.name).join(", "),
      agent_scratchpad: formatReActScratchpad(inputs.steps),
    });
    const reply = await model.invoke(text, config);
    return parser.parse(typeof reply.content === "string" ? reply.content : JSON.stringify(reply.content));
  });
  const executor = new AgentExecutor({ agent: Object.assign(agent, { singleAction: true }), tools, maxIterations: 50, handleParsingErrors: true });
  const result = await executor.invoke({ input: "Help me." }, { callbacks: [loopControl] });
  // The stock executor's own answer carries no stopReason: the handler's run_end event names it.
  const runEnd = events.find((event) => event.type === "run_end");
  const stopReason = (result.stopReason as StopReason | undefined) ?? (runEnd?.type === "run_end" ? runEnd.stopReason : undefined);
  return { stopReason, modelCalls: modelCallsOf(llm), toolRuns: runs.count, outcomes: outcomesOf(events), events: eventCounts(events), ...findingsOf(stopReason, String(result.output)) };
}

async function runClassic(row: Row): Promise<PathResult> {
  const { AgentExecutor } = await import("@langchain/classic/agents");
  const { createReactAgent } = await import("@reins/react-agent");
  const runs: ToolRuns = { count: 0, nowMs: Date.now() };
  const events: ReinsEvent[] = [];
  const llm = modelOf(row);
  const tools = makeTools(runs, row.toolTakesMs);
  const agent = await createReactAgent({
    llm,
    tools,
    prompt: PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE),
    onEvent: (event) => events.push(event),
    ...(row.policies !== undefined ? { toolExecutor: { policies: row.policies } } : {}),
    ...(loopOptionsOf(row, runs) !== undefined ? { loopControl: loopOptionsOf(row, runs) } : {}),
  });
  const executor = new AgentExecutor({ agent, tools: agent.tools, maxIterations: 50 });
  const result = await executor.invoke({ input: "Help me." }, { callbacks: agent.callbacks });
  const stopReason = result.stopReason as StopReason | undefined;
  return { stopReason, modelCalls: modelCallsOf(llm), toolRuns: runs.count, outcomes: outcomesOf(events), events: eventCounts(events), ...findingsOf(stopReason, String(result.output)) };
}

async function runCreateAgent(row: Row): Promise<PathResult> {
  const { fakeModel } = await import("@langchain/core/testing");
  const { createAgent, createMiddleware } = await import("langchain");
  const { createReinsMiddleware } = await import("@reins/agent-middleware");
  const runs: ToolRuns = { count: 0, nowMs: Date.now() };
  const events: ReinsEvent[] = [];
  let model = fakeModel();
  let id = 0;
  for (const decision of row.decisions) {
    model =
      "answer" in decision
        ? model.respond(new AIMessage(decision.answer))
        : row.usage === undefined && decision.thought === undefined
          ? model.respondWithTools(decision.calls.map((each) => ({ name: each.tool, args: each.input, id: `call_${(id += 1)}` })))
          : model.respond(
              new AIMessage({
                content: decision.thought ?? "",
                tool_calls: decision.calls.map((each) => ({ name: each.tool, args: each.input, id: `call_${(id += 1)}`, type: "tool_call" as const })),
                ...(row.usage !== undefined
                  ? { usage_metadata: { input_tokens: row.usage.inputTokens, output_tokens: row.usage.outputTokens, total_tokens: row.usage.inputTokens + row.usage.outputTokens } }
                  : {}),
                ...(row.usage?.modelName !== undefined ? { response_metadata: { model_name: row.usage.modelName } } : {}),
              }),
            );
  }
  let modelCalls = 0;
  const countCalls = createMiddleware({ name: "CountModelCalls", wrapModelCall: (request, handler) => ((modelCalls += 1), handler(request)) });
  const agent = createAgent({
    model,
    tools: makeTools(runs, row.toolTakesMs),
    middleware: [
      createReinsMiddleware({
        onEvent: (event) => events.push(event),
        ...(row.policies !== undefined ? { toolExecutor: { policies: row.policies } } : {}),
        ...(loopOptionsOf(row, runs) !== undefined ? { loopControl: loopOptionsOf(row, runs) } : {}),
      }),
      countCalls,
    ],
  });
  // LangGraph's own recursionLimit (25 graph steps, about 5 model turns here) is the host's limit, not a
  // Reins budget: raised so that the rows compare Reins' decisions (the middleware stops gracefully before it).
  const result = await agent.invoke({ messages: [new HumanMessage("Help me.")] }, { recursionLimit: 200 });
  const answer = result.messages.filter((message) => AIMessage.isInstance(message)).at(-1);
  const output = answer === undefined ? "" : typeof answer.content === "string" ? answer.content : JSON.stringify(answer.content);
  return { stopReason: result.stopReason, modelCalls, toolRuns: runs.count, outcomes: outcomesOf(events), events: eventCounts(events), ...findingsOf(result.stopReason, output) };
}

(line03 ? describe.skip : describe)("one trajectory table, all three agent paths (LangChain 1.x only: createAgent does not exist on 0.3)", () => {
  for (const row of ROWS) {
    const test = row.knownGap === undefined ? it : it.failing;
    test(`${row.name}${row.knownGap === undefined ? "" : ` (known gap: ${row.knownGap})`}`, async () => {
      const [classic, handBuilt, createAgentPath] = await Promise.all([runClassic(row), runHandBuilt(row), runCreateAgent(row)]);
      const { events: classicEvents, ...classicResult } = classic;
      const { events: handBuiltEvents, ...handBuiltResult } = handBuilt;
      const { events: createAgentEvents, ...createAgentResult } = createAgentPath;
      expect({ classic: classicResult, handBuilt: handBuiltResult, createAgent: createAgentResult }).toEqual({ classic: row.expected, handBuilt: row.expected, createAgent: row.expected });
      const status = row.expected.stopReason === "final_answer" ? "success" : "stopped";
      expect(Object.entries(classicEvents).filter(([label]) => label.startsWith("run_end:"))).toEqual([[`run_end:${status}:${row.expected.stopReason}`, 1]]);
      expect({ handBuilt: handBuiltEvents, createAgent: createAgentEvents }).toEqual({ handBuilt: classicEvents, createAgent: classicEvents });
    });
  }
});
