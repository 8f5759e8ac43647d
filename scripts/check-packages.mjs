#!/usr/bin/env node
// Packaging checks for every published package: `publint --strict` and
// `@arethetypeswrong/cli --pack` (attw), over the built dist/ (run `npm run build` first).
// Exits non-zero if any check fails, printing that check's full output.
//
//   npm run check:packages              all packages
//   npm run check:packages -- core      only the packages whose name contains "core"
import { existsSync } from "node:fs";
import path from "node:path";
import { listPackages, mapLimit, repoRoot, run } from "./lib.mjs";

const filters = process.argv.slice(2);
const packages = listPackages().filter(
  (pkg) => filters.length === 0 || filters.some((filter) => pkg.name.includes(filter)),
);
if (packages.length === 0) {
  console.error(`No package matches ${filters.join(", ")}.`);
  process.exit(1);
}

const bin = (name) => path.join(repoRoot, "node_modules", ".bin", name);
const missingBuild = packages.filter((pkg) => !existsSync(path.join(pkg.dir, "dist")));
if (missingBuild.length > 0) {
  console.error(
    `No dist/ in ${missingBuild.map((pkg) => pkg.name).join(", ")}: run \`npm run build\` first.`,
  );
  process.exit(1);
}

const checks = packages.flatMap((pkg) => [
  { pkg, tool: "publint --strict", command: bin("publint"), args: ["--strict"] },
  // attw: every entry point resolves to types and JS under node10, node16 (CJS and ESM) and
  // bundler resolution; --profile node16 is not used, node10 is checked too (the `main`/`types` fallback).
  { pkg, tool: "attw --pack", command: bin("attw"), args: ["--pack", ".", "--format", "ascii"] },
]);

const results = await mapLimit(checks, 4, async (check) => {
  const startedAt = Date.now();
  const { code, output } = await run(check.command, check.args, { cwd: check.pkg.dir });
  return { ...check, code, output, durationMs: Date.now() - startedAt };
});

let failed = 0;
for (const result of results) {
  const status = result.code === 0 ? "ok  " : "FAIL";
  console.log(
    `${status} ${result.pkg.name.padEnd(30)} ${result.tool.padEnd(18)} ${(result.durationMs / 1000).toFixed(1)}s`,
  );
  if (result.code !== 0) {
    failed += 1;
    console.log(result.output.replace(/^/gm, "     | "));
  }
}
console.log(`${results.length - failed}/${results.length} checks passed.`);
process.exit(failed === 0 ? 0 : 1);
