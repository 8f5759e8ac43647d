import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import type { LoopAuditRecord } from "./audit";
import { FOLLOW_POLL_MS, runTraceCli } from "./trace-cli";
import { AuditFollower } from "./trace-follow";

const T0 = Date.parse("2026-01-01T12:00:00.000Z");

function record(step: number, atMs: number, extra: Partial<LoopAuditRecord> = {}): LoopAuditRecord {
  return {
    type: "reins.loop_control.step",
    runId: "run-1",
    step,
    startedAt: new Date(atMs).toISOString(),
    durations: { llmMs: 100, toolMs: 1000, cycleMs: 100 },
    thought: `step ${step}`,
    tool: "stock_quote",
    toolInput: "ACME",
    repairs: [],
    outcome: "observed",
    ...extra,
  };
}
const line = (value: LoopAuditRecord): string => `${JSON.stringify(value)}\n`;

describe("AuditFollower", () => {
  it("prints each step once its line is complete, and a progress line per interval while the run's next step runs", () => {
    const follower = new AuditFollower({ progressEveryMs: 5000 });
    const first = line(record(1, T0));
    // Half a line is held back until its newline arrives.
    expect(follower.push(first.slice(0, 40))).toEqual({ out: "", err: "" });
    const shown = follower.push(first.slice(40));
    expect(shown.out).toContain("run run-1 (following)");
    expect(shown.out).toContain('#1     +0.00s  stock_quote("ACME")  → observed');
    // Step 1 ended at T0 + 1 s (its tool time): nothing before one interval, then one line per interval.
    expect(follower.progress(T0 + 1000 + 4999)).toBe("");
    expect(follower.progress(T0 + 1000 + 5000)).toBe("  … run run-1 step 2 running 5 s (its model call or tool call; a step is recorded when its tool ends)\n");
    expect(follower.progress(T0 + 1000 + 7000)).toBe("");
    expect(follower.progress(T0 + 1000 + 12_300)).toContain("step 2 running 12 s");
    // The finish ends the run: no progress line after it.
    const last = follower.push(line(record(2, T0 + 14_000, { outcome: "finish", tool: undefined, toolInput: undefined, durations: { llmMs: 50 }, stopReason: "final_answer" })));
    expect(last.out).toContain("#2    +14.00s  final answer  → finished");
    expect(last.out).toContain("■ stop: final_answer");
    expect(last.out).not.toContain("(following)");
    expect(follower.progress(T0 + 60_000)).toBe("");
  });

  it("lists a line that is not a record with its line number, and reads a last line without a newline at the end", () => {
    const follower = new AuditFollower();
    const output = follower.push(`not json\n${line(record(1, T0))}`);
    expect(output.err).toBe("reins-trace: skipped line 1: not JSON\n");
    expect(follower.skipped).toBe(1);
    follower.push(JSON.stringify(record(2, T0 + 2000)));
    expect(follower.end().out).toContain("#2");
  });

  it("follows one run only with runId", () => {
    const follower = new AuditFollower({ runId: "run-2" });
    expect(follower.push(line(record(1, T0))).out).toBe("");
    expect(follower.push(line({ ...record(1, T0), runId: "run-2" })).out).toContain("run run-2 (following)");
  });
});

describe("reins-trace --follow", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "reins-trace-follow-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("tails a file that is written, then appended to, printing steps as they arrive and progress in between", async () => {
    const file = path.join(dir, "audit.jsonl");
    writeFileSync(file, line(record(1, T0)));
    let out = "";
    let err = "";
    let clock = T0 + 1000;
    let polls = 0;
    const stop = new AbortController();
    const seenAtPoll: string[] = [];
    const code = await runTraceCli(["--follow", file], {
      stdin: Readable.from([]),
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: (text: string) => (err += text) },
      now: () => clock,
      signal: stop.signal,
      sleep: async (ms) => {
        expect(ms).toBe(FOLLOW_POLL_MS);
        polls += 1;
        seenAtPoll.push(out);
        clock += 3000;
        // Poll 3: the step-2 record is half written; poll 4: the rest, with the finish.
        if (polls === 3) appendFileSync(file, line(record(2, T0 + 9000)).slice(0, 25));
        if (polls === 4) appendFileSync(file, `${line(record(2, T0 + 9000)).slice(25)}${line(record(3, T0 + 12_000, { outcome: "finish", tool: undefined, toolInput: undefined, durations: {}, stopReason: "final_answer" }))}`);
        if (polls === 6) stop.abort();
      },
    });
    expect(code).toBe(0);
    expect(err).toBe("");
    // Poll 1 read step 1 only.
    expect(seenAtPoll[0]).toContain("#1 ");
    expect(seenAtPoll[0]).not.toContain("running");
    // Poll 3 (clock T0 + 7 s, 6 s after step 1 ended) printed a progress line, not the half line.
    expect(seenAtPoll[2]).toContain("… run run-1 step 2 running 6 s");
    expect(seenAtPoll[2]).not.toContain("#2 ");
    expect(seenAtPoll[3]).not.toContain("#2 ");
    // Poll 5 read the completed step 2 and the finish; nothing more runs after it.
    expect(seenAtPoll[4]).toContain("#2 ");
    expect(seenAtPoll[4]).toContain("■ stop: final_answer");
    expect(out.match(/running/g)).toHaveLength(1);
    expect(out.endsWith("        ■ stop: final_answer\n")).toBe(true);
  });

  it("waits for a file that does not exist yet, once said", async () => {
    const file = path.join(dir, "later.jsonl");
    let out = "";
    let err = "";
    let polls = 0;
    const stop = new AbortController();
    const code = await runTraceCli(["--follow", file], {
      stdin: Readable.from([]),
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: (text: string) => (err += text) },
      now: () => T0,
      signal: stop.signal,
      sleep: async () => {
        polls += 1;
        if (polls === 2) writeFileSync(file, line(record(1, T0)));
        if (polls === 3) stop.abort();
      },
    });
    expect(code).toBe(0);
    expect(err).toBe(`reins-trace: waiting for ${file} to appear\n`);
    expect(out).toContain("#1 ");
  });

  it("rejects --follow without a file or with --html", async () => {
    let err = "";
    const streams = { stdin: Readable.from([]), stdout: { write: () => true }, stderr: { write: (text: string) => (err += text) } };
    expect(await runTraceCli(["--follow"], streams)).toBe(2);
    expect(err).toContain("--follow needs a FILE");
    expect(await runTraceCli(["--follow", "a.jsonl", "--html"], streams)).toBe(2);
    expect(err).toContain("--follow prints text");
  });

  it("stops on its signal with the real timer: no timer is left running", async () => {
    const file = path.join(dir, "audit.jsonl");
    writeFileSync(file, line(record(1, T0)));
    const stop = new AbortController();
    let out = "";
    const done = runTraceCli(["--follow", file], { stdin: Readable.from([]), stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true }, signal: stop.signal });
    // Abort as soon as the first read printed, inside the real sleep.
    while (out === "") await new Promise((resolve) => setImmediate(resolve));
    stop.abort();
    expect(await done).toBe(0);
    expect(out).toContain("#1 ");
  });
});
