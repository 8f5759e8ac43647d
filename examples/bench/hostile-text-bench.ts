/**
 * Growth of every reader of untrusted text, and of secret redaction, on hostile input: each family
 * of `packages/react-output-parser/src/__fixtures__/hostile-reader-families.ts` (openers without
 * closers, full-width bars, harmony headers, brackets, tags, calls on one long line) through the
 * neutraliser, the written-call reader, the createAgent rescue and the ReAct parser; and each
 * default secret pattern's keywords repeated, glued to body characters and to line breaks, through
 * `redactSecrets`. Sizes 32 KB and 128 KB: the ratio of the median wall times must stay ≤ 6 (a
 * linear reader is ~4; a quadratic one ~16). Speed is measured here, never asserted in tests.
 *
 * Run: `npm run bench -- hostile-text` (or `npx tsx examples/bench/hostile-text-bench.ts`).
 */
import { performance } from "node:perf_hooks";
import { DEFAULT_SECRET_PATTERNS, neutralizeUntrustedText, redactSecrets } from "@reins/core";
import { HardenedReActOutputParser, readWrittenToolCalls, rescueToolCalls } from "@reins/react-output-parser";
import { HOSTILE_READER_FAMILIES } from "../../packages/react-output-parser/src/__fixtures__/hostile-reader-families";

/** One reader on one family: median milliseconds at each size, and their ratio. */
export interface HostileTextRow {
  readonly reader: string;
  readonly family: string;
  readonly smallMs: number;
  readonly largeMs: number;
  readonly ratio: number;
  readonly linear: boolean;
}

const SMALL = 32_000;
const LARGE = 128_000;
const MAX_RATIO = 6;
const ROUNDS = 3;

function medianMs(run: () => unknown): number {
  run();
  const times = Array.from({ length: ROUNDS }, () => {
    const started = performance.now();
    run();
    return performance.now() - started;
  }).sort((left, right) => left - right);
  return times[Math.floor(ROUNDS / 2)] as number;
}

const fill = (unit: string, chars: number): string => unit.repeat(Math.ceil(chars / unit.length));

export function runHostileTextBench(): HostileTextRow[] {
  const toolNames = ["search", "get_weather"];
  const parser = new HardenedReActOutputParser({ toolNames });
  const readers: Record<string, (text: string) => unknown> = {
    neutralizeUntrustedText: (text) => neutralizeUntrustedText(text),
    readWrittenToolCalls: (text) => readWrittenToolCalls(text, { toolNames }),
    rescueToolCalls: (text) => rescueToolCalls({ content: text, toolCalls: [] }, toolNames.map((name) => ({ name })) as never),
    "HardenedReActOutputParser.parseDetailed": (text) => parser.parseDetailed(text),
  };
  const rows: HostileTextRow[] = [];
  const row = (reader: string, family: string, run: (text: string) => unknown, build: (chars: number) => string): void => {
    const small = build(SMALL);
    const large = build(LARGE);
    const smallMs = medianMs(() => run(small));
    const largeMs = medianMs(() => run(large));
    // Below a millisecond the ratio is timer noise: such a reader is linear for this purpose.
    const ratio = largeMs / Math.max(smallMs, 1);
    rows.push({ reader, family, smallMs, largeMs, ratio, linear: ratio <= MAX_RATIO });
  };
  for (const [family, build] of HOSTILE_READER_FAMILIES) for (const [reader, run] of Object.entries(readers)) row(reader, family, run, build);
  for (const pattern of DEFAULT_SECRET_PATTERNS) {
    for (const keyword of pattern.keywords ?? []) {
      row("redactSecrets", `${pattern.kind}: ${keyword} repeated`, (text) => redactSecrets(text), (chars) => fill(keyword, chars));
      row("redactSecrets", `${pattern.kind}: ${keyword}=body`, (text) => redactSecrets(text), (chars) => fill(`${keyword}=aB3dE5fG7hJ9kL1m:`, chars));
      row("redactSecrets", `${pattern.kind}: ${keyword} + line breaks`, (text) => redactSecrets(text), (chars) => fill(`${keyword}: eyJabc.\n`, chars));
    }
  }
  return rows;
}

export function formatHostileTextBench(rows: readonly HostileTextRow[]): string {
  const failing = rows.filter((row) => !row.linear);
  const worst = [...rows].sort((left, right) => right.ratio - left.ratio).slice(0, 15);
  return [
    `${rows.length} reader × family pairs, ${SMALL / 1000} KB → ${LARGE / 1000} KB (×4 size; ≤ ×${MAX_RATIO} time is linear)`,
    ...worst.map((row) => `${row.ratio.toFixed(1).padStart(5)}×  ${row.smallMs.toFixed(1).padStart(8)} → ${row.largeMs.toFixed(1).padStart(8)} ms  ${row.reader} on ${row.family}`),
    failing.length === 0 ? "all linear" : `NOT LINEAR: ${failing.map((row) => `${row.reader} on ${row.family}`).join("; ")}`,
  ].join("\n");
}

if (process.argv[1]?.endsWith("hostile-text-bench.ts")) process.stdout.write(`${formatHostileTextBench(runHostileTextBench())}\n`);
