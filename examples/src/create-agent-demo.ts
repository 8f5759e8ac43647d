/**
 * The demo's `--agent create-agent` mode: the same fault scenarios through LangChain v1's
 * `createAgent` with `createReinsMiddleware`, the real `ChatOpenAI` client and the
 * tool-calling replay server, which streams `tool_calls` deltas as the OpenAI API does. The
 * garbled output of local models shows up here as garbled tool calls (smart-quoted JSON arguments,
 * `functions.` in front of a name, a tool that does not exist) instead of garbled ReAct text.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";
import { Registry } from "prom-client";
import { createReinsMiddleware, type ReinsMiddlewareLoopControlOptions } from "@reins/agent-middleware";
import { createAgentMetrics, type AgentMetrics } from "@reins/metrics";
import type { LoopAuditSink } from "@reins/loop-control";
import { DEMO_TOOL_POLICIES } from "./demo-scenarios";
import { runDemo, type DemoOptions, type DemoReport, type LiveModelOptions } from "./demo-runner";
import {
  createDemoTools,
  type ScriptedHttpService,
  type SentEmail,
  startFlakyForecastService,
} from "./demo-tools";
import { startToolCallReplayServer, type ScriptedToolCall, type ScriptedTurn, type ToolCallRequestMessage } from "@reins/replay";

/** How one createAgent scenario ended. */
export interface CreateAgentOutcome {
  /** The text of the run's last AI message. */
  readonly output: string;
  readonly stopReason: string | undefined;
  /** The run's ToolMessages, in order. */
  readonly toolMessages: readonly ToolMessage[];
  readonly modelCalls: number;
  readonly error?: Error;
}

/** What a scenario's check can look at besides the run's result. */
export interface CreateAgentEnvironment {
  readonly outbox: readonly SentEmail[];
  readonly parcelService: { readonly calls: number };
  readonly forecastService: ScriptedHttpService;
}

/** One scripted createAgent scenario. */
export interface CreateAgentScenario {
  readonly id: string;
  readonly fault: string;
  readonly question: string;
  readonly turns: readonly ScriptedTurn[];
  readonly loopControl?: ReinsMiddlewareLoopControlOptions;
  readonly setUp?: (environment: CreateAgentEnvironment) => void;
  readonly check: (outcome: CreateAgentOutcome, environment: CreateAgentEnvironment) => string[];
}

const call = (name: string, args: string | Record<string, unknown>): ScriptedToolCall => ({ name, arguments: typeof args === "string" ? args : JSON.stringify(args) });
const tools = (...calls: ScriptedToolCall[]): ScriptedTurn => ({ toolCalls: calls });
const say = (content: string): ScriptedTurn => ({ content });
/** A final answer quoting the last tool result the request carries. */
const quoteLast = (template: (observation: string) => string): ScriptedTurn => (messages: readonly ToolCallRequestMessage[]) => {
  const last = [...messages].reverse().find((message) => message.role === "tool");
  return { content: template(typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "")) };
};

class Expectations {
  readonly failures: string[] = [];
  constructor(private readonly outcome: CreateAgentOutcome) {
    if (outcome.error !== undefined) this.failures.push(`run threw ${outcome.error.name}: ${outcome.error.message}`);
  }
  stopReason(reason: string): this {
    if (this.outcome.stopReason !== reason) this.failures.push(`stopReason ${String(this.outcome.stopReason)}, expected ${reason}`);
    return this;
  }
  tools(expected: string[]): this {
    const actual = this.outcome.toolMessages.map((message) => message.name ?? "?");
    if (actual.join(",") !== expected.join(",")) this.failures.push(`tools [${actual.join(", ")}], expected [${expected.join(", ")}]`);
    return this;
  }
  observation(index: number, pattern: RegExp, what: string, status?: "success" | "error"): this {
    const message = this.outcome.toolMessages[index];
    if (message === undefined || !pattern.test(contentOf(message))) this.failures.push(`ToolMessage ${index + 1} does not show ${what}`);
    else if (status !== undefined && (message.status ?? "success") !== status) this.failures.push(`ToolMessage ${index + 1} has status ${String(message.status)}, expected ${status}`);
    return this;
  }
  outputIncludes(...parts: string[]): this {
    for (const part of parts) if (!this.outcome.output.includes(part)) this.failures.push(`output lacks "${part}"`);
    return this;
  }
  that(condition: boolean, failure: string): this {
    if (!condition) this.failures.push(failure);
    return this;
  }
}
const expectThat = (outcome: CreateAgentOutcome): Expectations => new Expectations(outcome);
const ESCAPE_HATCH = 'reply "human"';

function contentOf(message: BaseMessage): string {
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}

/** The scenarios of `--agent create-agent`: the classic demo's fault kinds, as tool calls. */
export const CREATE_AGENT_SCENARIOS: readonly CreateAgentScenario[] = Object.freeze([
  {
    id: "smart-quoted-arguments",
    fault: "tool-call arguments with smart quotes and a trailing comma (repaired)",
    question: "How many Japanese yen is 100 euros?",
    turns: [tools(call("currency_convert", "{\u201camount\u201d: 100, \u201cfrom\u201d: \u201cEUR\u201d, \u201cto\u201d: \u201cJPY\u201d,}")), quoteLast((observation) => `${observation} at the demo rate.`)],
    check: (outcome) => expectThat(outcome).stopReason("final_answer").tools(["currency_convert"]).observation(0, /16000\.00 JPY/, "16000.00 JPY", "success").outputIncludes("16000.00 JPY").failures,
  },
  {
    id: "prefixed-tool-name",
    fault: "a tool name written as functions.Country_Lookup (repaired)",
    question: "What is the capital of Japan?",
    turns: [tools(call("functions.Country_Lookup", { input: "Japan" })), say("The capital of Japan is Tokyo.")],
    check: (outcome) => expectThat(outcome).stopReason("final_answer").tools(["country_lookup"]).observation(0, /Tokyo/, "Tokyo", "success").failures,
  },
  {
    id: "unknown-tool",
    fault: "a tool that does not exist (a corrective ToolMessage listing the tools)",
    question: "What currency does Brazil use?",
    turns: [tools(call("Wikipedia", { query: "Brazil currency" })), tools(call("country_lookup", { input: "Brazil" })), say("Brazil uses the Brazilian real (BRL).")],
    check: (outcome) =>
      expectThat(outcome).stopReason("final_answer").tools(["Wikipedia", "country_lookup"]).observation(0, /Available tools: .*country_lookup/, "the valid tool names", "error").outputIncludes("BRL").failures,
  },
  {
    id: "hanging-tool",
    fault: "a tool that never answers (timeout 200 ms x 2 attempts)",
    question: "What is ACME's stock price?",
    turns: [tools(call("stock_quote", { input: "ACME" })), say("I could not get ACME's price right now: the quote service timed out.")],
    check: (outcome) => expectThat(outcome).stopReason("final_answer").tools(["stock_quote"]).observation(0, /did not answer within/, "a timeout", "error").failures,
  },
  {
    id: "flaky-http",
    fault: "an HTTP service answering 503, 503, then 200 (retried with backoff)",
    question: "What's the weather in Berlin tomorrow?",
    setUp: (environment) => environment.forecastService.script([503, 503]),
    turns: [tools(call("weather_forecast", { input: "Berlin" })), say("Tomorrow in Berlin: overcast, high 8 °C, low 3 °C.")],
    check: (outcome, environment) =>
      expectThat(outcome)
        .stopReason("final_answer")
        .observation(0, /overcast/, "the forecast", "success")
        .that(environment.forecastService.hits === 3, `the service got ${environment.forecastService.hits} requests, expected 3`).failures,
  },
  {
    id: "ghost-failure",
    fault: 'HTTP 200 whose body is {"code":500,"msg":"system busy"}',
    question: "What is the live EUR/USD rate?",
    turns: [tools(call("exchange_rate_live", { input: "EUR/USD" })), tools(call("currency_convert", { amount: 1, from: "EUR", to: "USD" })), say("The live rate service is busy; at the demo rate 1 EUR = 1.10 USD.")],
    check: (outcome) => expectThat(outcome).stopReason("final_answer").tools(["exchange_rate_live", "currency_convert"]).observation(0, /fail|error|busy/i, "the failure", "error").failures,
  },
  {
    id: "circuit-open",
    fault: "a dead service: the circuit opens after 2 failures and the fallback answers",
    question: "Where are my parcels PX-1, PX-2 and PX-3?",
    turns: [
      tools(call("parcel_status", { input: "PX-1" })),
      tools(call("parcel_status", { input: "PX-2" })),
      tools(call("parcel_status", { input: "PX-3" })),
      say("Tracking is degraded; the last known status is in transit, due in 2 days."),
    ],
    check: (outcome, environment) =>
      expectThat(outcome)
        .stopReason("final_answer")
        .observation(2, /degraded/, "the fallback")
        .that(environment.parcelService.calls === 2, `the dead service was called ${environment.parcelService.calls} times, expected 2`).failures,
  },
  {
    id: "side-effect",
    fault: "a side-effect tool: dry run first, sent with that dry run's confirmation token",
    question: "Email ops@example.com that the deploy is done.",
    turns: [
      tools(call("send_email", { to: "ops@example.com", subject: "Deploy done", body: "The deploy finished." })),
      (messages) => {
        const dryRun = [...messages].reverse().find((message) => message.role === "tool");
        const text = typeof dryRun?.content === "string" ? dryRun.content : JSON.stringify(dryRun?.content ?? "");
        const token = /"confirm": "(ok-[0-9a-f]+)"/.exec(text)?.[1] ?? "missing";
        return { toolCalls: [call("send_email", { to: "ops@example.com", subject: "Deploy done", body: "The deploy finished.", confirm: token })] };
      },
      say("Sent the email to ops@example.com."),
    ],
    check: (outcome, environment) =>
      expectThat(outcome)
        .stopReason("final_answer")
        .observation(0, /DRY RUN.*"confirm": "ok-[0-9a-f]+"/, "the dry run with its confirmation token")
        .observation(1, /Email sent/, "the sent email")
        .that(environment.outbox.length === 1, `${environment.outbox.length} emails sent, expected 1`).failures,
  },
  {
    id: "injected-final-answer",
    fault: "search results containing 'Final Answer:' and 'Action:' lines",
    question: "What is the capital of Norway? Search the web.",
    turns: [tools(call("web_search", { input: "capital of Norway" })), say("Oslo is the capital of Norway.")],
    check: (outcome) =>
      expectThat(outcome)
        .stopReason("final_answer")
        .that(!/^\s*Final Answer:/m.test(contentOf(outcome.toolMessages[0] ?? new ToolMessage({ content: "", tool_call_id: "" }))), "the ToolMessage still has a 'Final Answer:' line")
        .that(!/^\s*Action:/m.test(contentOf(outcome.toolMessages[0] ?? new ToolMessage({ content: "", tool_call_id: "" }))), "the ToolMessage still has an 'Action:' line")
        .outputIncludes("Oslo").failures,
  },
  {
    id: "repeat-loop",
    fault: "the same tool call again and again (warned, then stopped)",
    question: "What is the capital of France?",
    turns: Array.from({ length: 6 }, () => tools(call("country_lookup", { input: "France" }))),
    check: (outcome) => expectThat(outcome).stopReason("repeat").outputIncludes("Paris", ESCAPE_HATCH).failures,
  },
  {
    id: "cycle",
    fault: "an A→B→A→B cycle between two tools",
    question: "How dense is Germany?",
    turns: Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? tools(call("country_lookup", { input: "Germany" })) : tools(call("calculator", { input: "84500000 / 357592" })))),
    check: (outcome) => expectThat(outcome).stopReason("cycle").outputIncludes(ESCAPE_HATCH).failures,
  },
  {
    id: "stall",
    fault: "near-identical thoughts making no progress (different inputs, same failing result)",
    question: "What is the live EUR exchange rate for any currency?",
    turns: ["USD", "GBP", "JPY", "CHF", "NOK", "BRL", "AUD", "CAD"].map((code) => ({
      content: "I still need a live EUR rate, so I will try the live rate service again.",
      toolCalls: [call("exchange_rate_live", { input: `EUR/${code}` })],
    })),
    check: (outcome) => expectThat(outcome).stopReason("stall").outputIncludes(ESCAPE_HATCH).failures,
  },
  {
    id: "step-budget",
    fault: "a step budget (maxSteps: 3 model calls) on a model that keeps looking things up",
    question: "Which European country has the most people per km²?",
    loopControl: { maxSteps: 3 },
    turns: ["France", "Germany", "Norway", "Switzerland", "Egypt"].map((country) => tools(call("country_lookup", { input: country }))),
    check: (outcome) => expectThat(outcome).stopReason("max_steps").outputIncludes(ESCAPE_HATCH).failures,
  },
]);

/**
 * LangGraph's step limit for the demo's runs: a model turn takes 4 graph steps with the middleware
 * (before_model, model, after_model, tools), so 64 leaves room for the default 15-call budget.
 */
const RECURSION_LIMIT = 64;

/** One createAgent scenario's result. */
export interface CreateAgentScenarioResult {
  readonly id: string;
  readonly outcome: CreateAgentOutcome;
  readonly failures: readonly string[];
  readonly unusedTurns: number;
  readonly durationMs: number;
}

/** Options of {@link runCreateAgentDemo}. */
export interface CreateAgentDemoOptions {
  /** @default process.stdout */
  write?: (text: string) => void;
  /** A live OpenAI-compatible model instead of the replay server (checks are skipped). */
  live?: LiveModelOptions;
  /** @default CREATE_AGENT_SCENARIOS */
  scenarios?: readonly CreateAgentScenario[];
  /** Registry for the metrics (share the classic demo's to see both agent styles in one exposition). @default a new Registry */
  registry?: Registry;
  /**
   * `stream()` (the model's reply streamed as `tool_calls` deltas) or `invoke()` (one JSON body).
   * @default "stream"
   */
  agentPath?: "invoke" | "stream";
  /** Where the middleware writes its audit trail, one record per tool call (`--audit FILE`; read it with `reins-trace`). */
  audit?: LoopAuditSink;
}

/** What {@link runCreateAgentDemo} returns. */
export interface CreateAgentDemoReport {
  readonly results: readonly CreateAgentScenarioResult[];
  readonly passed: boolean;
  readonly metrics: AgentMetrics;
}

/**
 * Runs the createAgent scenarios and prints each run's calls and ToolMessages.
 * @returns every scenario's outcome and the metrics
 */
export async function runCreateAgentDemo(options: CreateAgentDemoOptions = {}): Promise<CreateAgentDemoReport> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const scenarios = options.scenarios ?? CREATE_AGENT_SCENARIOS;
  const metrics = createAgentMetrics({ registry: options.registry ?? new Registry() });
  const { live } = options;
  const replayServer = live === undefined ? await startToolCallReplayServer() : undefined;
  const forecastService = await startFlakyForecastService();
  const results: CreateAgentScenarioResult[] = [];
  try {
    const model = new ChatOpenAI({
      // A model id ChatOpenAI has no tiktoken encoding for: it would download one (offline here) to count tokens.
      model: live?.model ?? (live === undefined ? "reins-replay-tools" : "gpt-4o-mini"),
      apiKey: live?.apiKey ?? "replay-key",
      configuration: { baseURL: live?.baseURL ?? replayServer?.baseURL },
      maxRetries: 0,
    });
    write(
      replayServer !== undefined
        ? `\nTool-calling replay server on ${replayServer.baseURL} (ChatOpenAI streams its tool_calls deltas).\n`
        : `\nLive model ${live?.model ?? "gpt-4o-mini"}; scenario checks are skipped.\n`,
    );
    for (const [index, scenario] of scenarios.entries()) {
      const outbox: SentEmail[] = [];
      const parcelService = { calls: 0 };
      const environment: CreateAgentEnvironment = { outbox, parcelService, forecastService };
      const agentTools = createDemoTools(forecastService.url, outbox, parcelService);
      metrics.registerTools(agentTools.map((tool) => tool.name));
      write(`\n━━ [createAgent ${index + 1}/${scenarios.length}] ${scenario.id} — ${scenario.fault}\nQuestion: ${scenario.question}\n`);
      forecastService.script([]);
      scenario.setUp?.(environment);
      replayServer?.clearQueue();
      replayServer?.enqueue(...scenario.turns);
      const requestsBefore = replayServer?.requests.length ?? 0;
      const agent = createAgent({
        model,
        tools: agentTools,
        middleware: [
          createReinsMiddleware({
            metrics,
            toolExecutor: { policies: DEMO_TOOL_POLICIES },
            ...(scenario.loopControl !== undefined ? { loopControl: scenario.loopControl } : {}),
            ...(options.audit !== undefined ? { audit: { sink: options.audit } } : {}),
          }),
        ],
      });
      const startedAt = Date.now();
      let outcome: CreateAgentOutcome;
      try {
        const input = { messages: [new HumanMessage(scenario.question)] };
        let state: { messages: BaseMessage[]; stopReason?: string };
        if ((options.agentPath ?? "stream") === "stream") {
          // streamMode "messages" makes LangGraph ask the model for a stream: ChatOpenAI then reads
          // the server's tool_calls deltas (ChatOpenAI's own `streaming: true` would also estimate
          // token counts with a tiktoken download on every call).
          state = { messages: [] };
          for await (const [mode, chunk] of await agent.stream(input, { streamMode: ["values", "messages"], recursionLimit: RECURSION_LIMIT })) {
            if (mode === "values") state = chunk as unknown as typeof state;
          }
        } else {
          state = (await agent.invoke(input, { recursionLimit: RECURSION_LIMIT })) as typeof state;
        }
        const messages = state.messages;
        const ai = messages.filter((message): message is AIMessage => AIMessage.isInstance(message));
        outcome = {
          output: ai.length === 0 ? "" : contentOf(ai[ai.length - 1]),
          stopReason: state.stopReason,
          toolMessages: messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message)),
          modelCalls: replayServer === undefined ? ai.length : replayServer.requests.length - requestsBefore,
        };
        for (const message of messages.slice(1)) {
          if (AIMessage.isInstance(message)) {
            for (const toolCall of message.tool_calls ?? []) write(`  │ tool call ${toolCall.name}(${JSON.stringify(toolCall.args)})\n`);
          } else if (ToolMessage.isInstance(message)) {
            write(`  │   ToolMessage [${message.status ?? "success"}] ${contentOf(message).replace(/\s+/g, " ").slice(0, 160)}\n`);
          }
        }
      } catch (error) {
        outcome = { output: "", stopReason: undefined, toolMessages: [], modelCalls: 0, error: error instanceof Error ? error : new Error(String(error)) };
      }
      const durationMs = Date.now() - startedAt;
      const unusedTurns = replayServer?.clearQueue() ?? 0;
      const failures = live === undefined ? scenario.check(outcome, environment) : [];
      const result = { id: scenario.id, outcome, failures, unusedTurns, durationMs };
      results.push(result);
      const [firstLine, ...moreLines] = `AI: ${outcome.output}`.split("\n");
      write(`  └ ${firstLine}\n${moreLines.map((line) => `    ${line}\n`).join("")}`);
      write(`${createAgentSummaryLine(result, live !== undefined)}\n`);
    }
    return { results, passed: results.every((result) => result.failures.length === 0), metrics };
  } finally {
    await replayServer?.close();
    await forecastService.close();
  }
}

/** One summary line of a createAgent scenario. */
export function createAgentSummaryLine(result: CreateAgentScenarioResult, live = false): string {
  const { outcome } = result;
  const mark = live ? "•" : result.failures.length === 0 ? "✓" : "✗";
  const how = outcome.error !== undefined ? `crashed (${outcome.error.message})` : `stopReason=${String(outcome.stopReason)}`;
  const count = outcome.toolMessages.length;
  const detail = `${count} ToolMessage${count === 1 ? "" : "s"}, ${outcome.modelCalls} model calls, ${(result.durationMs / 1000).toFixed(2)} s`;
  const failures = result.failures.length > 0 ? ` — FAILED: ${result.failures.join("; ")}` : "";
  return `${mark} ${result.id.padEnd(24)} ${how} (${detail})${failures}`;
}

/** What {@link runBothAgentStyles} returns. */
export interface BothAgentStylesReport {
  readonly classic: DemoReport;
  readonly createAgent: CreateAgentDemoReport;
  readonly passed: boolean;
  readonly metrics: AgentMetrics;
  /** The Prometheus exposition after both styles ran (one registry). */
  readonly exposition: string;
}

/**
 * `npm run demo -- --agent create-agent`: the classic scenarios through `AgentExecutor` +
 * `createReactAgent`, then the same fault kinds through `createAgent` + `createReinsMiddleware`,
 * into one metrics registry, then a summary of both agent styles.
 */
export async function runBothAgentStyles(options: DemoOptions = {}): Promise<BothAgentStylesReport> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const registry = options.registry ?? new Registry();
  // One exposition for both styles, at the end, and only with --metrics (printExposition).
  const classic = await runDemo({ ...options, write, registry, printExposition: false });
  write(`\n━━ The same fault kinds through LangChain v1 createAgent + createReinsMiddleware\n`);
  const createAgentReport = await runCreateAgentDemo({
    write,
    registry,
    ...(options.live !== undefined ? { live: options.live } : {}),
    ...(options.audit !== undefined ? { audit: options.audit } : {}),
    // The classic --stream flag picks AgentExecutor's loop; createAgent streams by default (tool_calls deltas).
  });
  write(`\n━━ Summary (createAgent)\n`);
  for (const result of createAgentReport.results) write(`${createAgentSummaryLine(result, options.live !== undefined)}\n`);
  const count = (results: ReadonlyArray<{ failures: readonly string[] }>) => `${results.filter((result) => result.failures.length === 0).length}/${results.length}`;
  write(`\n━━ Summary (both agent styles)\n`);
  write(`AgentExecutor + createReactAgent (ReAct text):           ${count(classic.results)} scenarios reached their expected outcome.\n`);
  write(`createAgent + createReinsMiddleware (native tool calls): ${count(createAgentReport.results)} scenarios reached their expected outcome.\n`);
  const exposition = await registry.metrics();
  if (options.printExposition === true) write(`\n━━ Prometheus metrics (both agent styles)\n${exposition}`);
  else write(`\n(Run with --metrics for the whole Prometheus exposition of both agent styles.)\n`);
  return { classic, createAgent: createAgentReport, passed: classic.passed && createAgentReport.passed, metrics: createAgentReport.metrics, exposition };
}
