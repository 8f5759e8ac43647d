#!/usr/bin/env node
// Live dashboard check: starts `npm run demo -- --serve` (background load on 127.0.0.1) and a real
// Prometheus (Debian's `prometheus` package) scraping it every 5 s with docs/alerts.yml loaded,
// waits, then runs every PromQL expression of docs/metrics.md and docs/grafana-dashboard.json
// against it. Exits non-zero when an expression returns no data or only NaN.
//
//   node scripts/check-dashboard.mjs [--seconds 35]
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "./lib.mjs";

const args = process.argv.slice(2);
const waitSeconds = args.includes("--seconds") ? Number(args[args.indexOf("--seconds") + 1]) : 35;
if (!Number.isFinite(waitSeconds) || waitSeconds < 10) {
  console.error("--seconds must be a number ≥ 10 (Prometheus needs a few scrapes for rate())");
  process.exit(2);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Every PromQL expression the docs and the dashboard show (same reading as metrics' docs.test.ts). */
async function expressions() {
  const found = [];
  const markdown = await readFile(path.join(repoRoot, "docs/metrics.md"), "utf8");
  for (const block of markdown.matchAll(/```promql\n([\s\S]*?)```/g)) {
    const lines = block[1].split("\n").filter((line) => line.trim().length > 0);
    if (lines.some((line) => line.startsWith("#"))) {
      for (const line of lines) if (!line.startsWith("#")) found.push({ where: "metrics.md", expression: line });
    } else {
      found.push({ where: "metrics.md", expression: lines.join("\n") });
    }
  }
  const dashboard = JSON.parse(await readFile(path.join(repoRoot, "docs/grafana-dashboard.json"), "utf8"));
  for (const panel of dashboard.panels) for (const target of panel.targets ?? []) found.push({ where: `dashboard: ${panel.title}`, expression: target.expr });
  for (const record of ["react_agent:thought_action_gap:ratio_rate5m", "react_agent:observation_validity:ratio_rate5m", "react_agent:cycle_duration_seconds:mean_rate5m"]) {
    found.push({ where: "recording rule", expression: record });
  }
  return found;
}

function waitForLine(child, pattern, timeoutMs) {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${seen.slice(-2000)}`)), timeoutMs);
    child.stdout.on("data", (chunk) => {
      seen += chunk;
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before printing ${pattern}:\n${seen.slice(-2000)}`));
    });
  });
}

function stop(child) {
  if (child === undefined || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    // The demo and Prometheus both stop cleanly on SIGINT; the demo runs as a process group leader.
    try {
      process.kill(-child.pid, "SIGINT");
    } catch {
      child.kill("SIGINT");
    }
  });
}

const workDir = await mkdtemp(path.join(os.tmpdir(), "reins-dashboard-"));
let demo;
let prometheus;
let failed = 0;
try {
  demo = spawn(path.join(repoRoot, "node_modules/.bin/tsx"), ["src/demo.ts", "--serve", "--port", "0"], {
    cwd: path.join(repoRoot, "examples"),
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
    env: { ...process.env, OPENAI_API_KEY: "" },
  });
  demo.stdout.setEncoding("utf8");
  const [, target] = await waitForLine(demo, /Serving metrics on http:\/\/(127\.0\.0\.1:\d+)\/metrics/, 180_000);
  const prometheusPort = await freePort();
  await writeFile(
    path.join(workDir, "prometheus.yml"),
    [
      "global:",
      "  scrape_interval: 5s",
      "  evaluation_interval: 5s",
      `rule_files: [${JSON.stringify(path.join(repoRoot, "docs/alerts.yml"))}]`,
      "scrape_configs:",
      "  - job_name: reins-demo",
      "    static_configs:",
      `      - targets: ["${target}"]`,
      "",
    ].join("\n"),
  );
  prometheus = spawn(
    "prometheus",
    [`--config.file=${path.join(workDir, "prometheus.yml")}`, `--storage.tsdb.path=${path.join(workDir, "tsdb")}`, `--web.listen-address=127.0.0.1:${prometheusPort}`],
    { stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  let prometheusLog = "";
  prometheus.stderr.on("data", (chunk) => (prometheusLog += chunk));
  console.log(`demo on ${target}, Prometheus on 127.0.0.1:${prometheusPort}; scraping for ${waitSeconds} s…`);
  await new Promise((resolve) => setTimeout(resolve, waitSeconds * 1000));
  const api = `http://127.0.0.1:${prometheusPort}/api/v1/query`;
  const scrapes = await (await fetch(`${api}?query=${encodeURIComponent('sum_over_time(up{job="reins-demo"}[10m])')}`)).json();
  console.log(`successful scrapes: ${scrapes.data?.result?.[0]?.value?.[1] ?? "none"}`);
  const all = await expressions();
  for (const { where, expression } of all) {
    const query = expression.replaceAll("$__rate_interval", "1m").replaceAll("$__range", "5m");
    const response = await (await fetch(`${api}?query=${encodeURIComponent(query)}`)).json();
    const values = (response.data?.result ?? []).map((series) => series.value?.[1]);
    const real = values.filter((value) => value !== undefined && value !== "NaN");
    const status = response.status !== "success" ? `error: ${response.error}` : values.length === 0 ? "no data" : real.length === 0 ? "NaN only" : "data";
    if (status !== "data") failed += 1;
    console.log(`${status === "data" ? "ok  " : "FAIL"} ${where}: ${query.replace(/\s+/g, " ").slice(0, 120)}${status === "data" ? "" : ` (${status})`}`);
  }
  console.log(`${all.length - failed}/${all.length} expressions returned data after ${waitSeconds} s of scraping.`);
  if (prometheus.exitCode !== null) console.error(prometheusLog.slice(-2000));
} catch (error) {
  failed += 1;
  console.error(error instanceof Error ? error.message : String(error));
} finally {
  await stop(prometheus);
  await stop(demo);
  await rm(workDir, { recursive: true, force: true });
}
process.exit(failed === 0 ? 0 : 1);
