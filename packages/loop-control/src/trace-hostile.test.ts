import { Readable } from "node:stream";
import type { LoopAuditRecord } from "./audit";
import { runTraceCli } from "./trace-cli";
import { AuditFollower } from "./trace-follow";
import { renderTimelineHtml } from "./trace-html";
import { MAX_VALUE_DEPTH, readAuditTrail } from "./trace-read";
import { renderTimelineText } from "./trace-timeline";

const STEP: LoopAuditRecord = {
  type: "reins.loop_control.step",
  runId: "run-1",
  step: 1,
  startedAt: "2026-01-01T12:00:00.000Z",
  durations: { llmMs: 10, cycleMs: 10 },
  thought: "looking",
  tool: "search",
  toolInput: "x",
  repairs: [],
  outcome: "observed",
};

function cliIo(files: Record<string, string>) {
  let out = "";
  let err = "";
  return {
    io: {
      stdin: Readable.from([""]),
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: (text: string) => (err += text) },
      readFile: async (path: string) => files[path],
    },
    out: () => out,
    err: () => err,
  };
}

const arrays = (depth: number): string => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const objects = (depth: number): string => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const mixed = (depth: number): string => `${'[{"a":'.repeat(depth)}1${"}]".repeat(depth)}`;

/** A record line with `json` (raw JSON text) as the value of `field`. */
const recordWith = (field: string, json: string, extra: Partial<LoopAuditRecord> = {}): string => {
  const base = JSON.stringify({ ...STEP, ...extra, [field]: "__HOLE__" });
  return base.replace('"__HOLE__"', json);
};

// Every field a record can carry, each holding one 10 KB+ line of nesting of each shape.
const FIELDS = ["toolInput", "thought", "question", "observation", "answer", "callOutcome", "detection", "durations", "repairs"] as const;
const NESTINGS = [
  ["arrays", arrays(6_000)],
  ["objects", objects(2_500)],
  ["arrays of objects", mixed(1_500)],
] as const;
const NESTED_RECORDS = FIELDS.flatMap((field) => NESTINGS.map(([shape, json]) => [`${field} holding ${shape}`, recordWith(field, json)] as const));

const finishRecord = (step: number): string => JSON.stringify({ ...STEP, step, tool: undefined, toolInput: undefined, outcome: "finish", stopReason: "final_answer", answer: "done" });

describe("reins-trace on hostile records", () => {
  describe("one 10 KB line of nesting in any field", () => {
    it.each(NESTED_RECORDS)("renders %s as text and HTML, and follows it", async (_what, line) => {
      expect(line.length).toBeGreaterThanOrEqual(10_000);
      for (const args of [["a.jsonl"], ["--html", "a.jsonl"]]) {
        const streams = cliIo({ "a.jsonl": `${line}\n${finishRecord(2)}` });
        const code = await runTraceCli(args, streams.io);
        // 0, or 1 when the field had the wrong type (listed on stderr): never a thrown RangeError, always a page.
        expect([0, 1]).toContain(code);
        expect(streams.out()).toContain("run-1");
      }
      const follower = new AuditFollower();
      expect(follower.push(`${line}\n`).out).toContain("run-1");
    });

    it("marks the cut where nesting goes deeper than the bound", async () => {
      const streams = cliIo({ "a.jsonl": recordWith("toolInput", arrays(10_000)) });
      expect(await runTraceCli(["a.jsonl"], streams.io)).toBe(0);
      expect(streams.out()).toContain("deeper levels cut");
      expect(streams.out()).toContain("[".repeat(MAX_VALUE_DEPTH));
    });
  });

  describe("a turn of 200 000 records, and a field of 200 000 lines", () => {
    const calls = Array.from({ length: 200_000 }, (_, index) => JSON.stringify({ ...STEP, step: index + 1, turn: 1, callId: `c${index}` }));
    const longObservation = JSON.stringify({ ...STEP, observation: "line\n".repeat(200_000) });

    it("renders one turn of 200 000 calls as text and HTML (no argument spread of a turn's calls)", () => {
      const trail = readAuditTrail(`${calls.join("\n")}\n${finishRecord(200_001)}`);
      expect(trail.runs[0].turns[0].calls).toHaveLength(200_000);
      expect(renderTimelineText(trail).split("\n").length).toBeGreaterThan(200_000);
      expect(renderTimelineHtml(trail)).toContain("run-1");
    });

    it("renders an observation of 200 000 lines as text and HTML", async () => {
      for (const args of [["a.jsonl"], ["--html", "a.jsonl"]]) {
        const streams = cliIo({ "a.jsonl": `${longObservation}\n${finishRecord(2)}` });
        expect(await runTraceCli(args, streams.io)).toBe(0);
        expect(streams.out()).toContain("run-1");
      }
    });

    it("follows the long observation", () => {
      const follower = new AuditFollower();
      const output = follower.push(`${longObservation}\n`);
      expect(output.out).toContain("run-1");
      expect(output.err).toBe("");
    });
  });
});
