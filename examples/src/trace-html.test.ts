import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { LoopAuditRecord } from "@reins/loop-control";
import { REPO_ROOT, describeRequiring } from "@reins/testing";
import { Registry } from "prom-client";
import { runDemo } from "./demo-runner";

/** Where the page and its screenshot are kept for a person to look at (git-ignored; CI keeps it). */
const ARTIFACTS_DIR = path.join(REPO_ROOT, "artifacts", "reins-trace");
const TRACE_BIN = path.join(REPO_ROOT, "packages", "loop-control", "bin", "reins-trace.cjs");

/** Headless Debian chromium, isolated: its own profile, no network side traffic, no GPU. */
function chromium(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const profile = mkdtempSync(path.join(tmpdir(), "reins-chromium-"));
  try {
    const result = spawnSync(
      "chromium",
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        `--user-data-dir=${profile}`,
        ...args,
      ],
      { encoding: "utf8", timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
    );
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

describeRequiring([{ program: "chromium" }], "reins-trace --html of a demo run, in headless Chromium", () => {
  const records: LoopAuditRecord[] = [];
  let pagePath = "";

  beforeAll(async () => {
    const lines: string[] = [];
    await runDemo({ write: () => undefined, registry: new Registry(), audit: { write: (line: string) => lines.push(line) } });
    for (const line of lines) records.push(JSON.parse(line) as LoopAuditRecord);
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const auditPath = path.join(ARTIFACTS_DIR, "demo-audit.jsonl");
    writeFileSync(auditPath, lines.join(""));
    // The CLI as a user runs it (the launcher runs the TypeScript source before a build).
    const cli = spawnSync(process.execPath, [TRACE_BIN, auditPath, "--html", "--title", "Reins demo run"], { encoding: "utf8", timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    expect(cli.stderr).toBe("");
    expect(cli.status).toBe(0);
    pagePath = path.join(ARTIFACTS_DIR, "demo-run.html");
    writeFileSync(pagePath, cli.stdout);
  }, 180_000);

  it("covers every scenario of the demo (the trail is not empty)", () => {
    expect(new Set(records.map((record) => record.runId)).size).toBeGreaterThanOrEqual(15);
  });

  it("shows every step of every run in the DOM Chromium builds", () => {
    const { status, stdout } = chromium(["--dump-dom", pathToFileURL(pagePath).href]);
    expect(status).toBe(0);
    const shown = new Map<string, number[]>();
    for (const section of stdout.matchAll(/<section class="run" data-run-id="([^"]+)">([\s\S]*?)<\/section>/g)) {
      shown.set(section[1], [...section[2].matchAll(/<li class="step [^"]*" data-step="(\d+)"/g)].map((match) => Number(match[1])));
    }
    const expected = new Map<string, number[]>();
    for (const record of records) expected.set(record.runId, [...(expected.get(record.runId) ?? []), record.step].sort((a, b) => a - b));
    expect(shown).toEqual(expected);
    expect(stdout).toContain('<strong class="stop-reason">repeat</strong>');
    expect(stdout).toContain('<strong class="stop-reason">max_steps</strong>');
  }, 180_000);

  it("renders a screenshot into the artifacts directory", () => {
    const screenshot = path.join(ARTIFACTS_DIR, "demo-run.png");
    rmSync(screenshot, { force: true });
    const { status } = chromium(["--hide-scrollbars", "--window-size=1280,2400", `--screenshot=${screenshot}`, pathToFileURL(pagePath).href]);
    expect(status).toBe(0);
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
    expect(readFileSync(screenshot).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  }, 180_000);
});
