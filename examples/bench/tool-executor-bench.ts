/**
 * Benchmark of `@reins/tool-executor`:
 * 1. wrapped-call overhead: `wrapped.invoke()` vs the original tool's `invoke()`, instant tool;
 * 2. per-step time of the stock `createReactAgent` + stock `AgentExecutor` with the same scripted
 *    model and instant tools: bare tools, bare tools + one no-op callback handler, wrapped tools.
 *    Other stacks (e.g. Reins' `createReactAgent`) plug in as {@link AgentBenchStack}s.
 *
 * Run standalone: `npx tsx examples/bench/tool-executor-bench.ts`.
 * Numbers are wall time on this machine (performance.now), after warm-up; medians of rounds.
 */
import { performance } from "node:perf_hooks";
import { AgentExecutor, createReactAgent } from "@langchain/classic/agents";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicTool, type ToolInterface } from "@langchain/core/tools";
import { ToolExecutor, type ToolExecutorOptions } from "@reins/tool-executor";
import { REACT_PROMPT_TEMPLATE } from "@reins/core";
import { ScriptedChatModel } from "@reins/testing";

/** The ReAct prompt the stock `createReactAgent` expects (hwchase17/react). */
export const BENCH_REACT_PROMPT = REACT_PROMPT_TEMPLATE;

/**
 * A scripted chat model: `steps` actions calling `lookup`, then a final answer, cycling; honours
 * `stop`. `reset()` starts the script again (each run uses `steps + 1` calls).
 */
export class BenchChatModel extends ScriptedChatModel {
  constructor(steps: number) {
    super({
      replies: [
        ...Array.from({ length: steps }, (_, index) => `I need to look this up.\nAction: lookup\nAction Input: item ${index}\nObservation: hallucinated`),
        "I now know the final answer.\nFinal Answer: done",
      ],
      cycle: true,
      recordCalls: false,
    });
  }
}

/** An instant string tool. */
export function createInstantTool(): DynamicTool {
  return new DynamicTool({ name: "lookup", description: "Looks up an item.", func: async (input) => `value of ${input}` });
}

class NoopCallbackHandler extends BaseCallbackHandler {
  name = "noop";
}

/** One agent stack to time: `runOnce(steps)` runs one agent invocation with `steps` tool steps. */
export interface AgentBenchStack {
  readonly name: string;
  /** Prepares a runner for `steps` tool steps; the returned function runs one invocation. */
  prepare(steps: number): Promise<() => Promise<void>>;
}

/** A stack of the stock `createReactAgent` + `AgentExecutor`, with tools and callbacks as given. */
export function stockStack(name: string, options: { wrap?: ToolExecutorOptions; noopHandler?: boolean }): AgentBenchStack {
  return {
    name,
    async prepare(steps) {
      const model = new BenchChatModel(steps);
      const base: ToolInterface[] = [createInstantTool()];
      const tools = options.wrap === undefined ? base : new ToolExecutor(options.wrap).wrap(base);
      const agent = await createReactAgent({ llm: model, tools, prompt: PromptTemplate.fromTemplate(BENCH_REACT_PROMPT) });
      const executor = new AgentExecutor({ agent, tools, maxIterations: steps + 5 });
      const callbacks = options.noopHandler === true ? [new NoopCallbackHandler()] : undefined;
      return async () => {
        model.reset();
        const result = await executor.invoke({ input: "bench" }, callbacks === undefined ? undefined : { callbacks });
        if (result.output !== "done") throw new Error(`Stack "${name}" did not finish: ${JSON.stringify(result.output)}`);
      };
    },
  };
}

/** Per-step timing of one stack. */
export interface StackTiming {
  readonly name: string;
  /** Median over rounds of (run wall time / tool steps), in milliseconds. */
  readonly msPerStep: number;
  /**
   * Median over rounds of (process CPU time, user + system / tool steps), in milliseconds: less
   * sensitive than wall time to other processes on a busy machine.
   */
  readonly cpuMsPerStep: number;
  /** `cpuMsPerStep` divided by the bare stock stack's. */
  readonly cpuRatioToBareStock: number;
  /** `cpuMsPerStep` divided by the stock stack with one no-op callback handler. */
  readonly cpuRatioToStockWithNoopHandler: number;
  /** `msPerStep` divided by the bare stock stack's. */
  readonly ratioToBareStock: number;
  /** `msPerStep` divided by the stock stack with one no-op callback handler. */
  readonly ratioToStockWithNoopHandler: number;
}

/** Result of {@link runToolExecutorBench}. */
export interface ToolExecutorBenchResult {
  readonly callOverhead: {
    readonly iterations: number;
    /** Median microseconds per `invoke` of the original instant tool. */
    readonly directMicros: number;
    /** Median microseconds per `invoke` of the wrapped tool, default policy. */
    readonly wrappedDefaultMicros: number;
    /** Median microseconds per `invoke` of the wrapped tool with timeout, retry, breaker and checks off. */
    readonly wrappedMinimalMicros: number;
    readonly defaultRatio: number;
    readonly minimalRatio: number;
  };
  readonly perStep: {
    readonly stepsPerRun: number;
    readonly runsPerRound: number;
    readonly rounds: number;
    readonly stacks: readonly StackTiming[];
  };
}

/** Options of {@link runToolExecutorBench}. */
export interface ToolExecutorBenchOptions {
  /** Tool invocations per overhead round. @default 2000 */
  callIterations?: number;
  /** Tool steps per agent run. @default 10 */
  stepsPerRun?: number;
  /** Agent runs per round. @default 30 */
  runsPerRound?: number;
  /** Rounds (the median is reported). @default 7 */
  rounds?: number;
  /** Extra stacks to time next to the stock ones (e.g. Reins' createReactAgent). @default [] */
  extraStacks?: readonly AgentBenchStack[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Median microseconds per call of each function; rounds interleave the functions so noise hits all alike. */
async function timeCallsInterleaved(invokes: ReadonlyArray<() => Promise<unknown>>, iterations: number, rounds: number): Promise<number[]> {
  for (const invoke of invokes) for (let index = 0; index < Math.min(1000, iterations); index += 1) await invoke();
  const perRound: number[][] = invokes.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (const [position, invoke] of invokes.entries()) {
      const startedAt = performance.now();
      for (let index = 0; index < iterations; index += 1) await invoke();
      perRound[position].push(((performance.now() - startedAt) * 1000) / iterations);
    }
  }
  return perRound.map((values) => median(values));
}

/** Runs the benchmark and returns the figures (nothing is printed). */
export async function runToolExecutorBench(options: ToolExecutorBenchOptions = {}): Promise<ToolExecutorBenchResult> {
  const callIterations = options.callIterations ?? 2000;
  const stepsPerRun = options.stepsPerRun ?? 10;
  const runsPerRound = options.runsPerRound ?? 30;
  const rounds = options.rounds ?? 7;

  const direct = createInstantTool();
  const [wrappedDefault] = new ToolExecutor().wrap([createInstantTool()]);
  const [wrappedMinimal] = new ToolExecutor({
    defaults: { timeoutMs: Number.POSITIVE_INFINITY, retry: false, circuitBreaker: false, resultChecks: false },
  }).wrap([createInstantTool()]);
  const [directMicros, wrappedDefaultMicros, wrappedMinimalMicros] = await timeCallsInterleaved(
    [() => direct.invoke("x"), () => wrappedDefault.invoke("x"), () => wrappedMinimal.invoke("x")],
    callIterations,
    rounds,
  );

  const stacks: AgentBenchStack[] = [
    stockStack("stock AgentExecutor, bare tools", {}),
    stockStack("stock AgentExecutor, bare tools + 1 no-op callback handler", { noopHandler: true }),
    stockStack("stock AgentExecutor, ToolExecutor-wrapped tools (default policy)", { wrap: {} }),
    stockStack("stock AgentExecutor, ToolExecutor-wrapped tools + 1 no-op callback handler", { wrap: {}, noopHandler: true }),
    ...(options.extraStacks ?? []),
  ];
  const runners = await Promise.all(stacks.map((stack) => stack.prepare(stepsPerRun)));
  const perRoundMs: number[][] = stacks.map(() => []);
  const perRoundCpuMs: number[][] = stacks.map(() => []);
  for (const runner of runners) for (let index = 0; index < 5; index += 1) await runner();
  for (let round = 0; round < rounds; round += 1) {
    // Interleave stacks within each round so machine noise hits all of them alike.
    for (const [index, runner] of runners.entries()) {
      const startedAt = performance.now();
      const cpuAtStart = process.cpuUsage();
      for (let run = 0; run < runsPerRound; run += 1) await runner();
      const cpu = process.cpuUsage(cpuAtStart);
      perRoundMs[index].push((performance.now() - startedAt) / runsPerRound / stepsPerRun);
      perRoundCpuMs[index].push((cpu.user + cpu.system) / 1000 / runsPerRound / stepsPerRun);
    }
  }
  const msPerStep = perRoundMs.map((values) => median(values));
  const cpuMsPerStep = perRoundCpuMs.map((values) => median(values));
  const bare = msPerStep[0];
  const withNoop = msPerStep[1];
  return {
    callOverhead: {
      iterations: callIterations,
      directMicros,
      wrappedDefaultMicros,
      wrappedMinimalMicros,
      defaultRatio: wrappedDefaultMicros / directMicros,
      minimalRatio: wrappedMinimalMicros / directMicros,
    },
    perStep: {
      stepsPerRun,
      runsPerRound,
      rounds,
      stacks: stacks.map((stack, index) => ({
        name: stack.name,
        msPerStep: msPerStep[index],
        ratioToBareStock: msPerStep[index] / bare,
        ratioToStockWithNoopHandler: msPerStep[index] / withNoop,
        cpuMsPerStep: cpuMsPerStep[index],
        cpuRatioToBareStock: cpuMsPerStep[index] / cpuMsPerStep[0],
        cpuRatioToStockWithNoopHandler: cpuMsPerStep[index] / cpuMsPerStep[1],
      })),
    },
  };
}

function report(result: ToolExecutorBenchResult): string {
  const overhead = result.callOverhead;
  const lines = [
    `tool call (instant tool, ${overhead.iterations} calls/round, median):`,
    `  direct invoke            ${overhead.directMicros.toFixed(1)} µs`,
    `  wrapped, default policy  ${overhead.wrappedDefaultMicros.toFixed(1)} µs  (${overhead.defaultRatio.toFixed(2)}×)`,
    `  wrapped, minimal policy  ${overhead.wrappedMinimalMicros.toFixed(1)} µs  (${overhead.minimalRatio.toFixed(2)}×)`,
    `per step (${result.perStep.stepsPerRun} steps/run, ${result.perStep.runsPerRound} runs/round, median of ${result.perStep.rounds} rounds):`,
    ...result.perStep.stacks.map(
      (stack) =>
        `  ${stack.name}\n    wall ${stack.msPerStep.toFixed(3)} ms  ×${stack.ratioToBareStock.toFixed(2)} bare  ×${stack.ratioToStockWithNoopHandler.toFixed(2)} vs no-op handler` +
        ` | cpu ${stack.cpuMsPerStep.toFixed(3)} ms  ×${stack.cpuRatioToBareStock.toFixed(2)} bare  ×${stack.cpuRatioToStockWithNoopHandler.toFixed(2)} vs no-op handler`,
    ),
  ];
  return lines.join("\n");
}

if (process.argv[1]?.endsWith("tool-executor-bench.ts") === true) {
  runToolExecutorBench().then(
    (result) => process.stdout.write(`${report(result)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

export { report as formatToolExecutorBench };
