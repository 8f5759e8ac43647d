#!/usr/bin/env node
// Install smoke test: packs every published package with `npm pack`, installs the tarballs into
// a throwaway app in the OS temp dir together with the peers a user would install
// (@langchain/core, prom-client, @opentelemetry/api), then loads each package from two plain projects beside it:
// a CommonJS one (`require`) and an ES module one (`import`). Each load must expose the
// package's main exports, and the objects must work with the app's own copy of the peers (one
// @langchain/core in the app: the parser is an instance of the app's BaseOutputParser). Finally
// the installed `reins-parse` bin parses an action from stdin and `reins-trace` renders an audit record.
//
//   npm run build && npm run smoke
//   npm run smoke -- --core 0.3.80         same with another @langchain/core (default 1.4.0)
//   npm run smoke -- --core 1.4.0,0.3.80   both lines (what CI runs)
//   npm run smoke -- --keep          keep the temp dir and print its path
import { mkdtemp, rm, writeFile, mkdir, readdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { listPackages, repoRoot, run } from "./lib.mjs";

const args = process.argv.slice(2);
// Comma-separated @langchain/core versions, one app each.
const coreVersions = (args.includes("--core") ? args[args.indexOf("--core") + 1] : "1.4.0").split(",");
const promClientVersion = "15.1.3";
const otelApiVersion = "1.9.0";
const keep = args.includes("--keep");

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
  "@reins/redis-store": ["RedisResultStore"],
};

// One body, two module systems: `load(name)` is `require` in the CJS project and `import()` in
// the ESM one. It throws on the first failed expectation.
const CHECK_BODY = `
const expected = ${JSON.stringify(MAIN_EXPORTS, null, 2)};
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

console.log("ok " + MODE + ": " + report.join(", "));
`;

const CJS_SOURCE = `"use strict";
const MODE = "require (CommonJS)";
const load = async (name) => require(name);
(async () => {${CHECK_BODY}})().catch((error) => { console.error(error); process.exit(1); });
`;

const ESM_SOURCE = `const MODE = "import (ES module)";
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

const workDir = await mkdtemp(path.join(os.tmpdir(), "reins-smoke-"));
try {
  const tarballDir = path.join(workDir, "tarballs");
  await mkdir(tarballDir);
  const pack = await run("npm", [
    "pack",
    "--pack-destination",
    tarballDir,
    ...packages.flatMap((pkg) => ["-w", pkg.name]),
  ]);
  if (pack.code !== 0) fail("npm pack failed", pack.output);
  const tarballs = (await readdir(tarballDir)).filter((file) => file.endsWith(".tgz"));
  if (tarballs.length !== packages.length) {
    fail(`expected ${packages.length} tarballs, npm pack made ${tarballs.length}`, pack.output);
  }

  let failed = false;
  /** Installs the tarballs with one @langchain/core version and runs every check there. */
  async function checkWithCore(coreVersion) {
    // The app: the tarballs + the peers from the registry. The two plain projects sit inside it
    // and resolve packages from its node_modules, so one install serves both.
    const appDir = path.join(workDir, `app-core-${coreVersion}`);
    await mkdir(appDir);
    const dependencies = {
      "@langchain/core": coreVersion,
      "prom-client": promClientVersion,
      "@opentelemetry/api": otelApiVersion,
    };
    for (const pkg of packages) {
      const tarball = tarballs.find((file) => file.startsWith(pkg.name.replace("@", "").replace("/", "-") + "-"));
      if (!tarball) throw new Error(`no tarball for ${pkg.name} in ${tarballs.join(", ")}`);
      dependencies[pkg.name] = `file:${path.join(tarballDir, tarball)}`;
    }
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

    // No package may carry its own copy of @langchain/core (the executor's instanceof checks need one).
    for (const pkg of packages) {
      const nested = path.join(appDir, "node_modules", pkg.name, "node_modules", "@langchain", "core");
      if (existsSync(nested)) throw new Error(`${pkg.name} installed its own @langchain/core (peer range excludes ${coreVersion}?)`);
    }

    const projects = [
      { dir: "cjs", type: "commonjs", file: "index.cjs", source: CJS_SOURCE },
      { dir: "esm", type: "module", file: "index.mjs", source: ESM_SOURCE },
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
      process.stdout.write(`[@langchain/core ${coreVersion}] ${result.output}`);
      if (result.code !== 0) {
        failed = true;
        console.error(`[@langchain/core ${coreVersion}] FAIL ${project.type} project (exit ${result.code})`);
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
      console.log(`[@langchain/core ${coreVersion}] ok reins-parse bin: ${cli.output.trim()}`);
    } else {
      failed = true;
      console.error(`[@langchain/core ${coreVersion}] FAIL reins-parse bin (exit ${cli.code}): ${cli.output}`);
    }
    // loop-control's CLI: an audit record from stdin, as HTML.
    const auditLine = JSON.stringify({
      type: "reins.loop_control.step", runId: "smoke-run", step: 1, startedAt: "2026-01-01T00:00:00.000Z",
      durations: { cycleMs: 1 }, thought: "done", repairs: [], outcome: "finish", stopReason: "final_answer",
    });
    const trace = await run(path.join(appDir, "node_modules", ".bin", "reins-trace"), ["-", "--html"], { cwd: appDir, input: `${auditLine}\n` });
    if (trace.code === 0 && trace.output.includes('data-run-id="smoke-run"') && trace.output.includes('data-step="1"')) {
      console.log(`[@langchain/core ${coreVersion}] ok reins-trace bin: ${trace.output.length} characters of HTML`);
    } else {
      failed = true;
      console.error(`[@langchain/core ${coreVersion}] FAIL reins-trace bin (exit ${trace.code}): ${trace.output.slice(0, 500)}`);
    }
  }

  // One app per @langchain/core line, installed in parallel (the installs are network-bound).
  await Promise.all(
    coreVersions.map((coreVersion) =>
      checkWithCore(coreVersion).catch((error) => {
        failed = true;
        console.error(`[@langchain/core ${coreVersion}] FAIL ${error instanceof Error ? error.message : String(error)}`);
      }),
    ),
  );

  console.log(
    `smoke: ${packages.length} packages, @langchain/core ${coreVersions.join(" and ")}, ${((Date.now() - startedAt) / 1000).toFixed(1)}s`,
  );
  if (failed) process.exitCode = 1;
} finally {
  if (keep) console.log(`kept ${workDir}`);
  else await rm(workDir, { recursive: true, force: true });
}
