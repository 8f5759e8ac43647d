#!/usr/bin/env node
// Install smoke test, following the README as a newcomer does: packs every published package with
// `npm pack` into <tmp>/reins/dist-packs/ (as `npm run pack` lays them out: @reins/agent-middleware
// in dist-packs/langchain-1/), then for each LangChain line makes a fresh folder beside it
// (`npm init -y && npm pkg set type=module`, as the README says) and runs that line's install line
// from the README's "Install before the first release" literally (`sh -c`, so
// `../reins/dist-packs/*.tgz` is the shell's glob); an `EBADENGINE` warning fails it. There it runs
// the programs of scripts/readme-programs.mjs unchanged — the quick start as ES module and CommonJS
// (on 0.3 with the one import its comment names), the createAgent quick start, the fakeModel()
// example and the agent-middleware README snippet (1.x) — through the installed bin, as the README
// documents it: `npx reins-replay --outputs JSON --require-all-outputs -- npx tsx app.ts`. Then it
// adds the checks' own packages (prom-client, @opentelemetry/api, @types/node), type-checks the
// TypeScript programs against the installed types (the repo's TypeScript, a strict NodeNext
// config), checks the app holds one @langchain/core and one zod, loads each package from plain CJS
// and ESM projects (scripts/smoke-checks.mjs), and runs the installed `reins-parse` and
// `reins-trace` bins.
//
//   npm run build && npm run smoke
//   npm run smoke -- --lines 0.3                 one line (default: 1.x)
//   npm run smoke -- --lines 1.x,0.3             both lines
//   npm run smoke -- --versions floor,latest     floor: the install lines as written (exact pins,
//                                                the default); latest: each pin widened to a caret
//                                                range, except the LATEST_CAPS below
//   npm run smoke -- --lines 1.x,0.3 --versions floor,latest   what CI runs (four apps)
//   npm run smoke -- --keep                      keep the temp dir and print its path
import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { listPackages, mapLimit, packPackages, repoRoot, run } from "./lib.mjs";
import { ReadmeError, codeFor, commandFor, readInstallLines, readPrograms } from "./readme-programs.mjs";
import { CJS_SOURCE, ESM_SOURCE, MAIN_EXPORTS, installedCopies } from "./smoke-checks.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const keep = args.includes("--keep");

/**
 * What `--versions latest` must not widen to the newest: on Node 20, `@langchain/classic` ≥ 1.0.44
 * depends on `@langchain/openai` 1.6, and `@langchain/openai` 1.6 on `openai` 7, which need Node ≥ 22
 * (EBADENGINE). Capped here, for the 1.x line only (0.3's `@langchain/openai` 0.6 takes Node ≥ 18).
 */
const LATEST_CAPS = {
  "1.x": { "@langchain/classic": "1.0.43", "@langchain/openai": "~1.5.8" },
  "0.3": {},
};
const rootManifest = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8"));
const examplesManifest = JSON.parse(readFileSync(path.join(repoRoot, "examples", "package.json"), "utf8"));
/** What the checks themselves need beside the install line (not a user's install). */
const CHECK_EXTRAS = {
  "prom-client": examplesManifest.dependencies["prom-client"],
  "@opentelemetry/api": JSON.parse(readFileSync(path.join(repoRoot, "packages", "otel", "package.json"), "utf8")).devDependencies["@opentelemetry/api"],
  "@types/node": rootManifest.devDependencies["@types/node"],
};

function fail(message, output) {
  console.error(message);
  if (output) console.error(output);
  process.exit(1);
}

let installLines;
let programs;
try {
  installLines = readInstallLines();
  programs = readPrograms();
} catch (error) {
  if (error instanceof ReadmeError) fail(`smoke: ${error.message}`);
  throw error;
}
const knownLines = [...new Set(installLines.map((item) => item.line))];
const lines = option("--lines", "1.x").split(",");
const versionSets = option("--versions", "floor").split(",");
for (const line of lines) {
  if (!knownLines.includes(line)) fail(`smoke: README.md has no install line for LangChain ${line} (it has: ${knownLines.join(", ")})`);
  if (installLines.filter((item) => item.line === line).length > 1) fail(`smoke: README.md has several install lines for LangChain ${line}`);
}
for (const set of versionSets) if (!["floor", "latest"].includes(set)) fail(`smoke: --versions takes floor and/or latest, got ${set}`);

const startedAt = Date.now();
const packages = listPackages();
const missingBuild = packages.filter((pkg) => !existsSync(path.join(pkg.dir, "dist")));
if (missingBuild.length > 0) fail(`No dist/ in ${missingBuild.map((pkg) => pkg.name).join(", ")}: run \`npm run build\` first.`);

const npmEnv = { npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
const workDir = await mkdtemp(path.join(os.tmpdir(), "reins-smoke-"));
try {
  // ../reins/dist-packs from each app folder, literally.
  const tarballDir = path.join(workDir, "reins", "dist-packs");
  await mkdir(tarballDir, { recursive: true });
  try {
    await packPackages(tarballDir);
  } catch (error) {
    fail(error.message);
  }

  let failed = false;
  /** Installs one LangChain line at one version set as the README says, and runs every check there. */
  async function checkApp(line, versionSet) {
    const label = `LangChain ${line} ${versionSet}`;
    const say = (text) => console.log(`[${label}] ${text}`);
    const problem = (text) => {
      failed = true;
      console.error(`[${label}] FAIL ${text}`);
    };
    const appDir = path.join(workDir, `app-${line}-${versionSet}`);
    await mkdir(appDir);
    for (const step of [["init", "-y"], ["pkg", "set", "type=module"]]) {
      const result = await run("npm", step, { cwd: appDir, env: npmEnv });
      if (result.code !== 0) throw new Error(`npm ${step.join(" ")} failed:\n${result.output}`);
    }
    const installLine = installLines.find((item) => item.line === line);
    const command = commandFor(installLine.command, versionSet, LATEST_CAPS[line]);
    const install = await run("sh", ["-c", command], { cwd: appDir, env: npmEnv });
    if (install.code !== 0) throw new Error(`the install line (${installLine.where}) failed: ${command}\n${install.output}`);
    const engineWarnings = install.output.split("\n").filter((text) => /EBADENGINE/.test(text));
    if (engineWarnings.length > 0) problem(`the install line (${installLine.where}) warns EBADENGINE on Node ${process.versions.node}:\n${engineWarnings.join("\n")}`);
    say(`ok install line ${installLine.where}: ${command}`);

    // The programs, unchanged, through the installed reins-replay bin as the README documents it.
    for (const [index, program] of programs.filter((item) => item.lines.includes(line)).entries()) {
      const dir = path.join(appDir, `program-${index + 1}`);
      await mkdir(dir);
      await writeFile(path.join(dir, program.file), codeFor(program, line));
      program.dirs = { ...program.dirs, [label]: dir };
      const replayArgs = program.replay ? ["--outputs", JSON.stringify(program.replay), "--require-all-outputs"] : [];
      const runner = program.file.endsWith(".cjs") ? ["node", program.file] : ["npx", "tsx", program.file];
      const result = await run("npx", ["reins-replay", ...replayArgs, "--", ...runner], { cwd: dir, env: npmEnv });
      if (result.code === 0) say(`ok ${program.name} (${program.where}) runs: ${result.output.trim().split("\n").filter((text) => !text.startsWith("reins-replay: serving")).join(" | ")}`);
      else problem(`${program.name} (${program.where}) exited with ${result.code} under \`npx reins-replay … -- ${runner.join(" ")}\`:\n${result.output}`);
    }

    // What the checks need beside the app's own install.
    const extras = Object.entries(CHECK_EXTRAS).map(([name, version]) => `${name}@${versionSet === "floor" || name === "@types/node" ? version : `^${version}`}`);
    const extra = await run("npm", ["install", "--no-save", "--loglevel=error", ...extras], { cwd: appDir, env: npmEnv });
    if (extra.code !== 0) throw new Error(`npm install of the checks' packages failed:\n${extra.output}`);

    for (const program of programs.filter((item) => item.lines.includes(line) && item.typecheck)) {
      const dir = program.dirs[label];
      await writeFile(
        path.join(dir, "tsconfig.json"),
        JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: ["node"] }, files: [program.file] }, null, 2),
      );
      const tsc = await run(process.execPath, [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", "."], { cwd: dir });
      if (tsc.code === 0) say(`ok ${program.name} type-checks`);
      else problem(`${program.name} (${program.where}) does not type-check in the app:\n${tsc.output}`);
    }

    // One @langchain/core (the executor's instanceof checks need it) and one zod in the whole app.
    const installed = {};
    for (const name of ["@langchain/core", "zod", "langchain", "@langchain/classic", "@langchain/openai", "openai"]) {
      installed[name] = await installedCopies(path.join(appDir, "node_modules"), name);
    }
    for (const name of ["@langchain/core", "zod"]) {
      if (installed[name].length !== 1) problem(`the app has ${installed[name].length} copies of ${name} (${installed[name].join(", ")}); expected one`);
    }
    say(`installed ${Object.entries(installed).filter(([, copies]) => copies.length > 0).map(([name, copies]) => `${name} ${copies.join("+")}`).join(", ")}`);

    const present = packages.filter((pkg) => existsSync(path.join(appDir, "node_modules", ...pkg.name.split("/"))));
    const absent = packages.filter((pkg) => !present.includes(pkg));
    if (absent.length > 0) say(`not installed by this line: ${absent.map((pkg) => pkg.name).join(", ")}`);
    if (line === "1.x" && absent.length > 0) problem(`the 1.x install line leaves out ${absent.map((pkg) => pkg.name).join(", ")}`);
    const expected = Object.fromEntries(Object.entries(MAIN_EXPORTS).filter(([name]) => present.some((pkg) => pkg.name === name)));
    for (const project of [
      { dir: "cjs", type: "commonjs", file: "index.cjs", source: CJS_SOURCE(expected) },
      { dir: "esm", type: "module", file: "index.mjs", source: ESM_SOURCE(expected) },
    ]) {
      const projectDir = path.join(appDir, project.dir);
      await mkdir(projectDir);
      await writeFile(path.join(projectDir, "package.json"), JSON.stringify({ name: `reins-smoke-${project.dir}`, private: true, type: project.type }, null, 2));
      await writeFile(path.join(projectDir, project.file), project.source);
      const result = await run(process.execPath, [project.file], { cwd: projectDir });
      process.stdout.write(`[${label}] ${result.output}`);
      if (result.code !== 0) problem(`${project.type} project (exit ${result.code})`);
    }

    // The parser's CLI, as `npx reins-parse` finds it in an app.
    const cli = await run(path.join(appDir, "node_modules", ".bin", "reins-parse"), ["--tools", "search"], { cwd: appDir, input: "Action: search\nAction Input: x\n" });
    let cliResult;
    try {
      cliResult = JSON.parse(cli.output);
    } catch {
      cliResult = undefined;
    }
    if (cli.code === 0 && cliResult?.tool === "search" && cliResult?.toolInput === "x") say(`ok reins-parse bin: ${cli.output.trim()}`);
    else problem(`reins-parse bin (exit ${cli.code}): ${cli.output}`);

    // loop-control's CLI: an audit record from stdin, as HTML.
    const auditLine = JSON.stringify({
      type: "reins.loop_control.step", runId: "smoke-run", step: 1, startedAt: "2026-01-01T00:00:00.000Z",
      durations: { cycleMs: 1 }, thought: "done", repairs: [], outcome: "finish", stopReason: "final_answer",
    });
    const trace = await run(path.join(appDir, "node_modules", ".bin", "reins-trace"), ["-", "--html"], { cwd: appDir, input: `${auditLine}\n` });
    if (trace.code === 0 && trace.output.includes('data-run-id="smoke-run"') && trace.output.includes('data-step="1"')) say(`ok reins-trace bin: ${trace.output.length} characters of HTML`);
    else problem(`reins-trace bin (exit ${trace.code}): ${trace.output.slice(0, 500)}`);
  }

  // One app per line and version set, two at a time (the installs are network-bound).
  const apps = lines.flatMap((line) => versionSets.map((versionSet) => ({ line, versionSet })));
  await mapLimit(apps, 2, ({ line, versionSet }) =>
    checkApp(line, versionSet).catch((error) => {
      failed = true;
      console.error(`[LangChain ${line} ${versionSet}] FAIL ${error instanceof Error ? error.message : String(error)}`);
    }),
  );

  console.log(`smoke: ${packages.length} packages, ${apps.map((app) => `LangChain ${app.line} ${app.versionSet}`).join(", ")}, ${((Date.now() - startedAt) / 1000).toFixed(1)}s`);
  if (failed) process.exitCode = 1;
} finally {
  if (keep) console.log(`kept ${workDir}`);
  else await rm(workDir, { recursive: true, force: true });
}
