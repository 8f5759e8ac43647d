#!/usr/bin/env node
// Install smoke test: packs every published package with `npm pack`, installs the tarballs into
// a throwaway app in the OS temp dir together with what a user of one LangChain line installs
// (1.x: @langchain/core + @langchain/classic + @langchain/openai, as in the root package.json;
// 0.3: @langchain/core + langchain + @langchain/openai, as in compat/package.json; prom-client),
// checks the app holds one @langchain/core and one zod, then loads each package from two plain
// projects beside it:
// a CommonJS one (`require`) and an ES module one (`import`). Each load must expose the
// package's main exports, and the objects must work with the app's own copy of the peers (one
// @langchain/core in the app: the parser is an instance of the app's BaseOutputParser). Finally
// the installed `reins-parse` bin parses an action from stdin, and the README quick start, copied
// as is (on 0.3 with the one import its comment names), type-checks against the installed
// packages' types and runs against the replay server (scripts/with-replay-server.mts), and the
// installed `reins-trace` bin renders an audit record.
//
//   npm run build && npm run smoke
//   npm run smoke -- --lines 0.3                 one line (default: 1.x)
//   npm run smoke -- --lines 1.x,0.3             both lines
//   npm run smoke -- --versions floor,latest     each line at the versions the repo pins (floor,
//                                                the default) and at the newest its ranges allow
//   npm run smoke -- --lines 1.x,0.3 --versions floor,latest   what CI runs (four apps)
//   npm run smoke -- --keep                      keep the temp dir and print its path
import { mkdtemp, rm, writeFile, mkdir, readdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readFileSync } from "node:fs";
import { listPackages, mapLimit, packPackages, repoRoot, run } from "./lib.mjs";
import { extractBlocks } from "./markdown-blocks.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const keep = args.includes("--keep");

const rootManifest = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8"));
const compatManifest = JSON.parse(readFileSync(path.join(repoRoot, "compat", "package.json"), "utf8"));
const examplesManifest = JSON.parse(readFileSync(path.join(repoRoot, "examples", "package.json"), "utf8"));
/** What an app on each LangChain line installs beside the tarballs, at the versions the repo tests. */
const LINES = {
  "1.x": {
    "@langchain/core": rootManifest.devDependencies["@langchain/core"],
    "@langchain/classic": rootManifest.devDependencies["@langchain/classic"],
    "@langchain/openai": rootManifest.devDependencies["@langchain/openai"],
  },
  "0.3": {
    "@langchain/core": compatManifest.dependencies["@langchain/core"],
    langchain: compatManifest.dependencies.langchain,
    "@langchain/openai": compatManifest.dependencies["@langchain/openai"],
  },
};
// The floor apps also pin zod at the lowest version both Reins (`^3.25.76 || ^4`) and the line's
// @langchain/core accept: core 1.4.0 takes zod ^4.6.6, core 0.3.80 ^3.25.32. The latest apps
// leave zod to npm (the newest both accept).
const ZOD_FLOOR = { "1.x": "4.6.6", "0.3": "3.25.76" };
const COMMON = {
  "prom-client": examplesManifest.dependencies["prom-client"],
  "@opentelemetry/api": JSON.parse(readFileSync(path.join(repoRoot, "packages", "otel", "package.json"), "utf8")).devDependencies["@opentelemetry/api"],
  "@types/node": rootManifest.devDependencies["@types/node"],
};
const lines = option("--lines", "1.x").split(",");
const versionSets = option("--versions", "floor").split(",");
for (const line of lines) if (!LINES[line]) { console.error(`smoke: unknown line ${line} (known: ${Object.keys(LINES).join(", ")})`); process.exit(2); }
for (const set of versionSets) if (!["floor", "latest"].includes(set)) { console.error(`smoke: --versions takes floor and/or latest, got ${set}`); process.exit(2); }
/** floor: the exact versions; latest: the newest the caret range of each allows (`^1.4.0`, `^0.3.80`…). */
const versionsFor = (line, set) => ({
  ...Object.fromEntries(Object.entries({ ...LINES[line], ...COMMON }).map(([name, version]) => [name, set === "floor" || name === "@types/node" ? version : `^${version}`])),
  ...(set === "floor" ? { zod: ZOD_FLOOR[line] } : {}),
});

// The README quick start: the first `ts run` block after "## Quick start", and its scripted replies.
const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
const quickStartLine = readme.split("\n").findIndex((text) => /^## Quick start/.test(text)) + 1;
const quickStart = extractBlocks("README.md", readme).find((block) => block.line > quickStartLine && block.markers.includes("run"));
if (quickStartLine === 0 || !quickStart) {
  console.error("smoke: README.md has no `ts run` block under \"## Quick start\"");
  process.exit(1);
}
// On LangChain 0.3 a user changes the one import the quick start's comment names; so does this check.
const IMPORT_1X = `import { AgentExecutor } from "@langchain/classic/agents"; // LangChain 0.3: from "langchain/agents"`;
if (!quickStart.code.includes(IMPORT_1X)) {
  console.error(`smoke: README.md:${quickStart.line}: the quick start must import AgentExecutor with the line\n  ${IMPORT_1X}\n(the 0.3 app replaces that import as its comment says)`);
  process.exit(1);
}
const quickStartFor = (line) => (line === "0.3" ? quickStart.code.replace(IMPORT_1X, `import { AgentExecutor } from "langchain/agents";`) : quickStart.code);

/** The exports each package must expose; every one is a function or class. */
const MAIN_EXPORTS = {
  "@reins/core": ["RunContextStore", "emitEvent", "matchReActLabel", "actionKey"],
  "@reins/metrics": ["createAgentMetrics"],
  "@reins/react-output-parser": ["HardenedReActOutputParser"],
  "@reins/observation-cleaner": ["ObservationCleaner", "cleanObservation"],
  "@reins/tool-executor": ["ToolExecutor"],
  "@reins/loop-control": ["LoopControlHandler"],
  "@reins/react-agent": ["createReactAgent"],
  "@reins/otel": ["createOtelRecorder"],
  "@reins/agent-middleware": ["createReinsMiddleware"],
  "@reins/redis-store": ["RedisResultStore"],
};

/** The `langchain` a 1.x app installs beside @langchain/core (the peer of @reins/agent-middleware). */
const langchainVersion = "1.5.14";

/**
 * Whether a package's @langchain/core peer range admits this core version's line: a package for
 * LangChain 1.x only (@reins/agent-middleware: createAgent does not exist on 0.3) is left out of
 * the 0.3 app, and that is said in the output.
 */
function supportsCore(pkg, coreVersion) {
  const range = pkg.manifest.peerDependencies?.["@langchain/core"];
  if (typeof range !== "string") return true;
  const major = coreVersion.split(".").slice(0, 2).join(".");
  const line = major.startsWith("0.") ? major : coreVersion.split(".")[0];
  return range.split("||").some((part) => part.trim().replace(/^[\^~>=]+/, "").startsWith(line + "."));
}

// One body, two module systems: `load(name)` is `require` in the CJS project and `import()` in
// the ESM one. It throws on the first failed expectation.
const CHECK_BODY = `
const report = [];
for (const [name, exportNames] of Object.entries(expected)) {
  const mod = await load(name);
  for (const exportName of exportNames) {
    if (typeof mod[exportName] !== "function") {
      throw new Error(name + " has no function export " + exportName + " (got " + typeof mod[exportName] + ")");
    }
  }
  report.push(name);
}

// The peers are the app's: objects made by Reins work with the app's @langchain/core and prom-client.
const { BaseOutputParser } = await load("@langchain/core/output_parsers");
const { HardenedReActOutputParser } = await load("@reins/react-output-parser");
const parser = new HardenedReActOutputParser({ toolNames: ["search"] });
if (!(parser instanceof BaseOutputParser)) {
  throw new Error("HardenedReActOutputParser is not an instance of the app's BaseOutputParser (two copies of @langchain/core?)");
}
const action = await parser.parse("Thought: look it up\\nAction: search\\nAction Input: reins");
if (action.tool !== "search") throw new Error("parser returned " + JSON.stringify(action));

const { Registry } = await load("prom-client");
const { createAgentMetrics } = await load("@reins/metrics");
const registry = new Registry();
createAgentMetrics({ registry });
const exposition = await registry.metrics();
if (!exposition.includes("react_agent_runs_total")) throw new Error("metrics not registered in the app's Registry");

// The OTel recorder runs on the app's @opentelemetry/api (no SDK registered: the API's no-ops).
const { createOtelRecorder } = await load("@reins/otel");
const otel = createOtelRecorder();
otel.record({ type: "run_start", runId: "smoke" });
otel.record({ type: "run_end", runId: "smoke", status: "success", stopReason: "final_answer", durationMs: 1 });
if (otel.openRuns !== 0) throw new Error("createOtelRecorder left a run open");

const { cleanObservation } = await load("@reins/observation-cleaner");
const cleaned = cleanObservation({ price: "199.00" });
if (typeof cleaned.text !== "string" || !cleaned.text.includes("199.00")) throw new Error("cleanObservation returned " + JSON.stringify(cleaned));

// The app's one zod (v3 on the 0.3 line, v4 on 1.x): a zod-schema tool through the ToolExecutor
// and the parser, which read the schema of whichever zod made it.
const { z } = await load("zod");
const { tool } = await load("@langchain/core/tools");
const { ToolExecutor } = await load("@reins/tool-executor");
const add = tool(async ({ a, b }) => String(a + b), { name: "add", description: "Adds a and b.", schema: z.object({ a: z.number(), b: z.number() }) });
const [wrappedAdd] = new ToolExecutor().wrap([add]);
const sum = await wrappedAdd.invoke('{"a": 2, "b": 3}');
if (sum !== "5") throw new Error("wrapped zod tool returned " + JSON.stringify(sum));
const rejected = await wrappedAdd.invoke('{"a": "two", "b": 3}');
if (typeof rejected !== "string" || !rejected.includes('Invalid input for tool "add"')) throw new Error("wrapped zod tool accepted a bad input: " + JSON.stringify(rejected));
const zodParser = new HardenedReActOutputParser({ tools: [add] });
const zodAction = await zodParser.parse('Action: add\\nAction Input: {"a": 1, "b": 2}');
if (zodAction.toolInput?.a !== 1) throw new Error("parser with a zod tool returned " + JSON.stringify(zodAction));
const zodReport = zodParser.parseDetailed('Action: add\\nAction Input: {"a": "x"}');
if (zodReport.ok) throw new Error("parser accepted an input its zod schema rejects: " + JSON.stringify(zodReport));

if (expected["@reins/agent-middleware"] !== undefined) {
  // The middleware is built with the app's langchain: a LangChain v1 AgentMiddleware.
  const { createReinsMiddleware } = await load("@reins/agent-middleware");
  const middleware = createReinsMiddleware();
  if (middleware.name !== "ReinsMiddleware" || typeof middleware.wrapToolCall !== "function" || typeof middleware.afterModel !== "object") {
    throw new Error("createReinsMiddleware returned " + JSON.stringify(Object.keys(middleware)));
  }
}

console.log("ok " + MODE + ": " + report.join(", ") + "; a zod " + (typeof z.object({})._zod === "object" ? "v4" : "v3") + " tool through ToolExecutor and the parser");
`;

const CJS_SOURCE = (expected) => `"use strict";
const MODE = "require (CommonJS)";
const expected = ${JSON.stringify(expected, null, 2)};
const load = async (name) => require(name);
(async () => {${CHECK_BODY}})().catch((error) => { console.error(error); process.exit(1); });
`;

const ESM_SOURCE = (expected) => `const MODE = "import (ES module)";
const expected = ${JSON.stringify(expected, null, 2)};
const load = (name) => import(name);
${CHECK_BODY}`;

function fail(message, output) {
  console.error(message);
  if (output) console.error(output);
  process.exit(1);
}

const startedAt = Date.now();
const packages = listPackages();
const missingBuild = packages.filter((pkg) => !existsSync(path.join(pkg.dir, "dist")));
if (missingBuild.length > 0) {
  fail(`No dist/ in ${missingBuild.map((pkg) => pkg.name).join(", ")}: run \`npm run build\` first.`);
}

/** Every installed copy of `name` under `nodeModules` (nested ones too): their versions. */
async function installedCopies(nodeModules, name) {
  const copies = [];
  async function walk(dir) {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const full = path.join(dir, entry.name);
      if (entry.name.startsWith("@")) {
        await walk(full);
        continue;
      }
      const packageName = path.basename(dir).startsWith("@") ? `${path.basename(dir)}/${entry.name}` : entry.name;
      if (packageName === name) copies.push(JSON.parse(readFileSync(path.join(full, "package.json"), "utf8")).version);
      if (existsSync(path.join(full, "node_modules"))) await walk(path.join(full, "node_modules"));
    }
  }
  await walk(nodeModules);
  return copies;
}

const workDir = await mkdtemp(path.join(os.tmpdir(), "reins-smoke-"));
try {
  const tarballDir = path.join(workDir, "tarballs");
  await mkdir(tarballDir);
  let packed;
  try {
    packed = await packPackages(tarballDir);
  } catch (error) {
    fail(error.message);
  }

  let failed = false;
  /** Installs the tarballs with one LangChain line at one version set and runs every check there. */
  async function checkApp(line, versionSet) {
    const label = `LangChain ${line} ${versionSet}`;
    // The app: the tarballs + the line's packages from the registry. The two plain projects and
    // the quick start sit inside it and resolve packages from its node_modules.
    const appDir = path.join(workDir, `app-${line}-${versionSet}`);
    await mkdir(appDir);
    const dependencies = versionsFor(line, versionSet);
    // A package for LangChain 1.x only (@reins/agent-middleware) is left out of the 0.3 app, and
    // that is said; an app with it also installs the `langchain` 1.x it is built on.
    const coreVersion = dependencies["@langchain/core"].replace(/^\^/, "");
    const appPackages = packed.filter((pkg) => supportsCore(pkg, coreVersion));
    for (const pkg of packed.filter((pkg) => !appPackages.includes(pkg))) {
      console.log(`[${label}] skip ${pkg.name}: its peer @langchain/core is ${pkg.manifest.peerDependencies["@langchain/core"]}`);
    }
    if (appPackages.some((pkg) => pkg.manifest.peerDependencies?.langchain !== undefined) && dependencies.langchain === undefined) {
      dependencies.langchain = versionSet === "floor" ? langchainVersion : `^${langchainVersion}`;
    }
    const expected = Object.fromEntries(Object.entries(MAIN_EXPORTS).filter(([name]) => appPackages.some((pkg) => pkg.name === name)));
    for (const pkg of appPackages) dependencies[pkg.name] = `file:${pkg.tarball}`;
    await writeFile(
      path.join(appDir, "package.json"),
      JSON.stringify({ name: "reins-smoke-app", private: true, dependencies }, null, 2),
    );
    const install = await run(
      "npm",
      ["install", "--no-audit", "--no-fund", "--no-package-lock", "--ignore-scripts", "--loglevel=error"],
      { cwd: appDir },
    );
    if (install.code !== 0) throw new Error(`npm install of the tarballs failed:\n${install.output}`);

    // One @langchain/core (the executor's instanceof checks need it) and one zod (a second copy
    // would be a second schema runtime in the app) in the whole app.
    const installed = {};
    for (const name of ["@langchain/core", "zod", "langchain", "@langchain/classic", "@langchain/openai"]) {
      installed[name] = await installedCopies(path.join(appDir, "node_modules"), name);
    }
    for (const name of ["@langchain/core", "zod"]) {
      if (installed[name].length !== 1) throw new Error(`the app has ${installed[name].length} copies of ${name} (${installed[name].join(", ")}); expected one`);
    }
    console.log(`[${label}] installed ${Object.entries(installed).filter(([, copies]) => copies.length > 0).map(([name, copies]) => `${name} ${copies.join("+")}`).join(", ")}`);

    const projects = [
      { dir: "cjs", type: "commonjs", file: "index.cjs", source: CJS_SOURCE(expected) },
      { dir: "esm", type: "module", file: "index.mjs", source: ESM_SOURCE(expected) },
    ];
    for (const project of projects) {
      const projectDir = path.join(appDir, project.dir);
      await mkdir(projectDir);
      await writeFile(
        path.join(projectDir, "package.json"),
        JSON.stringify({ name: `reins-smoke-${project.dir}`, private: true, type: project.type }, null, 2),
      );
      await writeFile(path.join(projectDir, project.file), project.source);
      const result = await run(process.execPath, [project.file], { cwd: projectDir });
      process.stdout.write(`[${label}] ${result.output}`);
      if (result.code !== 0) {
        failed = true;
        console.error(`[${label}] FAIL ${project.type} project (exit ${result.code})`);
      }
    }
    // The parser's CLI, as `npx reins-parse` finds it in an app.
    const cli = await run(path.join(appDir, "node_modules", ".bin", "reins-parse"), ["--tools", "search"], {
      cwd: appDir,
      input: "Action: search\nAction Input: x\n",
    });
    let cliResult;
    try {
      cliResult = JSON.parse(cli.output);
    } catch {
      cliResult = undefined;
    }
    if (cli.code === 0 && cliResult?.tool === "search" && cliResult?.toolInput === "x") {
      console.log(`[${label}] ok reins-parse bin: ${cli.output.trim()}`);
    } else {
      failed = true;
      console.error(`[${label}] FAIL reins-parse bin (exit ${cli.code}): ${cli.output}`);
    }

    // The README quick start, copied as is: type-checked against the installed types (the
    // repo's TypeScript, a user's usual strict NodeNext config), then run with tsx.
    const quickStartDir = path.join(appDir, "quickstart");
    await mkdir(quickStartDir);
    await writeFile(path.join(quickStartDir, "package.json"), JSON.stringify({ name: "reins-quickstart", private: true, type: "module" }, null, 2));
    await writeFile(path.join(quickStartDir, "app.ts"), quickStartFor(line));
    await writeFile(
      path.join(quickStartDir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: ["node"] }, files: ["app.ts"] }, null, 2),
    );
    const tsc = await run(process.execPath, [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", "."], { cwd: quickStartDir });
    if (tsc.code !== 0) {
      failed = true;
      console.error(`[${label}] FAIL README quick start (README.md:${quickStart.line}) does not type-check in the app:\n${tsc.output}`);
      return;
    }
    const tsx = path.join(repoRoot, "node_modules", ".bin", "tsx");
    const quick = await run(
      tsx,
      [path.join(repoRoot, "scripts", "with-replay-server.mts"), ...(quickStart.replay ? ["--outputs", JSON.stringify(quickStart.replay), "--require-all-outputs"] : []), "--", tsx, "app.ts"],
      { cwd: quickStartDir },
    );
    if (quick.code === 0) {
      console.log(`[${label}] ok README quick start type-checks and runs: ${quick.output.trim().split("\n").join(" | ")}`);
    } else {
      failed = true;
      console.error(`[${label}] FAIL README quick start (README.md:${quickStart.line}) exited with ${quick.code}:\n${quick.output}`);
    }
    // loop-control's CLI: an audit record from stdin, as HTML.
    const auditLine = JSON.stringify({
      type: "reins.loop_control.step", runId: "smoke-run", step: 1, startedAt: "2026-01-01T00:00:00.000Z",
      durations: { cycleMs: 1 }, thought: "done", repairs: [], outcome: "finish", stopReason: "final_answer",
    });
    const trace = await run(path.join(appDir, "node_modules", ".bin", "reins-trace"), ["-", "--html"], { cwd: appDir, input: `${auditLine}\n` });
    if (trace.code === 0 && trace.output.includes('data-run-id="smoke-run"') && trace.output.includes('data-step="1"')) {
      console.log(`[${label}] ok reins-trace bin: ${trace.output.length} characters of HTML`);
    } else {
      failed = true;
      console.error(`[${label}] FAIL reins-trace bin (exit ${trace.code}): ${trace.output.slice(0, 500)}`);
    }
  }

  // One app per line and version set, two at a time (the installs are network-bound).
  const apps = lines.flatMap((line) => versionSets.map((versionSet) => ({ line, versionSet })));
  await mapLimit(apps, 2, ({ line, versionSet }) =>
    checkApp(line, versionSet).catch((error) => {
      failed = true;
      console.error(`[LangChain ${line} ${versionSet}] FAIL ${error instanceof Error ? error.message : String(error)}`);
    }),
  );

  console.log(
    `smoke: ${packages.length} packages, ${apps.map((app) => `LangChain ${app.line} ${app.versionSet}`).join(", ")}, ${((Date.now() - startedAt) / 1000).toFixed(1)}s`,
  );
  if (failed) process.exitCode = 1;
} finally {
  if (keep) console.log(`kept ${workDir}`);
  else await rm(workDir, { recursive: true, force: true });
}
