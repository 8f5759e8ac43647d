/**
 * `npm run bench` — runs every benchmark module present (parser, tool executor, observation
 * cleaner), prints their tables and writes each result as JSON under `bench/results/` at the
 * repository root. A module that is missing or fails is reported and skipped; the others still
 * run. Not part of `npm test`: speed is measured here, never asserted in tests.
 *
 * `npm run bench -- parser cleaner` runs only the named benchmarks.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { AgentExecutor } from "@langchain/classic/agents";
import { PromptTemplate } from "@langchain/core/prompts";
import { LoopControlHandler } from "@reins/loop-control";
import { createAgentMetrics } from "@reins/metrics";
import { createReactAgent } from "@reins/react-agent";
import { Registry } from "prom-client";

interface BenchModule {
  readonly name: string;
  readonly file: string;
  readonly runExport: string;
  readonly formatExport: string;
  /** Options passed to the run function, built once the module is loaded. */
  readonly options?: (module: Record<string, unknown>) => unknown;
}

/** The tool-executor bench's extension point: Reins' own agent stacks timed beside the stock ones. */
interface AgentBenchStack {
  readonly name: string;
  prepare(steps: number): Promise<() => Promise<void>>;
}

interface ToolExecutorBenchExports {
  BenchChatModel: new (steps: number) => InstanceType<typeof import("@langchain/core/language_models/chat_models").SimpleChatModel> & { reset(): void };
  createInstantTool: () => import("@langchain/core/tools").DynamicTool;
  BENCH_REACT_PROMPT: string;
}

/** Which pieces a Reins stack turns on (each later stack adds one, for the per-component breakdown). */
interface ReinsStackPieces {
  readonly toolExecutor: boolean;
  readonly cleaner: boolean;
  readonly loopControl: boolean | "handler";
  readonly metrics: boolean;
}

/** Reins' `createReactAgent` with the given pieces, as a stack for the tool-executor bench's per-step timing. */
function reinsStack(module: Record<string, unknown>, name: string, pieces: ReinsStackPieces): AgentBenchStack {
  const { BenchChatModel, createInstantTool, BENCH_REACT_PROMPT } = module as unknown as ToolExecutorBenchExports;
  return {
    name,
    async prepare(steps) {
      const model = new BenchChatModel(steps);
      const agent = await createReactAgent({
        llm: model,
        tools: [createInstantTool()],
        prompt: PromptTemplate.fromTemplate(BENCH_REACT_PROMPT),
        ...(pieces.toolExecutor ? {} : { toolExecutor: false as const }),
        ...(pieces.cleaner ? {} : { observation: false as const }),
        ...(pieces.loopControl === false ? { loopControl: false as const } : {}),
        ...(pieces.loopControl === "handler" ? { loopControl: new LoopControlHandler({ mode: "finish", maxSteps: steps + 2 }) } : {}),
        ...(pieces.metrics ? { metrics: createAgentMetrics({ registry: new Registry() }) } : {}),
      });
      const executor = new AgentExecutor({ agent, tools: agent.tools, maxIterations: steps + 5 });
      // Only the callback path (a LoopControlHandler given as loopControl) has callbacks to pass.
      const config = agent.callbacks.length > 0 ? { callbacks: agent.callbacks } : undefined;
      return async () => {
        model.reset();
        const result = await executor.invoke({ input: "bench" }, config);
        if (result.output !== "done") throw new Error(`Stack "${name}" did not finish: ${JSON.stringify(result.output)}`);
      };
    },
  };
}

/** The Reins stacks, each adding one piece to the one before, so their differences are each piece's cost. */
function reinsStacks(module: Record<string, unknown>): AgentBenchStack[] {
  return [
    reinsStack(module, "Reins: agent + parser only", { toolExecutor: false, cleaner: false, loopControl: false, metrics: false }),
    reinsStack(module, "Reins: + ToolExecutor (tool wrapper)", { toolExecutor: true, cleaner: false, loopControl: false, metrics: false }),
    reinsStack(module, "Reins: + observation cleaner", { toolExecutor: true, cleaner: true, loopControl: false, metrics: false }),
    reinsStack(module, "Reins: + loop control (agent-fed, no handler)", { toolExecutor: true, cleaner: true, loopControl: true, metrics: false }),
    reinsStack(module, "Reins: whole stack (+ metrics), no callback handler", { toolExecutor: true, cleaner: true, loopControl: true, metrics: true }),
    reinsStack(module, "Reins: whole stack, LoopControlHandler via callbacks (old path)", { toolExecutor: true, cleaner: true, loopControl: "handler", metrics: true }),
  ];
}

const BENCHES: readonly BenchModule[] = [
  { name: "parser", file: "./parser-bench", runExport: "runParserBench", formatExport: "formatParserBench" },
  {
    name: "tool-executor",
    file: "./tool-executor-bench",
    runExport: "runToolExecutorBench",
    formatExport: "formatToolExecutorBench",
    options: (module) =>
      "BenchChatModel" in module && "createInstantTool" in module && "BENCH_REACT_PROMPT" in module
        ? {
            extraStacks: reinsStacks(module),
          }
        : {},
  },
  { name: "cleaner", file: "./cleaner-bench", runExport: "runCleanerBench", formatExport: "formatCleanerBench" },
  { name: "tokenizer", file: "./tokenizer-bench", runExport: "runTokenizerBench", formatExport: "formatTokenizerBench" },
  { name: "hostile-text", file: "./hostile-text-bench", runExport: "runHostileTextBench", formatExport: "formatHostileTextBench" },
];

function isMissingModule(error: unknown, file: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : "";
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && message.includes(file.slice(2));
}

async function main(argv: readonly string[]): Promise<number> {
  const only = argv.filter((arg) => !arg.startsWith("--"));
  const unknown = only.filter((name) => !BENCHES.some((bench) => bench.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark(s): ${unknown.join(", ")}; known: ${BENCHES.map((bench) => bench.name).join(", ")}\n`);
    return 2;
  }
  const resultsDir = fileURLToPath(new URL("../../bench/results/", import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  let failures = 0;
  for (const bench of BENCHES) {
    if (only.length > 0 && !only.includes(bench.name)) continue;
    process.stdout.write(`\n━━ ${bench.name} benchmark\n`);
    let module: Record<string, unknown>;
    try {
      module = (await import(bench.file)) as Record<string, unknown>;
    } catch (error) {
      if (isMissingModule(error, bench.file)) {
        process.stdout.write(`skipped: examples/bench/${bench.file.slice(2)}.ts does not exist yet.\n`);
        continue;
      }
      throw error;
    }
    const run = module[bench.runExport];
    if (typeof run !== "function") {
      process.stdout.write(`skipped: examples/bench/${bench.file.slice(2)}.ts has no ${bench.runExport} export.\n`);
      continue;
    }
    const startedAt = Date.now();
    try {
      const result: unknown = await (run as (options?: unknown) => unknown)(bench.options?.(module));
      const format = module[bench.formatExport];
      process.stdout.write(typeof format === "function" ? `${String((format as (value: unknown) => unknown)(result))}\n` : `${JSON.stringify(result, null, 2)}\n`);
      const file = `${resultsDir}${bench.name}-${stamp}.json`;
      writeFileSync(file, `${JSON.stringify({ bench: bench.name, startedAt: new Date(startedAt).toISOString(), durationMs: Date.now() - startedAt, node: process.version, result }, null, 2)}\n`);
      process.stdout.write(`(${((Date.now() - startedAt) / 1000).toFixed(1)} s) written to ${file}\n`);
    } catch (error) {
      failures += 1;
      process.stdout.write(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
  }
  return failures === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
