/**
 * Benchmark of `@reins/react-output-parser` against LangChain's `ReActSingleInputOutputParser`
 * (`@langchain/classic/agents/react/output_parser`, the parser the stock `createReactAgent` uses):
 * 1. typical parse time, both parsers in this process, on the well-formed `llm_output`s of the
 *    recorded trajectories (text formats; both parsers accept them and any action names a
 *    registered tool): median CPU time per parse over interleaved rounds, and the ratio Reins / stock.
 *    Outputs the stock parser accepts but Reins corrects on purpose (an empty `Action Input:`) are
 *    counted and left out: a correction is a different result, not a slower parse of the same one;
 * 2. canonical replies, the trajectories' and the shared corpus's outputs both parsers accept, timed
 *    case by case in one interleaved run (ratio per case, median and mean);
 * 3. worst-case scaling on hostile inputs of 1 KB → 1 MB (whitespace after `Action:`, 10^5
 *    `Action:` lines, unbalanced braces, unbalanced quotes, and the shapes 2025–26 local models
 *    write, repeated: `]X{KL\n\n`, reasoning tags, harmony tokens, tool-call tags with and without
 *    attributes, Qwen parameters, translated labels, `- Input:` bullets, JSON lines after a Thought,
 *    an unclosed fence, spaced blob keys). Reins runs in this process; the stock
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
export type HostileInputKind =
  | "whitespace_after_action"
  | "action_lines"
  | "unbalanced_braces"
  | "unbalanced_quotes"
  | "bracket_brace_blank_lines"
  | "reasoning_tags"
  | "harmony_tokens"
  | "tool_call_tags"
  | "tag_attributes"
  | "qwen_parameters"
  | "translated_labels"
  | "loose_input_bullets"
  | "json_deliverable_lines"
  | "unclosed_fence"
  | "blob_keys";

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

/** One set of replies both parsers accept, timed case by case in the interleaved run. */
export interface ComparedSet {
  readonly name: "canonical" | "trajectories" | "corpus";
  readonly samples: number;
  /** Mean over the set of each case's median CPU time per parse, in microseconds. */
  readonly reinsMicroseconds: number;
  readonly stockMicroseconds: number;
  /** reinsMicroseconds / stockMicroseconds. */
  readonly ratio: number;
  /** Median and mean over the cases of (Reins / stock) per case. */
  readonly medianCaseRatio: number;
  readonly meanCaseRatio: number;
  /** Cases more than 3 × slower than the stock parser. */
  readonly casesOverThreeTimes: number;
  /** The highest case ratio, and that case's text (first 60 characters). */
  readonly worstCaseRatio: number;
  readonly worstCase: string;
}

/** Everything the bench measured. */
export interface ParserBenchResult {
  readonly typical: TypicalParseResult;
  /**
   * Canonical `Thought/Action/Action Input` and `Final Answer` replies, the trajectories' and the
   * shared corpus's outputs both parsers accept, all timed in one interleaved run (each case:
   * Reins then stock, or stock then Reins, alternating by round).
   */
  readonly compared: readonly ComparedSet[];
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
  /** The shared corpus directory. @default `shared/corpus`, searched like the trajectories file */
  readonly corpusDirectory?: string;
  /** Rounds of the interleaved case-by-case run. @default 9 */
  readonly comparedRounds?: number;
}

const TEXT_FORMATS = new Set(["mrkl_classic", "conversational_do_i_need_a_tool", "llamaindex_react", "paper_style_in_langchain"]);
const DEFAULT_SIZES = [1_000, 10_000, 100_000, 1_000_000];
const HOSTILE_KINDS: readonly HostileInputKind[] = [
  "whitespace_after_action",
  "action_lines",
  "unbalanced_braces",
  "unbalanced_quotes",
  "bracket_brace_blank_lines",
  "reasoning_tags",
  "harmony_tokens",
  "tool_call_tags",
  "tag_attributes",
  "qwen_parameters",
  "translated_labels",
  "loose_input_bullets",
  "json_deliverable_lines",
  "unclosed_fence",
  "blob_keys",
];

function findTrajectories(explicit: string | undefined): string {
  return findShared(explicit, "fixtures/trajectories/trajectories.json");
}

function findShared(explicit: string | undefined, relative: string): string {
  if (explicit !== undefined) return explicit;
  const starts = [process.cwd(), path.dirname(new URL(import.meta.url).pathname)];
  for (const start of starts) {
    let directory = start;
    for (let depth = 0; depth < 6; depth += 1) {
      const candidate = path.join(directory, "shared", relative);
      if (existsSync(candidate)) return candidate;
      const sibling = path.join(directory, "../shared", relative);
      if (existsSync(sibling)) return path.resolve(sibling);
      directory = path.dirname(directory);
    }
  }
  throw new Error(`shared/${relative} not found; pass its path in the options`);
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

/** `unit` repeated to exactly `bytes` characters (at least once). */
function repeatTo(unit: string, bytes: number): string {
  return unit.repeat(Math.max(1, Math.ceil(bytes / unit.length))).slice(0, Math.max(unit.length, bytes));
}

/** Canonical replies written for the bench (LangChain's format exactly, as its prompt asks). */
function canonicalTexts(): string[] {
  const topics = ["the capital of Peru", "Oslo weather tomorrow", "the GDP of Chile", "who wrote Dune", "the boiling point of ethanol", "the height of K2", "the population of Lagos", "the author of Middlemarch"];
  const texts: string[] = [];
  for (const topic of topics) {
    texts.push(`Thought: I need to find ${topic}.\nAction: search\nAction Input: ${topic}`);
    texts.push(`I should look up ${topic}.\nAction: search\nAction Input: ${topic}\n`);
    texts.push(`Thought: I now know the final answer\nFinal Answer: Here is what I found about ${topic}.`);
    texts.push(`I now know the final answer.\nFinal Answer: The answer about ${topic} is in the observation above.`);
  }
  return texts;
}

const CANONICAL_SHAPE = /^(?:Thought: [^\n]*\n|[^\n:]*\n)?(?:Action: [^\n]+\nAction Input: [^\n]*|Final Answer: [^\n]+)\s*$/;

interface CorpusEntry {
  readonly text: string;
  readonly tools: readonly string[];
}

/** Whether both parsers accept `text` (the stock one with a registered tool). */
async function bothAccept(text: string, reins: HardenedReActOutputParser, stock: ReActSingleInputOutputParser, toolNames: readonly string[]): Promise<boolean> {
  try {
    const parsed = await stock.parse(text);
    if ("tool" in parsed && !toolNames.includes(parsed.tool)) return false;
  } catch {
    return false;
  }
  return reins.parseDetailed(text).ok;
}

async function comparedSamples(trajectoriesFile: string, corpusDirectory: string | undefined): Promise<Record<ComparedSet["name"], Sample[]>> {
  const search = { reins: new HardenedReActOutputParser({ toolNames: ["search"] }), stock: new ReActSingleInputOutputParser({ toolNames: ["search"] }) };
  const canonical: Sample[] = [];
  for (const text of canonicalTexts()) if (await bothAccept(text, search.reins, search.stock, ["search"])) canonical.push({ text, ...search });
  const { samples: trajectories } = await wellFormedSamples(trajectoriesFile);
  for (const sample of trajectories) if (CANONICAL_SHAPE.test(sample.text)) canonical.push(sample);
  const corpus: Sample[] = [];
  const directory = corpusDirectory ?? path.dirname(findShared(undefined, "corpus/realworld-dev.json"));
  for (const file of ["realworld-dev.json", "peer-dev.json"]) {
    const entries = JSON.parse(readFileSync(path.join(directory, file), "utf8")) as CorpusEntry[];
    for (const entry of entries) {
      const reins = new HardenedReActOutputParser({ toolNames: entry.tools });
      const stock = new ReActSingleInputOutputParser({ toolNames: [...entry.tools] });
      if (await bothAccept(entry.text, reins, stock, entry.tools)) corpus.push({ text: entry.text, reins, stock });
    }
  }
  return { canonical, trajectories, corpus };
}

/** CPU microseconds per parse of one text, `repeats` parses. */
async function timeOne(sample: Sample, which: "reins" | "stock", repeats: number): Promise<number> {
  const start = process.cpuUsage();
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    try {
      await sample[which].parse(sample.text);
    } catch {
      // Accepted by both when selected; a rejection would still count its time.
    }
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / repeats;
}

/** The interleaved case-by-case run over every set (one loop: each case Reins/stock, alternating). */
async function comparedRun(sets: Record<ComparedSet["name"], Sample[]>, rounds: number): Promise<ComparedSet[]> {
  const all = (Object.keys(sets) as ComparedSet["name"][]).flatMap((name) => sets[name].map((sample) => ({ name, sample })));
  const repeats = 40;
  const times = all.map(() => ({ reins: [] as number[], stock: [] as number[] }));
  for (let warmUp = 0; warmUp < 3; warmUp += 1) for (const { sample } of all) await timeOne(sample, "reins", repeats), await timeOne(sample, "stock", repeats);
  for (let round = 0; round < rounds; round += 1) {
    for (let index = 0; index < all.length; index += 1) {
      const { sample } = all[index];
      if (round % 2 === 0) {
        times[index].reins.push(await timeOne(sample, "reins", repeats));
        times[index].stock.push(await timeOne(sample, "stock", repeats));
      } else {
        times[index].stock.push(await timeOne(sample, "stock", repeats));
        times[index].reins.push(await timeOne(sample, "reins", repeats));
      }
    }
  }
  const results: ComparedSet[] = [];
  for (const name of Object.keys(sets) as ComparedSet["name"][]) {
    const cases = all.map((entry, index) => ({ ...entry, reins: median(times[index].reins), stock: median(times[index].stock) })).filter((entry) => entry.name === name);
    if (cases.length === 0) continue;
    const ratios = cases.map((entry) => entry.reins / Math.max(entry.stock, 0.01));
    const reinsMicroseconds = cases.reduce((sum, entry) => sum + entry.reins, 0) / cases.length;
    const stockMicroseconds = cases.reduce((sum, entry) => sum + entry.stock, 0) / cases.length;
    const worst = ratios.indexOf(Math.max(...ratios));
    results.push({
      name,
      samples: cases.length,
      reinsMicroseconds,
      stockMicroseconds,
      ratio: reinsMicroseconds / stockMicroseconds,
      medianCaseRatio: median(ratios),
      meanCaseRatio: ratios.reduce((sum, ratio) => sum + ratio, 0) / ratios.length,
      casesOverThreeTimes: ratios.filter((ratio) => ratio > 3).length,
      worstCaseRatio: ratios[worst],
      worstCase: cases[worst].sample.text.slice(0, 60).replace(/\n/g, "\\n"),
    });
  }
  return results;
}

/** Builds a hostile input of about `bytes` characters. */
export function hostileInput(kind: HostileInputKind, bytes: number): string {
  switch (kind) {
    case "bracket_brace_blank_lines":
      return repeatTo("]X{KL\n\n", bytes);
    case "reasoning_tags":
      return repeatTo("a <think> b </think>\n<think>", bytes);
    case "harmony_tokens":
      return repeatTo("<|start|>assistant<|channel|>commentary to=functions.lookup<|message|>{", bytes);
    case "tool_call_tags":
      return repeatTo("<tool_call>", bytes);
    case "tag_attributes":
      return repeatTo('<tool_call name="lookup" ', bytes);
    case "qwen_parameters":
      return `<function=lookup>${repeatTo("<parameter=key>", bytes)}`;
    case "translated_labels":
      return repeatTo("思考：x\n", bytes);
    case "loose_input_bullets":
      return repeatTo("- Input: x\n", bytes);
    case "json_deliverable_lines":
      return `Thought: here it is\n${repeatTo("\n[1", bytes)}`;
    case "unclosed_fence":
      return `Action: x\nAction Input:\n\`\`\`\n${repeatTo("x\n", bytes)}`;
    case "blob_keys":
      return `{${repeatTo('"Action Input": 1, ', bytes)}`;
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
  const trajectoriesFile = findTrajectories(options.trajectoriesFile);
  const typical = await typicalParse(trajectoriesFile, options.rounds ?? 25);
  const compared = await comparedRun(await comparedSamples(trajectoriesFile, options.corpusDirectory), options.comparedRounds ?? 9);
  const rows = await scaling(options.sizes ?? DEFAULT_SIZES, stockTimeoutMs);
  return { typical, compared, scaling: rows, stockTimeoutMs };
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
    "Interleaved case-by-case run (CPU µs per parse, each case's median over rounds; ratios Reins / stock)",
    "set           cases   Reins µs   stock µs   ratio   median case   mean case   cases > 3×   worst case",
    ...result.compared.map((set) => `${set.name.padEnd(12)} ${String(set.samples).padStart(6)} ${set.reinsMicroseconds.toFixed(2).padStart(10)} ${set.stockMicroseconds.toFixed(2).padStart(10)} ${set.ratio.toFixed(2).padStart(6)}× ${set.medianCaseRatio.toFixed(2).padStart(12)}× ${set.meanCaseRatio.toFixed(2).padStart(10)}× ${String(set.casesOverThreeTimes).padStart(12)}   ${set.worstCaseRatio.toFixed(2)}× (${set.worstCase})`),
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
