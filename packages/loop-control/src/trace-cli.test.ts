import { Readable } from "node:stream";
import type { LoopAuditRecord } from "./audit";
import { runTraceCli } from "./trace-cli";

const STEP: LoopAuditRecord = {
  type: "reins.loop_control.step",
  runId: "run-1",
  step: 1,
  startedAt: "2026-01-01T12:00:00.000Z",
  durations: { llmMs: 10, cycleMs: 10 },
  thought: "done",
  repairs: [],
  outcome: "finish",
  stopReason: "final_answer",
};

function io(stdin = "", files: Record<string, string> = {}) {
  let out = "";
  let err = "";
  return {
    io: {
      stdin: Readable.from([stdin]),
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: (text: string) => (err += text) },
      readFile: async (path: string) => {
        if (!(path in files)) throw new Error(`ENOENT: no such file, open '${path}'`);
        return files[path];
      },
    },
    out: () => out,
    err: () => err,
  };
}

describe("runTraceCli", () => {
  describe("with a file", () => {
    it("prints the text timeline and exits 0", async () => {
      const streams = io("", { "audit.jsonl": JSON.stringify(STEP) });
      expect(await runTraceCli(["audit.jsonl"], streams.io)).toBe(0);
      expect(streams.out()).toContain("run run-1 — 1 step");
      expect(streams.err()).toBe("");
    });

    it("prints one HTML page with --html and the given --title", async () => {
      const streams = io("", { "audit.jsonl": JSON.stringify(STEP) });
      expect(await runTraceCli(["audit.jsonl", "--html", "--title", "Night run"], streams.io)).toBe(0);
      expect(streams.out()).toMatch(/^<!doctype html>/);
      expect(streams.out()).toContain("<title>Night run</title>");
    });

    it("names the file it cannot read and exits 2", async () => {
      const streams = io();
      expect(await runTraceCli(["missing.jsonl"], streams.io)).toBe(2);
      expect(streams.err()).toContain("reins-trace: cannot read missing.jsonl: ENOENT");
    });
  });

  describe("with stdin", () => {
    it("reads it when the file is - and renders the rest when some lines are bad, exiting 1", async () => {
      const streams = io(`${JSON.stringify(STEP)}\n{bad\n`);
      expect(await runTraceCli(["-"], streams.io)).toBe(1);
      expect(streams.out()).toContain("run run-1");
      expect(streams.err()).toBe("reins-trace: skipped line 2: not JSON\n");
    });

    it("exits 2 with the reason when no line is an audit record", async () => {
      const streams = io('{"type":"tool_call"}\n');
      expect(await runTraceCli([], streams.io)).toBe(2);
      expect(streams.err()).toContain('no audit record (type "reins.loop_control.step") in stdin; 1 line(s) skipped, first: line 1: type is "tool_call"');
    });
  });

  describe("with --run", () => {
    it("keeps only that run, and lists the runs there are when it is not found", async () => {
      const other = { ...STEP, runId: "run-2" };
      const text = `${JSON.stringify(STEP)}\n${JSON.stringify(other)}\n`;
      const found = io(text);
      expect(await runTraceCli(["--run", "run-2"], found.io)).toBe(0);
      expect(found.out()).toContain("run run-2");
      expect(found.out()).not.toContain("run run-1");
      const missing = io(text);
      expect(await runTraceCli(["--run", "run-9"], missing.io)).toBe(2);
      expect(missing.err()).toBe("reins-trace: no run run-9 in the trail. Runs: run-1, run-2\n");
    });
  });

  describe("with bad usage", () => {
    it.each([[["--bogus"], "unknown option --bogus"], [["--run"], "--run needs a value"], [["a", "b"], "one input file only (got a and b)"]])(
      "explains %j and exits 2",
      async (argv, message) => {
        const streams = io();
        expect(await runTraceCli(argv, streams.io)).toBe(2);
        expect(streams.err()).toContain(`reins-trace: ${message}`);
        expect(streams.err()).toContain("Usage: reins-trace");
      },
    );
  });
});
