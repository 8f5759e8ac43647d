/**
 * Runs the usage examples: one per package, no API key, no network.
 *
 *   npx tsx examples/src/usage/run.ts              every example
 *   npx tsx examples/src/usage/run.ts tool-executor one example
 */
import { USAGE_EXAMPLES } from "./index";

async function runExamples(names: readonly string[]): Promise<number> {
  const unknown = names.filter((name) => !(name in USAGE_EXAMPLES));
  if (unknown.length > 0) {
    process.stderr.write(`Unknown example ${unknown.join(", ")}. Available: ${Object.keys(USAGE_EXAMPLES).join(", ")}.\n`);
    return 1;
  }
  const selected = names.length > 0 ? names : Object.keys(USAGE_EXAMPLES);
  for (const name of selected) {
    process.stdout.write(`\n=== @reins/${name}\n`);
    await USAGE_EXAMPLES[name as keyof typeof USAGE_EXAMPLES]();
  }
  return 0;
}

runExamples(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`example failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
