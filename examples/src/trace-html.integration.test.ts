import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { LoopAuditRecord } from "@reins/loop-control";
import { REPO_ROOT, describeRequiring } from "@reins/testing";
import { Registry } from "prom-client";
import { runDemo } from "./demo-runner";

/** `createAgent` exists on the LangChain 1.x line only: the 0.3 compat run renders the classic runs alone. */
const LINE_1 = process.env.REINS_LANGCHAIN_LINE !== "0.3";

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

/** Text as Chromium's --dump-dom serialises it inside an element (&, <, > and no-break spaces escaped). */
function asDomText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\u00a0/g, "&nbsp;");
}

describeRequiring([{ program: "chromium" }], "reins-trace --html of the demo's runs on both agent paths, in headless Chromium", () => {
  const records: LoopAuditRecord[] = [];
  const createAgentRuns = new Set<string>();
  let pagePath = "";
  let dom = "";

  beforeAll(async () => {
    const lines: string[] = [];
    const sink = { write: (line: string) => lines.push(line) };
    await runDemo({ write: () => undefined, registry: new Registry(), audit: sink });
    const classicLines = lines.length;
    if (LINE_1) {
      const { runCreateAgentDemo } = await import("./create-agent-demo");
      await runCreateAgentDemo({ write: () => undefined, registry: new Registry(), audit: sink, agentPath: "invoke" });
    }
    for (const line of lines) records.push(JSON.parse(line) as LoopAuditRecord);
    for (const record of records.slice(classicLines)) createAgentRuns.add(record.runId);
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    // The JSONL goes to the temp directory; the page and the screenshot stay in artifacts/ for a person.
    const auditPath = path.join(mkdtempSync(path.join(tmpdir(), "reins-trace-")), "demo-audit.jsonl");
    writeFileSync(auditPath, lines.join(""));
    // The CLI as a user runs it (the launcher runs the TypeScript source before a build).
    const cli = spawnSync(process.execPath, [TRACE_BIN, auditPath, "--html", "--title", "Reins demo run"], { encoding: "utf8", timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    expect(cli.stderr).toBe("");
    expect(cli.status).toBe(0);
    pagePath = path.join(ARTIFACTS_DIR, "demo-run.html");
    writeFileSync(pagePath, cli.stdout);
    const dumped = chromium(["--dump-dom", pathToFileURL(pagePath).href]);
    expect(dumped.status).toBe(0);
    dom = dumped.stdout;
  }, 300_000);

  it("covers every scenario of both demos (the trail is not empty)", () => {
    expect(new Set(records.map((record) => record.runId)).size).toBeGreaterThanOrEqual(15);
    // On the 0.3 line createAgent does not exist, so none of its runs is on the page (named here, not hidden).
    expect(createAgentRuns.size).toBeGreaterThanOrEqual(LINE_1 ? 5 : 0);
  });

  /** The sections of the page Chromium built, by run id. */
  function sections(): Map<string, string> {
    const found = new Map<string, string>();
    for (const section of dom.matchAll(/<section class="run" id="run-\d+" data-run-id="([^"]+)" data-outcome="[a-z]+">([\s\S]*?)<\/section>/g)) found.set(section[1], section[2]);
    return found;
  }

  it("numbers every run's steps 1, 2, … with one <li data-step> per turn (the parallel calls of a createAgent turn in one)", () => {
    const shown = new Map([...sections()].map(([runId, html]) => [runId, [...html.matchAll(/<li class="step [^"]*" data-step="(\d+)"/g)].map((match) => Number(match[1]))]));
    const expected = new Map<string, number[]>();
    for (const record of records) {
      const steps = expected.get(record.runId) ?? [];
      const previous = records.filter((other) => other.runId === record.runId && other.step < record.step);
      const sameTurn = record.turn !== undefined && previous.some((other) => other.turn === record.turn && other.step === record.step - 1);
      if (!sameTurn) steps.push(steps.length + 1);
      expected.set(record.runId, steps);
    }
    expect(shown).toEqual(expected);
    expect(dom).toContain('<strong class="stop-reason">repeat</strong>');
    expect(dom).toContain('<strong class="stop-reason">max_steps</strong>');
  });

  it("holds every run's question, every observation as the model received it, and every answer", () => {
    const byRun = sections();
    let observations = 0;
    for (const record of records) {
      const html = byRun.get(record.runId) ?? "";
      if (record.question !== undefined) expect(html).toContain(`<pre class="question-text">${asDomText(record.question)}</pre>`);
      if (record.observation !== undefined) {
        observations += 1;
        // Marks are wrapped in <mark>: compare the text with the tags taken out.
        expect(html.replace(/<\/?mark>/g, "")).toContain(`<pre class="observation-text">${asDomText(record.observation)}</pre>`);
      }
      if (record.answer !== undefined) expect(html).toContain(`<pre class="answer-text">${asDomText(record.answer)}</pre>`);
    }
    expect(observations).toBeGreaterThan(20);
    expect(records.filter((record) => record.question !== undefined).length).toBe(new Set(records.map((record) => record.runId)).size);
    expect(records.filter((record) => record.answer !== undefined).length).toBe(new Set(records.map((record) => record.runId)).size);
    // Distinct labels the demo's faults produce, and the no-script filter and picker.
    // The createAgent demo's timeout carries its typed call outcome. The classic path does not yet
    // pass typed outcomes to its audit records (its timeouts read "tool error": issue 20, typed outcomes),
    // so on the 0.3 line, with classic runs only, this label is not asserted.
    if (LINE_1) expect(dom).toContain('<span class="badge timeout">timeout</span>');
    else expect(dom).toContain('<span class="badge error">tool error</span>');
    expect(dom).toContain('<nav class="picker"');
    expect(dom).toMatch(/<input class="filter" type="radio" name="outcome" id="show-stopped">/);
    expect(dom).not.toMatch(/<script|<svg/i);
  });

  it("renders a screenshot into the artifacts directory", () => {
    const screenshot = path.join(ARTIFACTS_DIR, "demo-run.png");
    rmSync(screenshot, { force: true });
    const { status } = chromium(["--hide-scrollbars", "--window-size=1280,2400", `--screenshot=${screenshot}`, pathToFileURL(pagePath).href]);
    expect(status).toBe(0);
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
    expect(readFileSync(screenshot).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  }, 180_000);
});
