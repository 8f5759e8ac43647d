/**
 * Integration: the Reins `createAgent` graph of `examples/langgraph-server/` served by LangGraph's
 * own dev server (`langgraphjs dev`, `@langchain/langgraph-cli`), driven through
 * `@langchain/langgraph-sdk` like any client of the Agent Server. Offline: the graph's `ChatOpenAI`
 * talks to Reins' replay server through `OPENAI_BASE_URL` (the server process inherits it), Redis
 * is a `redis-server` this test starts (`REDIS_URL`), and the Prometheus endpoint is the one the
 * graph module starts (`REINS_METRICS_PORT`). The CLI runs with no browser, no tunnel, no reload,
 * analytics off and LangSmith tracing off; its `.langgraph_api` store goes to a temp directory.
 *
 * Slow (the dev server compiles the graph with tsx at start-up: tens of seconds on a shared
 * machine). LangChain 1.x only: the compat run skips it with a named reason.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Client } from "@langchain/langgraph-sdk";
import type { ReplayServer } from "@reins/replay";
import { describeRequiring, freePort, REPO_ROOT, startRedis, type TestRedis } from "@reins/testing";
import type { Redis } from "ioredis";

jest.setTimeout(240_000);

const EXAMPLE_DIR = path.join(REPO_ROOT, "examples/langgraph-server");
const BIN_DIR = path.join(REPO_ROOT, "node_modules/.bin");
const START_TIMEOUT_MS = 180_000;

interface Values {
  readonly messages: ReadonlyArray<{ readonly type: string; readonly content: unknown; readonly name?: string; readonly tool_calls?: ReadonlyArray<{ readonly name: string }> }>;
  readonly stopReason?: string;
  readonly reinsRun?: { readonly modelCalls: number; readonly steps: readonly unknown[] };
  readonly __interrupt__?: ReadonlyArray<{ readonly value: { readonly actionRequests: ReadonlyArray<{ readonly name: string; readonly args: unknown }> } }>;
}

const textOf = (content: unknown): string => (typeof content === "string" ? content : JSON.stringify(content));

/** Resolves once `GET url` answers 200; rejects with the server's output when it exits or times out. */
async function waitForOk(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`langgraphjs dev exited (${child.exitCode ?? child.signalCode}):\n${output()}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`langgraphjs dev did not answer ${url} within ${START_TIMEOUT_MS} ms:\n${output()}`);
}

/** Ends the CLI and the server it spawned (one process group), and waits for the CLI's exit. */
async function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-(child.pid as number), signal);
    } catch {
      // Already gone.
    }
  };
  signalGroup("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 10_000)))]);
  clearTimeout(timer);
  signalGroup("SIGKILL");
  await exited;
}

const TITLE = "examples/langgraph-server on `langgraphjs dev` (@langchain/langgraph-cli 1.5.1; LangChain 1.x only)";

if (process.env.REINS_LANGCHAIN_LINE === "0.3") {
  // The server runs the repo's langchain 1.x whatever the test's line: nothing of 0.3 to test here.
  describe(TITLE, () => it.skip("skipped (LangChain 0.3 line: createAgent and LangGraph's server need langchain 1.x)", () => undefined));
} else describeRequiring([{ program: "redis-server" }, { program: "langgraphjs", alsoIn: [BIN_DIR] }], TITLE, suite);

function suite(): void {
  let replay: ReplayServer;
  let redis: TestRedis;
  let redisClient: Redis;
  let projectDir: string;
  let cli: ChildProcess;
  let output = "";
  let client: Client;
  let metricsUrl: string;
  let apiUrl: string;

  beforeAll(async () => {
    // Loaded here, so the compat run (which skips this suite) loads none of them.
    const [{ Client }, { startReplayServer }, { Redis }] = await Promise.all([import("@langchain/langgraph-sdk"), import("@reins/replay"), import("ioredis")]);
    replay = await startReplayServer({ outputs: [] });
    redis = await startRedis();
    redisClient = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    // langgraph.json beside the server's own store (.langgraph_api): a temp directory; the graph
    // stays where it is, so it resolves its packages from the repo. (The CLI joins a graph path to
    // the config's folder even when it is absolute: the path is relative.)
    projectDir = mkdtempSync(path.join(tmpdir(), "reins-langgraph-server-"));
    writeFileSync(path.join(projectDir, ".gitignore"), ".langgraph_api\n");
    writeFileSync(path.join(projectDir, "langgraph.json"), JSON.stringify({ node_version: "20", graphs: { agent: `${path.relative(projectDir, path.join(EXAMPLE_DIR, "src/agent.ts"))}:graph` } }));
    const [apiPort, metricsPort] = [await freePort(), await freePort()];
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    cli = spawn(
      path.join(BIN_DIR, "langgraphjs"),
      ["dev", "--host", "127.0.0.1", "--port", String(apiPort), "--no-browser", "--no-reload", "--config", path.join(projectDir, "langgraph.json"), "--studio-url", "http://127.0.0.1"],
      {
        // tsx (the server's loader) reads tsconfig.json from here: @reins/* resolve to the sources.
        cwd: EXAMPLE_DIR,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          LANGGRAPH_CLI_NO_ANALYTICS: "1",
          BROWSER: "none",
          LANGSMITH_TRACING: "false",
          LANGCHAIN_TRACING_V2: "false",
          NO_COLOR: "1",
          OPENAI_BASE_URL: replay.baseURL,
          OPENAI_API_KEY: "replay",
          OPENAI_MODEL: "reins-replay",
          REDIS_URL: redis.url,
          REINS_METRICS_PORT: String(metricsPort),
        },
      },
    );
    cli.stdout?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    cli.stderr?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    apiUrl = `http://127.0.0.1:${apiPort}`;
    await waitForOk(`${apiUrl}/ok`, cli, () => output);
    client = new Client({ apiUrl });
  }, START_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    if (cli !== undefined) await stopProcessGroup(cli);
    await redisClient?.quit();
    await redis?.stop();
    await replay?.close();
    if (projectDir !== undefined) rmSync(projectDir, { recursive: true, force: true });
  });

  async function run(threadId: string, payload: Parameters<Client["runs"]["wait"]>[2]): Promise<Values> {
    return (await client.runs.wait(threadId, "agent", { ...payload, durability: "sync" })) as unknown as Values;
  }

  it("runs a tool call on a thread: the answer, stopReason final_answer, the run record in the thread's state, the result cached in the shared Redis", async () => {
    replay.enqueue({ toolCalls: [{ name: "lookup_order", arguments: '{"orderId": "A-1001"}' }] }, "Order A-1001 was delivered.");
    const thread = await client.threads.create();
    const values = await run(thread.thread_id, { input: { messages: [{ role: "user", content: "Where is my order A-1001?" }] } });
    expect(values.messages.map((message) => message.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(textOf(values.messages[2].content)).toContain("status: delivered");
    expect(textOf(values.messages[3].content)).toBe("Order A-1001 was delivered.");
    expect(values.stopReason).toBe("final_answer");
    expect(values.reinsRun?.modelCalls).toBe(2);
    // The server's own persistence holds the same state (the graph passed no checkpointer).
    const state = await client.threads.getState<Values>(thread.thread_id);
    expect(state.values.stopReason).toBe("final_answer");
    expect(replay.pending).toBe(0);
    // REDIS_URL reached the graph: the global-scope cache entry of lookup_order is in Redis, under a
    // hash of its scoped key (never the raw tool input).
    const keys = await redisClient.keys("*");
    expect(keys.some((key) => key.startsWith("reins:tool:sha256:"))).toBe(true);
    expect(keys.some((key) => key.includes("A-1001"))).toBe(false);
  });

  it("pauses a refund at the human-in-the-loop interrupt, and a second request resumes the same run to its end", async () => {
    replay.enqueue({ toolCalls: [{ name: "refund", arguments: '{"orderId": "A-1001", "amountUsd": 42}' }] });
    const thread = await client.threads.create();
    const paused = await run(thread.thread_id, { input: { messages: [{ role: "user", content: "Refund order A-1001 in full." }] } });
    // An interrupted run answers with the interrupt: humanInTheLoopMiddleware's action request.
    expect(paused.__interrupt__?.map((interrupt) => interrupt.value.actionRequests.map((request) => [request.name, request.args]))).toEqual([[["refund", { orderId: "A-1001", amountUsd: 42 }]]]);
    const waiting = await client.threads.getState<Values>(thread.thread_id);
    expect(waiting.values.messages.map((message) => message.type)).toEqual(["human", "ai"]);
    expect(waiting.tasks.flatMap((task) => task.interrupts)).toHaveLength(1);
    expect(waiting.values.stopReason).toBeUndefined();

    replay.enqueue("I refunded 42 USD on order A-1001.");
    const resumed = await run(thread.thread_id, { command: { resume: { decisions: [{ type: "approve" }] } } });
    expect(resumed.messages.map((message) => message.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(textOf(resumed.messages[2].content)).toBe("Refunded 42 USD on order A-1001.");
    expect(textOf(resumed.messages[3].content)).toBe("I refunded 42 USD on order A-1001.");
    expect(resumed.stopReason).toBe("final_answer");
    // One run across both requests: the record counts both model calls.
    expect(resumed.reinsRun?.modelCalls).toBe(2);
    expect(replay.pending).toBe(0);
  });

  it("stops a model that repeats the same call with stopReason repeat and a final answer, not a recursion error", async () => {
    const same = { toolCalls: [{ name: "search_faq", arguments: '{"query": "refund policy"}' }] };
    replay.enqueue(same, same, same, same, same);
    const thread = await client.threads.create();
    const values = await run(thread.thread_id, { input: { messages: [{ role: "user", content: "What is the refund policy?" }] } });
    expect(values.stopReason).toBe("repeat");
    const last = values.messages.at(-1);
    expect(last?.type).toBe("ai");
    expect(last?.tool_calls ?? []).toEqual([]);
    expect(textOf(last?.content)).toMatch(/repeat/i);
    expect(values.reinsRun?.modelCalls).toBeLessThan(5);
    replay.clearQueue();
  });

  it("runs the example's client (src/client.ts) literally: a lookup, a refund paused for approval, resumed to its final answer", async () => {
    replay.enqueue(
      { toolCalls: [{ name: "lookup_order", arguments: '{"orderId": "A-1002"}' }] },
      { toolCalls: [{ name: "refund", arguments: '{"orderId": "A-1002", "amountUsd": 120}' }] },
      "I refunded 120 USD on order A-1002.",
    );
    const child = spawn(path.join(BIN_DIR, "tsx"), ["src/client.ts"], { cwd: EXAMPLE_DIR, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LANGGRAPH_API_URL: apiUrl } });
    let printed = "";
    child.stdout?.on("data", (chunk: Buffer) => void (printed += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => void (printed += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect({ code, printed: code === 0 ? "" : printed }).toEqual({ code: 0, printed: "" });
    expect(printed).toContain('"__interrupt__"');
    expect(printed).toContain("I refunded 120 USD on order A-1002.");
    expect(printed).toContain('"stopReason": "final_answer"');
    expect(replay.pending).toBe(0);
  });

  it("serves Reins' Prometheus metrics from the graph's process (REINS_METRICS_PORT): the tool calls and the stops of these runs", async () => {
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(/react_agent_tool_calls_total\{[^}]*tool="lookup_order"[^}]*\} 2/);
    expect(text).toMatch(/react_agent_tool_calls_total\{[^}]*tool="refund"[^}]*\} 2/);
    expect(text).toMatch(/react_agent_stops_total\{[^}]*reason="repeat"[^}]*\} 1/);
  });
}
