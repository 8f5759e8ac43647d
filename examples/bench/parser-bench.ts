/**
 * Benchmark of `@reins/react-output-parser` against LangChain's `ReActSingleInputOutputParser`
 * (`@langchain/classic/agents/react/output_parser`, the parser the stock `createReactAgent` uses):
 * 1. typical parse time, both parsers in this process, on the well-formed `llm_output`s of the
 *    recorded trajectories (text formats; both parsers accept them and any action names a
 *    registered tool): median CPU time per parse over interleaved rounds, and the ratio Reins / stock.
 *    Outputs the stock parser accepts but Reins corrects on purpose (an empty `Action Input:`) are
 *    counted and left out: a correction is a different result, not a slower parse of the same one;
 * 2. worst-case scaling on hostile inputs of 1 KB → 1 MB (whitespace after `Action:`, 10^5
 *    `Action:` lines, unbalanced braces, unbalanced quotes). Reins runs in this process; the stock
 *    parser runs in a worker thread per input, cut off after 10 s (its regex backtracks
 *    catastrophically: "Action:" + 10 000 spaces takes minutes).
 *
 * Run standalone: `npx tsx examples/bench/parser-bench.ts`. Typical parse times are CPU time
 * (process.cpuUsage), scaling times wall time (performance.now), both after a warm-up and as medians:
 * other processes on the machine add noise.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { ReActSingleInputOutputParser } from "@langchain/classic/agents/react/output_parser";
import { HardenedReActOutputParser } from "@reins/react-output-parser";
import { z } from "zod";

/** The hostile input kinds. */
export type HostileInputKind = "whitespace_after_action" | "action_lines" | "unbalanced_braces" | "unbalanced_quotes";

/** Typical parse time on recorded model output. */
export interface TypicalParseResult {
  /** Outputs timed (each parsed `repeats` times per round). */
  readonly samples: number;
  readonly rounds: number;
  /** Median CPU time of one parse, in microseconds. */
  readonly reinsMicroseconds: number;
  readonly stockMicroseconds: number;
  /** reinsMicroseconds / stockMicroseconds. */
  readonly ratio: number;
  /** Outputs the stock parser accepts that Reins corrects on purpose; not timed. */
  readonly correctedByReins: number;
  /** Fastest round's CPU time per parse, in microseconds (least disturbed by other processes). */
  readonly reinsBestMicroseconds: number;
  readonly stockBestMicroseconds: number;
  /** reinsBestMicroseconds / stockBestMicroseconds. */
  readonly bestRatio: number;
}

/** One hostile input's timings. */
export interface ScalingRow {
  readonly kind: HostileInputKind;
  readonly bytes: number;
  /** Median of several runs, in milliseconds. */
  readonly reinsMilliseconds: number;
  /** What Reins returned (`action`, `finish` or the rejection reason). */
  readonly reinsOutcome: string;
  /** One run in a worker thread, in milliseconds; `null` when it did not finish. */
  readonly stockMilliseconds: number | null;
  /** `timeout`: cut off at the limit; `skipped`: a smaller input of this kind already hit the limit. */
  readonly stockStatus: "ok" | "timeout" | "skipped" | "error";
}

/** Everything the bench measured. */
export interface ParserBenchResult {
  readonly typical: TypicalParseResult;
  readonly scaling: readonly ScalingRow[];
  readonly stockTimeoutMs: number;
}

/** Options of {@link runParserBench}. */
export interface ParserBenchOptions {
  /** The trajectories file. @default `shared/fixtures/trajectories/trajectories.json`, searched upward from the working directory and this file */
  readonly trajectoriesFile?: string;
  /** Hostile input sizes, in bytes. @default [1 000, 10 000, 100 000, 1 000 000] */
  readonly sizes?: readonly number[];
  /** Cut-off for one stock parse in the worker. @default 10 000 */
  readonly stockTimeoutMs?: number;
  /** Timed rounds for the typical parse. @default 25 */
  readonly rounds?: number;
}

const TEXT_FORMATS = new Set(["mrkl_classic", "conversational_do_i_need_a_tool", "llamaindex_react", "paper_style_in_langchain"]);
const DEFAULT_SIZES = [1_000, 10_000, 100_000, 1_000_000];
const HOSTILE_KINDS: readonly HostileInputKind[] = ["whitespace_after_action", "action_lines", "unbalanced_braces", "unbalanced_quotes"];

function findTrajectories(explicit: string | undefined): string {
  if (explicit !== undefined) return explicit;
  const starts = [process.cwd(), path.dirname(new URL(import.meta.url).pathname)];
  for (const start of starts) {
    let directory = start;
    for (let depth = 0; depth < 6; depth += 1) {
      const candidate = path.join(directory, "shared/fixtures/trajectories/trajectories.json");
      if (existsSync(candidate)) return candidate;
      const sibling = path.join(directory, "../shared/fixtures/trajectories/trajectories.json");
      if (existsSync(sibling)) return path.resolve(sibling);
      directory = path.dirname(directory);
    }
  }
  throw new Error("shared/fixtures/trajectories/trajectories.json not found; pass trajectoriesFile");
}

interface Sample {
  readonly text: string;
  readonly reins: HardenedReActOutputParser;
  readonly stock: ReActSingleInputOutputParser;
}

interface Trajectory {
  readonly format_variant?: string;
  readonly tools: readonly string[];
  readonly turns: ReadonlyArray<{ readonly llm_output: string | null }>;
}

async function wellFormedSamples(file: string): Promise<{ samples: Sample[]; correctedByReins: number }> {
  const trajectories = JSON.parse(readFileSync(file, "utf8")) as Trajectory[];
  const samples: Sample[] = [];
  let correctedByReins = 0;
  for (const trajectory of trajectories) {
    if (!TEXT_FORMATS.has(trajectory.format_variant ?? "")) continue;
    const toolNames = trajectory.tools.map((name) => name.replace(/\[.*$/, ""));
    const reins = new HardenedReActOutputParser({ toolNames });
    const stock = new ReActSingleInputOutputParser({ toolNames });
    for (const turn of trajectory.turns) {
      if (typeof turn.llm_output !== "string") continue;
      try {
        const parsed = await stock.parse(turn.llm_output);
        if ("tool" in parsed && !toolNames.includes(parsed.tool)) continue;
      } catch {
        continue;
      }
      if (!reins.parseDetailed(turn.llm_output).ok) {
        correctedByReins += 1;
        continue;
      }
      samples.push({ text: turn.llm_output, reins, stock });
    }
  }
  return { samples, correctedByReins };
}

/**
 * Microseconds of CPU time per parse (`process.cpuUsage`, user + system): unlike wall time it does
 * not count the time other processes on a busy machine take from this one.
 */
async function timeParses(samples: readonly Sample[], which: "reins" | "stock", repeats: number): Promise<number> {
  const start = process.cpuUsage();
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    for (const sample of samples) {
      try {
        await sample[which].parse(sample.text);
      } catch {
        // Both parsers may reject; the time still counts.
      }
    }
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (repeats * samples.length);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function typicalParse(file: string, rounds: number): Promise<TypicalParseResult> {
  const { samples, correctedByReins } = await wellFormedSamples(file);
  if (samples.length === 0) throw new Error(`no well-formed outputs in ${file}`);
  const repeats = Math.max(1, Math.ceil(5_000 / samples.length));
  // Warm-up: let the JIT optimise both parsers' paths before timing.
  for (let warmUp = 0; warmUp < 5; warmUp += 1) {
    await timeParses(samples, "reins", repeats);
    await timeParses(samples, "stock", repeats);
  }
  const reinsTimes: number[] = [];
  const stockTimes: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    // Alternate the order so neither parser always runs on a warmer (or busier) machine.
    if (round % 2 === 0) {
      reinsTimes.push(await timeParses(samples, "reins", repeats));
      stockTimes.push(await timeParses(samples, "stock", repeats));
    } else {
      stockTimes.push(await timeParses(samples, "stock", repeats));
      reinsTimes.push(await timeParses(samples, "reins", repeats));
    }
  }
  const reinsMicroseconds = median(reinsTimes);
  const stockMicroseconds = median(stockTimes);
  const reinsBestMicroseconds = Math.min(...reinsTimes);
  const stockBestMicroseconds = Math.min(...stockTimes);
  return {
    samples: samples.length,
    rounds,
    reinsMicroseconds,
    stockMicroseconds,
    ratio: reinsMicroseconds / stockMicroseconds,
    correctedByReins,
    reinsBestMicroseconds,
    stockBestMicroseconds,
    bestRatio: reinsBestMicroseconds / stockBestMicroseconds,
  };
}

/** Builds a hostile input of about `bytes` characters. */
export function hostileInput(kind: HostileInputKind, bytes: number): string {
  switch (kind) {
    case "whitespace_after_action":
      return `Action:${" ".repeat(Math.max(0, bytes - 7))}`;
    case "action_lines":
      return "Action: x\n".repeat(Math.max(1, Math.floor(bytes / 10)));
    case "unbalanced_braces":
      return `Action: lookup\nAction Input: ${"{".repeat(Math.max(0, bytes - 29))}`;
    case "unbalanced_quotes":
      return `Action: lookup\nAction Input: {"key": ${'"'.repeat(Math.max(0, bytes - 37))}`;
  }
}

function describeOutcome(report: ReturnType<HardenedReActOutputParser["parseDetailed"]>): string {
  if (!report.ok) return report.reason;
  return "tool" in report.result ? "action" : "finish";
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { performance } = require("node:perf_hooks");
const { ReActSingleInputOutputParser } = require(workerData.parserPath);
const parser = new ReActSingleInputOutputParser({ toolNames: ["x", "lookup"] });
(async () => {
  const start = performance.now();
  try { await parser.parse(workerData.text); } catch {}
  parentPort.postMessage(performance.now() - start);
})();
`;

function stockInWorker(text: string, timeoutMs: number, parserPath: string): Promise<{ status: "ok" | "timeout" | "error"; milliseconds: number | null }> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { text, parserPath } });
    let settled = false;
    const settle = (result: { status: "ok" | "timeout" | "error"; milliseconds: number | null }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate().then(() => resolve(result));
    };
    const timer = setTimeout(() => settle({ status: "timeout", milliseconds: null }), timeoutMs);
    worker.once("message", (milliseconds: number) => settle({ status: "ok", milliseconds }));
    worker.once("error", () => settle({ status: "error", milliseconds: null }));
  });
}

async function scaling(sizes: readonly number[], timeoutMs: number): Promise<ScalingRow[]> {
  const lookup = { name: "lookup", description: "lookup by key", schema: z.object({ key: z.string() }) };
  const reins = new HardenedReActOutputParser({ toolNames: ["x"], tools: [lookup] });
  const parserPath = createRequire(import.meta.url).resolve("@langchain/classic/agents/react/output_parser");
  const rows: ScalingRow[] = [];
  for (const kind of HOSTILE_KINDS) {
    let stockGaveUp = false;
    for (const bytes of sizes) {
      const text = hostileInput(kind, bytes);
      reins.parseDetailed(text);
      const runs: number[] = [];
      let outcome = "";
      for (let run = 0; run < 5; run += 1) {
        const start = performance.now();
        outcome = describeOutcome(reins.parseDetailed(text));
        runs.push(performance.now() - start);
      }
      let stock: { status: ScalingRow["stockStatus"]; milliseconds: number | null } = { status: "skipped", milliseconds: null };
      if (!stockGaveUp) {
        stock = await stockInWorker(text, timeoutMs, parserPath);
        if (stock.status === "timeout") stockGaveUp = true;
      }
      rows.push({ kind, bytes, reinsMilliseconds: median(runs), reinsOutcome: outcome, stockMilliseconds: stock.milliseconds, stockStatus: stock.status });
    }
  }
  return rows;
}

/**
 * Runs both measurements.
 *
 * @param options - input file, sizes, stock cut-off and rounds
 * @returns the measured numbers (nothing is printed or written)
 */
export async function runParserBench(options: ParserBenchOptions = {}): Promise<ParserBenchResult> {
  const stockTimeoutMs = options.stockTimeoutMs ?? 10_000;
  const typical = await typicalParse(findTrajectories(options.trajectoriesFile), options.rounds ?? 25);
  const rows = await scaling(options.sizes ?? DEFAULT_SIZES, stockTimeoutMs);
  return { typical, scaling: rows, stockTimeoutMs };
}

function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${bytes / 1_000_000} MB`;
  if (bytes >= 1_000) return `${bytes / 1_000} KB`;
  return `${bytes} B`;
}

/** Formats a bench result as plain-text tables. */
export function formatParserBench(result: ParserBenchResult): string {
  const { typical } = result;
  const lines = [
    "ReAct output parser — typical parse (well-formed trajectory outputs, same process)",
    `samples ${typical.samples} (${typical.correctedByReins} stock-accepted output(s) Reins corrects on purpose left out), rounds ${typical.rounds}: Reins ${typical.reinsMicroseconds.toFixed(2)} µs, stock ${typical.stockMicroseconds.toFixed(2)} µs per parse; ratio ${typical.ratio.toFixed(2)}× (median round); fastest round: Reins ${typical.reinsBestMicroseconds.toFixed(2)} µs, stock ${typical.stockBestMicroseconds.toFixed(2)} µs, ratio ${typical.bestRatio.toFixed(2)}×`,
    "",
    `Worst-case scaling (stock in a worker thread, cut off at ${result.stockTimeoutMs / 1000} s)`,
    "input                     size      Reins ms   Reins result          stock ms",
    ...result.scaling.map((row) => {
      const stock = row.stockStatus === "ok" ? (row.stockMilliseconds ?? 0).toFixed(1) : row.stockStatus === "timeout" ? `> ${result.stockTimeoutMs / 1000} s (cut off)` : row.stockStatus === "skipped" ? "not run (smaller input hit the cut-off)" : "worker error";
      return `${row.kind.padEnd(25)} ${formatBytes(row.bytes).padEnd(8)} ${row.reinsMilliseconds.toFixed(2).padStart(9)}   ${row.reinsOutcome.padEnd(20)}  ${stock}`;
    }),
  ];
  return lines.join("\n");
}

if (process.argv[1]?.endsWith("parser-bench.ts") === true) {
  runParserBench()
    .then((result) => process.stdout.write(`${formatParserBench(result)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    });
}
