/**
 * The demo: the real `ChatOpenAI` client pointed at the replay server (or a live OpenAI-compatible
 * endpoint), the stock `AgentExecutor` running Reins' `createReactAgent` with every piece on, over
 * the scripted scenarios. Prints every step and each scenario's answer, then (with
 * `printExposition`) the Prometheus exposition, and last the summary: one line per scenario and a
 * short table of the main counters.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AgentExecutor } from "@langchain/classic/agents";
import type { AgentAction, AgentStep } from "@langchain/core/agents";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { ChatOpenAI } from "@langchain/openai";
import type { LoopAuditSink } from "@reins/loop-control";
import { createAgentMetrics, type AgentMetrics } from "@reins/metrics";
import { createReactAgent } from "@reins/react-agent";
import { RedisResultStore } from "@reins/redis-store";
import { StoppedRunCallError } from "@reins/tool-executor";
import { Registry } from "prom-client";
import { DEMO_SCENARIOS, demoToolPolicies, type DemoEnvironment, type DemoScenario, type ScenarioOutcome } from "./demo-scenarios";
import {
  createDemoTools,
  createPageTool,
  type ScriptedHttpService,
  type SentEmail,
  startFlakyForecastService,
} from "./demo-tools";
import { formatCounterTable } from "./demo-summary";
import { createReactPrompt } from "./react-prompt";
import { startReplayServer, type ReplayServer } from "@reins/replay";
import { ToolProgress } from "./tool-progress";

/** A live OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp). */
export interface LiveModelOptions {
  readonly apiKey: string;
  /** @default the OpenAI API */
  readonly baseURL?: string;
  /** @default "gpt-4o-mini" */
  readonly model?: string;
}

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Where the transcript goes. @default process.stdout */
  write?: (text: string) => void;
  /** Run the questions against this live model instead of the replay server (scripts and checks are skipped). */
  live?: LiveModelOptions;
  /** @default DEMO_SCENARIOS */
  scenarios?: readonly DemoScenario[];
  /** Registry for the metrics. @default a new prom-client Registry */
  registry?: Registry;
  /**
   * Which executor loop runs the scenarios: `invoke()` or `stream()` (LangChain runs a different
   * loop for each).
   * @default "invoke"
   */
  executorPath?: "invoke" | "stream";
  /**
   * Print the whole Prometheus exposition before the summary (`--metrics`).
   * @default false (the summary's counter table only)
   */
  printExposition?: boolean;
  /** Where loop control writes its audit trail, one record per step (`--audit FILE`; read it with `reins-trace`). */
  audit?: LoopAuditSink;
}

/** One scenario's result. */
export interface ScenarioResult {
  readonly id: string;
  readonly outcome: ScenarioOutcome;
  /** Expectations that did not hold (always empty in live mode, where nothing is checked). */
  readonly failures: readonly string[];
  /** Scripted replies the run did not use. */
  readonly unusedReplies: number;
  readonly durationMs: number;
}

/** What {@link runDemo} returns. */
export interface DemoReport {
  readonly results: readonly ScenarioResult[];
  /** True when every scenario reached its expected outcome (always true in live mode). */
  readonly passed: boolean;
  readonly metrics: AgentMetrics;
  /** The Prometheus exposition after the run. */
  readonly exposition: string;
}

function indent(text: string, prefix = "  │ "): string {
  return text
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n");
}

function observationText(output: unknown): string {
  if (typeof output === "string") return output;
  if (output !== null && typeof output === "object" && "content" in output) {
    const content = (output as { content: unknown }).content;
    return typeof content === "string" ? content : JSON.stringify(content);
  }
  return JSON.stringify(output);
}

/** Prints each step as the executor runs it: the model's reply, then the observation. */
class TranscriptHandler extends BaseCallbackHandler {
  name = "ReinsDemoTranscript";
  /** Model calls seen (chat models report through handleChatModelStart, LLMs through handleLLMStart). */
  modelCalls = 0;

  constructor(private readonly write: (text: string) => void) {
    super();
  }

  override async handleChatModelStart(): Promise<void> {
    this.modelCalls += 1;
  }

  override async handleLLMStart(): Promise<void> {
    this.modelCalls += 1;
  }

  override async handleAgentAction(action: AgentAction): Promise<void> {
    const header = action.tool === "_Exception" ? "  ├ model reply (rejected by the parser):" : `  ├ model reply → action ${action.tool}(${JSON.stringify(action.toolInput)}):`;
    this.write(`${header}\n${indent(action.log.trim())}\n`);
  }

  override async handleToolEnd(output: unknown): Promise<void> {
    this.write(`${indent(`Observation: ${observationText(output)}`, "  │   ")}\n`);
  }
}

interface DemoWorld {
  readonly environment: DemoEnvironment & { outbox: SentEmail[]; parcelService: { calls: number } };
  readonly tools: ReturnType<typeof createTools>;
}

function createTools(forecastService: ScriptedHttpService, outbox: SentEmail[], parcelService: { calls: number }) {
  return [...createDemoTools(forecastService.url, outbox, parcelService), createPageTool()];
}

function newWorld(forecastService: ScriptedHttpService): DemoWorld {
  const outbox: SentEmail[] = [];
  const parcelService = { calls: 0 };
  return { environment: { outbox, parcelService, forecastService }, tools: createTools(forecastService, outbox, parcelService) };
}

/**
 * Runs the demo.
 *
 * @param options - output sink, live model, scenarios, registry
 * @returns every scenario's outcome and the metrics
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoReport> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const scenarios = options.scenarios ?? DEMO_SCENARIOS;
  const metrics = createAgentMetrics({ registry: options.registry ?? new Registry() });
  const live = options.live;
  let replayServer: ReplayServer | undefined;
  let forecastService: ScriptedHttpService | undefined;
  const results: ScenarioResult[] = [];
  // A fleet's shared cache: with REDIS_URL set, cacheable tool results live in Redis.
  const redisUrl = process.env.REDIS_URL;
  const resultStore = redisUrl === undefined || redisUrl === "" ? undefined : new RedisResultStore({ url: redisUrl, onError: (error) => write(`[redis] ${error.message} The call ran uncached.\n`) });
  try {
    if (resultStore !== undefined) write(`Tool results are cached in Redis at ${redisUrl} (RedisResultStore).\n`);
    forecastService = await startFlakyForecastService();
    let llm: ChatOpenAI;
    if (live === undefined) {
      replayServer = await startReplayServer({ model: "reins-replay" });
      llm = new ChatOpenAI({ model: "reins-replay", apiKey: "replay-no-key", maxRetries: 0, configuration: { baseURL: replayServer.baseURL } });
      write(`Replay model server on ${replayServer.baseURL} (the real ChatOpenAI client talks to it).\n`);
    } else {
      llm = new ChatOpenAI({
        model: live.model ?? "gpt-4o-mini",
        apiKey: live.apiKey,
        temperature: 0,
        ...(live.baseURL !== undefined ? { configuration: { baseURL: live.baseURL } } : {}),
      });
      write(`Live model ${live.model ?? "gpt-4o-mini"} at ${live.baseURL ?? "the OpenAI API"}; scenario checks are skipped.\n`);
    }
    write(`Flaky forecast service on ${forecastService.url}\n`);
    if (options.executorPath === "stream") write("Running the scenarios through AgentExecutor.stream().\n");

    for (const [index, scenario] of scenarios.entries()) {
      const world = newWorld(forecastService);
      metrics.registerTools(world.tools.map((tool) => tool.name));
      write(`\n━━ [${index + 1}/${scenarios.length}] ${scenario.id} — ${scenario.fault}\nQuestion: ${scenario.question}\n`);
      forecastService.script([]);
      scenario.setUp?.(world.environment);
      let refusedCalls = 0;
      // A call running longer than 5 s gets a `  … tool running N s` line every 5 s.
      const progress = new ToolProgress({ write });
      const agent = await createReactAgent({
        llm,
        tools: world.tools,
        prompt: createReactPrompt(),
        metrics,
        onEvent: (event) => {
          progress.record(event);
          if (event.type === "tool_call" && event.outcome === "rejected" && StoppedRunCallError.isInstance(event.error)) refusedCalls += 1;
        },
        toolExecutor: { policies: demoToolPolicies(resultStore) },
        loopControl: { mode: "finish", ...scenario.loopControl, ...(options.audit !== undefined ? { audit: { sink: options.audit } } : {}) },
      });
      const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true, returnIntermediateSteps: true, maxIterations: 12 });
      const transcript = new TranscriptHandler(write);
      if (replayServer !== undefined) {
        replayServer.clearQueue();
        replayServer.enqueue(...scenario.script);
      }
      const startedAt = Date.now();
      let outcome: ScenarioOutcome;
      try {
        const config = { callbacks: [...agent.callbacks, transcript] };
        let result: Record<string, unknown> = {};
        if (options.executorPath === "stream") {
          // The last chunk of stream() is the executor's returned values.
          for await (const chunk of await executor.stream({ input: scenario.question }, config)) result = chunk as Record<string, unknown>;
        } else {
          result = await executor.invoke({ input: scenario.question }, config);
        }
        outcome = {
          output: String(result.output ?? ""),
          stopReason: typeof result.stopReason === "string" ? result.stopReason : undefined,
          steps: (result.intermediateSteps as AgentStep[] | undefined) ?? [],
          modelCalls: transcript.modelCalls,
          refusedCalls,
        };
      } catch (error) {
        outcome = {
          output: "",
          stopReason: undefined,
          steps: [],
          modelCalls: transcript.modelCalls,
          refusedCalls,
          error: error instanceof Error ? error : new Error(String(error)),
        };
      }
      progress.stop();
      const durationMs = Date.now() - startedAt;
      const unusedReplies = replayServer?.clearQueue() ?? 0;
      const failures = live === undefined ? scenario.check(outcome, world.environment) : [];
      results.push({ id: scenario.id, outcome, failures, unusedReplies, durationMs });
      const [firstLine, ...moreLines] = `Final Answer: ${outcome.output}`.split("\n");
      write(`  └ ${firstLine}\n${moreLines.map((line) => `    ${line}\n`).join("")}`);
      write(`${summaryLine(results[results.length - 1], live !== undefined)}\n`);
    }

    const exposition = await metrics.registry.metrics();
    if (options.printExposition === true) write(`\n━━ Prometheus metrics\n${exposition}`);
    write(`\n━━ Summary\n`);
    for (const result of results) write(`${summaryLine(result, live !== undefined)}\n`);
    const passed = results.every((result) => result.failures.length === 0);
    write(`\nMain counters (${options.printExposition === true ? "the whole exposition is above" : "run with --metrics for the whole exposition"}):\n`);
    write(await formatCounterTable(metrics));
    write(
      live === undefined
        ? `${results.filter((result) => result.failures.length === 0).length}/${results.length} scenarios reached their expected outcome.\n`
        : `Live run: ${results.length} scenarios run; outcomes are not checked against a live model.\n`,
    );
    return { results, passed, metrics, exposition };
  } finally {
    await replayServer?.close();
    await forecastService?.close();
    await resultStore?.close();
  }
}

function summaryLine(result: ScenarioResult, live: boolean): string {
  const { outcome } = result;
  const mark = live ? "•" : result.failures.length === 0 ? "✓" : "✗";
  const toolSteps = outcome.steps.filter((step) => step.action.tool !== "_Exception").length;
  const retries = outcome.steps.length - toolSteps;
  const toolCalls = toolSteps - outcome.refusedCalls;
  const how = outcome.error !== undefined ? `crashed (${outcome.error.message})` : `stopReason=${String(outcome.stopReason)}`;
  const detail = [
    `${toolCalls} tool call${toolCalls === 1 ? "" : "s"}`,
    ...(outcome.refusedCalls > 0 ? [`${outcome.refusedCalls} refused (run stopping)`] : []),
    ...(retries > 0 ? [`${retries} corrective retr${retries === 1 ? "y" : "ies"}`] : []),
    `${outcome.modelCalls} model calls`,
    `${(result.durationMs / 1000).toFixed(2)} s`,
  ].join(", ");
  const failures = result.failures.length > 0 ? ` — FAILED: ${result.failures.join("; ")}` : "";
  return `${mark} ${result.id.padEnd(24)} ${how} (${detail})${failures}`;
}

/**
 * Serves `/metrics` (Prometheus text format) from `registry` on 127.0.0.1.
 *
 * @param registry - the registry to expose
 * @param port - port to bind; 0 picks a free one
 * @returns the server and its URL; close the server to stop
 */
export async function serveMetrics(registry: Registry, port = 0): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    if (request.method === "GET" && (request.url ?? "").split("?")[0] === "/metrics") {
      registry
        .metrics()
        .then((text) => {
          response.writeHead(200, { "content-type": registry.contentType });
          response.end(text);
        })
        .catch((error: unknown) => {
          response.writeHead(500, { "content-type": "text/plain" });
          response.end(`metrics collection failed: ${(error as Error).message}`);
        });
      return;
    }
    response.writeHead(404, { "content-type": "text/plain" });
    response.end("Not found. Metrics are on /metrics.\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${address.port}/metrics` };
}
