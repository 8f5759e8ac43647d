/**
 * One cold start for `tokenizer-bench.ts`, in a fresh process
 * (`node --import tsx bench/tokenizer-cold-start.ts <variant> [file…]`): the time from the first
 * import to the first exact token count done, for `anchor` (importing `@langchain/core/messages`
 * alone, no count), `cleaner` (`@reins/observation-cleaner`'s `countTokensCl100k`),
 * `gpt-tokenizer` and `js-tiktoken` (`cl100k_base` alone). Then counts every named file (whole)
 * with the variant, so the parent can check the counts agree. Prints one JSON line.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

type Counter = (text: string) => number;

async function load(variant: string): Promise<Counter | undefined> {
  switch (variant) {
    case "anchor":
      await import("@langchain/core/messages");
      return undefined;
    case "cleaner":
      return (await import("@reins/observation-cleaner")).countTokensCl100k;
    case "gpt-tokenizer": {
      const { encode } = await import("gpt-tokenizer/encoding/cl100k_base");
      const plain = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };
      return (text) => encode(text, plain).length;
    }
    case "js-tiktoken": {
      const { Tiktoken } = await import("js-tiktoken/lite");
      const ranks = (await import("js-tiktoken/ranks/cl100k_base")).default;
      const encoder = new Tiktoken(ranks);
      return (text) => encoder.encode(text, [], []).length;
    }
    default:
      throw new Error(`Unknown tokenizer variant "${variant}": expected anchor, cleaner, gpt-tokenizer or js-tiktoken.`);
  }
}

async function main(): Promise<void> {
  const [variant = "", ...files] = process.argv.slice(2);
  const start = performance.now();
  const count = await load(variant);
  const firstCount = count?.('{"berth":4,"status":"free","from":"14:00"}');
  const ms = performance.now() - start;
  const counts = count === undefined ? [] : files.map((file) => count(readFileSync(file, "utf8")));
  process.stdout.write(`${JSON.stringify({ variant, ms, firstCount, counts })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
