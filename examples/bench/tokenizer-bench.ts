/**
 * Cold start of exact token counting: fresh node processes, interleaved round by round (so
 * machine load hits every variant alike), medians. The anchor is importing
 * `@langchain/core/messages` alone; the budget for the cleaner (import plus its first exact
 * count) is 1.5 × the anchor + 20 ms. Also times gpt-tokenizer and js-tiktoken `cl100k_base`
 * alone (the two options measured for the cleaner) and checks that both give the same count on
 * every file of `shared/fixtures/tool-outputs` (when that folder is there).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const VARIANTS = ["anchor", "cleaner", "gpt-tokenizer", "js-tiktoken"] as const;
type Variant = (typeof VARIANTS)[number];

export interface TokenizerBenchResult {
  readonly rounds: number;
  /** Median milliseconds from first import to the first exact count done, per variant. */
  readonly medianMs: Record<Variant, number>;
  /** The cleaner's median over the anchor's. */
  readonly cleanerOverAnchor: number;
  /** 1.5 × the anchor + 20 ms. */
  readonly budgetMs: number;
  readonly withinBudget: boolean;
  readonly fixtureFiles: number;
  /** Fixture files on which gpt-tokenizer's and js-tiktoken's counts differ (names). */
  readonly countMismatches: readonly string[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function fixtureFiles(): string[] {
  const folder = fileURLToPath(new URL("../../../shared/fixtures/tool-outputs", import.meta.url));
  if (!existsSync(folder)) return [];
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.push(full);
    }
  };
  walk(folder);
  return files;
}

function coldStart(variant: Variant, files: readonly string[]): { ms: number; counts: number[] } {
  const script = fileURLToPath(new URL("./tokenizer-cold-start.ts", import.meta.url));
  const child = spawnSync(process.execPath, ["--import", "tsx", script, variant, ...files], { cwd: path.dirname(path.dirname(script)), encoding: "utf8", timeout: 120_000 });
  if (child.status !== 0) throw new Error(`Tokenizer cold start "${variant}" failed (status ${String(child.status)}): ${child.stderr || child.error?.message}`);
  const line = child.stdout.trim().split("\n").pop() ?? "";
  return JSON.parse(line) as { ms: number; counts: number[] };
}

export async function runTokenizerBench(options: { rounds?: number } = {}): Promise<TokenizerBenchResult> {
  const rounds = options.rounds ?? 7;
  const samples: Record<Variant, number[]> = { anchor: [], cleaner: [], "gpt-tokenizer": [], "js-tiktoken": [] };
  for (let round = 0; round < rounds; round += 1) {
    for (const variant of VARIANTS) samples[variant].push(coldStart(variant, []).ms);
  }
  const files = fixtureFiles();
  const gpt = coldStart("gpt-tokenizer", files).counts;
  const tiktoken = coldStart("js-tiktoken", files).counts;
  const countMismatches = files.filter((_, index) => gpt[index] !== tiktoken[index]).map((file) => path.basename(file));
  const medianMs = Object.fromEntries(VARIANTS.map((variant) => [variant, Math.round(median(samples[variant]) * 10) / 10])) as Record<Variant, number>;
  const budgetMs = Math.round((1.5 * medianMs.anchor + 20) * 10) / 10;
  return {
    rounds,
    medianMs,
    cleanerOverAnchor: Math.round((medianMs.cleaner / medianMs.anchor) * 100) / 100,
    budgetMs,
    withinBudget: medianMs.cleaner <= budgetMs,
    fixtureFiles: files.length,
    countMismatches,
  };
}

export function formatTokenizerBench(result: TokenizerBenchResult): string {
  const rows = VARIANTS.map((variant) => `  ${variant.padEnd(14)} ${String(result.medianMs[variant]).padStart(8)} ms`);
  return [
    `Tokenizer cold start (fresh processes, ${result.rounds} interleaved rounds, medians; import to first exact count)`,
    ...rows,
    `  cleaner / anchor: ${result.cleanerOverAnchor} (budget 1.5 × anchor + 20 ms = ${result.budgetMs} ms: ${result.withinBudget ? "within" : "OVER"})`,
    `  counts on ${result.fixtureFiles} fixture files: ${result.countMismatches.length === 0 ? "gpt-tokenizer = js-tiktoken on all" : `differ on ${result.countMismatches.join(", ")}`}`,
  ].join("\n");
}
