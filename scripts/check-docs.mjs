#!/usr/bin/env node
// Docs that run: extracts every TypeScript code block (```ts, ```typescript, ```mts) from
// README.md, docs/**/*.md (not docs/api) and packages/*/README.md, type-checks them all as one
// `tsc` program (each block is its own module; `@reins/*` resolve to the packages' sources through
// tsconfig.base.json's paths, everything else from the repo's node_modules), then runs every
// block marked `run` against the examples' replay server (scripts/with-replay-server.mts).
//
// Markers, in the fence's info string (CONTRIBUTING.md, "Code blocks in the docs"):
//   ```ts            a module: imports what it uses; type-checked. It may use the app's names that
//                    scripts/docs-context.ts exports (llm, tools, prompt, input, …) without
//                    defining them: each one the block does not declare is imported from there.
//   ```ts run        also executed (context included) with OPENAI_BASE_URL / OPENAI_API_KEY /
//                    OPENAI_MODEL set to a local replay server; it must exit 0 within 60 s. The
//                    README quick start is a complete program: scripts/smoke.mjs runs it in an
//                    app built from the tarballs, where there is no context.
//   ```ts fragment   cannot stand alone (a shape, an excerpt): neither checked nor run, but listed
//   ```ts file=agent.ts
//                    a module the page's other blocks import as `./agent` (each page's blocks are
//                    modules of one folder); type-checked, run only as their import
//   ```ts run postgres | ```ts run sqlite
//                    needs a database: the check starts one throwaway Postgres for the whole run
//                    (initdb + pg_ctl from Debian's postgresql, on a free port; DATABASE_URL) and
//                    gives each page its own SQLite file (CHECKPOINTS_DB). A page's database blocks
//                    run one after another in page order (a thread started by one is resumed by
//                    the next, as separate processes would); the other runnable blocks two at a time.
//                    Without initdb / pg_ctl the Postgres blocks are skipped and named (REINS_CI=1: an error).
// A runnable block's scripted model outputs go in an HTML comment on the lines just above it:
//   <!-- docs:replay ["Thought: …\nAction: search\nAction Input: …", "Final Answer: …"] -->
// Once those run out, every model request gets one fixed final answer.
//
//   npm run check:docs                     type-check every block, run the runnable ones
//   npm run check:docs -- --no-run         type-check only
//   npm run check:docs -- --only metrics   only the Markdown files whose path contains "metrics"
//   npm run check:docs -- --list           list the blocks found, with their markers
//
// Errors are reported as `<markdown file>:<line>:<column>`, the line in the Markdown file.
import { mkdir, rm, writeFile, readdir, readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { mapLimit, repoRoot, run } from "./lib.mjs";
import { SERVICE_MARKERS, extractBlocks } from "./markdown-blocks.mjs";

const require = createRequire(import.meta.url);
const ts = require("typescript");

const args = process.argv.slice(2);
const noRun = args.includes("--no-run");
const list = args.includes("--list");
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
const unknown = args.filter((arg, index) => !["--no-run", "--list", "--only"].includes(arg) && args[index - 1] !== "--only");
if (unknown.length > 0) {
  console.error(`check-docs: unknown argument(s) ${unknown.join(" ")}`);
  process.exit(2);
}

const RUN_TIMEOUT_MS = 60_000;
const workDir = path.join(repoRoot, ".check-docs");

/** The Markdown files whose code blocks are checked, repo-relative, sorted. */
async function markdownFiles() {
  const files = ["README.md"];
  async function walk(dir) {
    for (const entry of await readdir(path.join(repoRoot, dir), { withFileTypes: true })) {
      const relative = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (relative !== "docs/api") await walk(relative);
      } else if (entry.name.endsWith(".md")) files.push(relative);
    }
  }
  await walk("docs");
  for (const entry of await readdir(path.join(repoRoot, "packages"))) {
    if (existsSync(path.join(repoRoot, "packages", entry, "README.md"))) files.push(`packages/${entry}/README.md`);
  }
  return files.sort().filter((file) => only === undefined || file.includes(only));
}

const startedAt = Date.now();
const files = await markdownFiles();
const allBlocks = [];
for (const file of files) allBlocks.push(...extractBlocks(file, await readFile(path.join(repoRoot, file), "utf8")));

const where = (block) => `${block.file}:${block.line}`;
if (list) {
  for (const block of allBlocks) console.log(`${where(block)}  ${block.lang}${block.markers.length ? " " + block.markers.join(" ") : ""}${block.moduleName ? ` file=${block.moduleName}.ts` : ""}${block.replay ? ` (${block.replay.length} replay outputs)` : ""}`);
}

let failures = 0;
for (const block of allBlocks.filter((item) => item.problem)) {
  console.error(`${where(block)} - error: ${block.problem}`);
  failures += 1;
}
const checked = allBlocks.filter((block) => !block.problem && !block.markers.includes("fragment"));
const fragments = allBlocks.filter((block) => block.markers.includes("fragment"));

// One directory of modules, one tsconfig, one program.
await rm(workDir, { recursive: true, force: true });
await mkdir(workDir, { recursive: true });
await writeFile(path.join(workDir, "package.json"), JSON.stringify({ private: true, type: "module" }, null, 2));
await writeFile(
  path.join(workDir, "tsconfig.json"),
  JSON.stringify(
    {
      extends: "../tsconfig.base.json",
      compilerOptions: { noEmit: true, module: "ESNext", moduleResolution: "Bundler", types: ["node"], sourceMap: false, declaration: false },
      include: ["**/*.ts"],
    },
    null,
    2,
  ),
);
// The names a block may use without defining them (scripts/docs-context.ts).
const contextSource = path.join(repoRoot, "scripts", "docs-context.ts");
const contextNames = exportedNames(await readFile(contextSource, "utf8"));
await writeFile(path.join(workDir, "docs-context.ts"), await readFile(contextSource, "utf8"));

/** The names a module's top-level statements declare or import. */
function declaredNames(code) {
  const source = ts.createSourceFile("block.ts", code, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const names = new Set();
  const bind = (name) => {
    if (!name) return;
    if (ts.isIdentifier(name)) names.add(name.text);
    else if (ts.isObjectBindingPattern(name) || ts.isArrayBindingPattern(name)) for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    else if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement)) bind(statement.name);
    else if (ts.isImportDeclaration(statement) && statement.importClause) {
      const clause = statement.importClause;
      bind(clause.name);
      if (clause.namedBindings && ts.isNamespaceImport(clause.namedBindings)) bind(clause.namedBindings.name);
      else if (clause.namedBindings) for (const element of clause.namedBindings.elements) bind(element.name);
    }
  }
  return names;
}

/** The names a module exports with `export const|function|class`. */
function exportedNames(code) {
  const source = ts.createSourceFile("context.ts", code, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const names = [];
  for (const statement of source.statements) {
    const exported = statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isVariableStatement(statement)) for (const declaration of statement.declarationList.declarations) names.push(declaration.name.text);
    else if (statement.name) names.push(statement.name.text);
  }
  return names;
}

const byFileName = new Map();
// Each Markdown file's blocks are modules of one folder, so a `file=<name>.ts` block is `./<name>` to
// the blocks of its own page only.
const moduleNames = new Map();
for (const block of checked) {
  const folder = block.file.replace(/[/.]/g, "_");
  const name = block.moduleName === undefined ? `L${block.line}.ts` : `${block.moduleName}.ts`;
  const key = `${folder}/${name}`;
  if (moduleNames.has(key)) {
    console.error(`${where(block)} - error: file=${name} is already the block at line ${moduleNames.get(key).line} of this page`);
    failures += 1;
    continue;
  }
  moduleNames.set(key, block);
  await mkdir(path.join(workDir, folder), { recursive: true });
  block.snippetPath = path.join(workDir, folder, name);
  byFileName.set(path.resolve(block.snippetPath), block);
  // The block's own lines come first, so a diagnostic's line maps to the Markdown line. The
  // context import goes last (imports are hoisted); `export {}` keeps every block a module.
  const declared = declaredNames(block.code);
  const fromContext = contextNames.filter((contextName) => !declared.has(contextName));
  const tail = fromContext.length > 0 ? `import { ${fromContext.join(", ")} } from "../docs-context";\n` : "";
  await writeFile(block.snippetPath, `${block.code}\n${tail}export {};\n`);
}

const configPath = path.join(workDir, "tsconfig.json");
const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => { throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")); } });
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
const position = (diagnostic) => (diagnostic.file ? `${diagnostic.file.fileName}:${String(diagnostic.start ?? 0).padStart(8, "0")}` : "");
const diagnostics = [...ts.getPreEmitDiagnostics(program)].sort((a, b) => position(a).localeCompare(position(b)));
const failedBlocks = new Set();
for (const diagnostic of diagnostics) {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n  ");
  const block = diagnostic.file ? byFileName.get(path.resolve(diagnostic.file.fileName)) : undefined;
  if (diagnostic.file && diagnostic.start !== undefined) {
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const location = block ? `${block.file}:${block.line + 1 + line}:${character + 1}` : `${path.relative(repoRoot, diagnostic.file.fileName)}:${line + 1}:${character + 1}`;
    console.error(`${location} - error TS${diagnostic.code}: ${message}`);
  } else {
    console.error(`error TS${diagnostic.code}: ${message}`);
  }
  if (block) failedBlocks.add(block);
  failures += 1;
}
console.log(`check-docs: type-checked ${checked.length} blocks from ${files.length} files: ${failedBlocks.size} with errors${diagnostics.length > failedBlocks.size ? ` (${diagnostics.length} diagnostics)` : ""}`);
if (fragments.length > 0) console.log(`check-docs: ${fragments.length} fragment(s) not checked: ${fragments.map(where).join(", ")}`);

// Runnable blocks that type-checked: each starts its own replay server and tsx. The blocks of a page
// that need a database run one after another in page order (one lane per page); every other block
// is a lane of its own; two lanes at a time.
const runnable = checked.filter((block) => block.markers.includes("run") && block.snippetPath !== undefined);
const needs = (block, service) => block.markers.includes(service);
const needsService = (block) => block.markers.some((marker) => SERVICE_MARKERS.has(marker));
if (noRun) {
  if (runnable.length > 0) console.log(`check-docs: --no-run: ${runnable.length} runnable block(s) not run`);
} else {
  const helper = path.join(repoRoot, "scripts", "with-replay-server.mts");
  const tsx = path.join(repoRoot, "node_modules", ".bin", "tsx");
  const lanes = [];
  const pageLanes = new Map();
  for (const block of runnable) {
    if (!needsService(block)) lanes.push([block]);
    else if (pageLanes.has(block.file)) pageLanes.get(block.file).push(block);
    else {
      const lane = [block];
      pageLanes.set(block.file, lane);
      lanes.push(lane);
    }
  }
  // The services, started only when a selected block needs them (@reins/testing's throwaway servers,
  // the same the tests use, loaded through tsx).
  const { tsImport } = await import("tsx/esm/api");
  const testing = await tsImport("../packages/testing/src/index.ts", import.meta.url);
  let postgres;
  let postgresMissing;
  if (runnable.some((block) => needs(block, "postgres"))) {
    const dirs = testing.postgresBinDirs();
    postgresMissing = [testing.unmetReason({ program: "initdb", alsoIn: dirs }), testing.unmetReason({ program: "pg_ctl", alsoIn: dirs })].filter(Boolean).join("; ") || undefined;
    if (postgresMissing === undefined) {
      const started = Date.now();
      postgres = await testing.startPostgres();
      console.log(`check-docs: started Postgres for the postgres blocks at ${postgres.url} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    }
  }
  const sqliteDir = path.join(workDir, ".sqlite");
  await mkdir(sqliteDir, { recursive: true });
  const requireAll = !["", "0", "false", undefined].includes(process.env[testing.REQUIRE_ALL_VARIABLE]);

  const runBlock = async (block) => {
    const env = {};
    if (needs(block, "postgres")) {
      if (postgres === undefined) return { block, missing: postgresMissing };
      env.DATABASE_URL = postgres.url;
    }
    if (needs(block, "sqlite")) env.CHECKPOINTS_DB = path.join(sqliteDir, `${block.file.replace(/[/.]/g, "_")}.db`);
    const started = Date.now();
    const result = await run(
      tsx,
      [helper, "--timeout-ms", String(RUN_TIMEOUT_MS), ...(block.replay ? ["--outputs", JSON.stringify(block.replay), "--require-all-outputs"] : []), "--", process.execPath, "--import", "tsx", block.snippetPath],
      { cwd: workDir, env },
    );
    return { block, code: result.code, output: result.output, ms: Date.now() - started };
  };
  let laneResults;
  try {
    laneResults = await mapLimit(lanes, 2, async (lane) => {
      const results = [];
      for (const block of lane) {
        if (failedBlocks.has(block)) results.push({ block, skipped: "it does not type-check" });
        else if (results.some((result) => result.skipped !== undefined || result.missing !== undefined || result.code !== 0)) results.push({ block, skipped: "an earlier database block of its page did not run to the end" });
        else results.push(await runBlock(block));
      }
      return results;
    });
  } finally {
    postgres?.stop();
  }
  let ran = 0;
  for (const result of laneResults.flat()) {
    if (result.skipped !== undefined) {
      // Already counted: the type error, or the earlier block's failure.
      console.error(`${where(result.block)} - not run: ${result.skipped}`);
      continue;
    }
    if (result.missing !== undefined) {
      if (requireAll) {
        console.error(`${where(result.block)} - error: not run, ${result.missing} (${testing.REQUIRE_ALL_VARIABLE} is set)`);
        failures += 1;
      } else console.warn(`check-docs: skipped ${where(result.block)} (${result.missing})`);
      continue;
    }
    ran += 1;
    if (result.code === 0) {
      console.log(`check-docs: ran ${where(result.block)} in ${(result.ms / 1000).toFixed(1)}s: ok`);
    } else {
      failures += 1;
      const output = result.output.trim().split("\n").map((line) => `    ${line}`).join("\n");
      console.error(`${where(result.block)} - error: the runnable block exited with ${result.code}:\n${output}`);
    }
  }
  console.log(`check-docs: ran ${ran} of ${runnable.length} runnable blocks`);
}

console.log(`check-docs: ${failures === 0 ? "ok" : `${failures} error(s)`} in ${((Date.now() - startedAt) / 1000).toFixed(1)}s`);
if (failures > 0) process.exitCode = 1;
