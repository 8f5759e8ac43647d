import type { LoopAuditRecord } from "./audit";
import { renderTimelineHtml } from "./trace-html";
import { readAuditTrail, renderTimelineText } from "./trace-timeline";

function record(fields: Partial<LoopAuditRecord> & Pick<LoopAuditRecord, "runId" | "step" | "outcome">): LoopAuditRecord {
  return {
    type: "reins.loop_control.step",
    startedAt: new Date(Date.UTC(2026, 0, 1, 12, 0, fields.step)).toISOString(),
    durations: { llmMs: 400, toolMs: 100, cycleMs: 900 },
    thought: `thought ${fields.step}`,
    repairs: [],
    ...fields,
  };
}

const RUN_A = [
  record({ runId: "a", step: 1, outcome: "observed", tool: "search", toolInput: "Oslo", repairs: ["label_markdown"], observationChars: 42 }),
  record({ runId: "a", step: 2, outcome: "warned", tool: "search", toolInput: "Oslo", detection: { kind: "repeat", level: "warn", count: 2 } }),
  record({ runId: "a", step: 3, outcome: "stopped", tool: "search", toolInput: "Oslo", detection: { kind: "repeat", level: "stop", count: 3 }, stopReason: "repeat" }),
];
const RUN_B = [
  record({ runId: "b", step: 2, outcome: "finish", thought: "done", durations: { cycleMs: 10 }, stopReason: "final_answer" }),
  record({ runId: "b", step: 1, outcome: "tool_error", tool: "parcel", toolInput: { id: "ZX-1" } }),
];

function jsonl(records: readonly unknown[]): string {
  return records.map((entry) => JSON.stringify(entry)).join("\n");
}

describe("readAuditTrail", () => {
  describe("with interleaved runs", () => {
    it("groups steps by run in first-seen order, sorts them by step and finds each stop reason", () => {
      const trail = readAuditTrail(jsonl([RUN_A[0], RUN_B[0], RUN_A[1], RUN_B[1], RUN_A[2]]));
      expect(trail.runs.map((run) => run.runId)).toEqual(["a", "b"]);
      expect(trail.runs[1].steps.map((step) => step.step)).toEqual([1, 2]);
      expect(trail.runs.map((run) => run.stopReason)).toEqual(["repeat", "final_answer"]);
      // From step 1's model call (12:00:01 less 400 ms) to the end of step 3 (12:00:03 + 100 ms of tool time).
      expect(trail.runs[0].durationMs).toBe(2_500);
      expect(trail.skipped).toEqual([]);
    });
  });

  describe("with lines that are not audit records", () => {
    it("lists each with its line number and reason and still reads the rest", () => {
      const text = [JSON.stringify(RUN_A[0]), "not json", "", JSON.stringify({ type: "tool_call" }), JSON.stringify({ ...RUN_A[1], outcome: "exploded" }), "[1]"].join("\n");
      const trail = readAuditTrail(text);
      expect(trail.runs).toHaveLength(1);
      expect(trail.skipped).toEqual([
        { line: 2, reason: "not JSON", preview: "not json" },
        { line: 4, reason: 'type is "tool_call", not "reins.loop_control.step"', preview: '{"type":"tool_call"}' },
        { line: 5, reason: expect.stringContaining('outcome "exploded" is not one of'), preview: expect.stringMatching(/…$/) },
        { line: 6, reason: "not a JSON object", preview: "[1]" },
      ]);
    });
  });
});

describe("renderTimelineText", () => {
  it("shows every step with its action, outcome, timings, repairs, warnings and the stop", () => {
    const text = renderTimelineText(readAuditTrail(jsonl([...RUN_A, ...RUN_B])));
    expect(text).toContain("run a — 3 steps, 2.50 s, stop: repeat");
    expect(text).toMatch(/#1 +\+0\.00s {2}search\("Oslo"\) {2}→ observed {2}\(llm 400 ms, tool 100 ms, cycle 1\.00 s\)/);
    expect(text).toContain("[repaired: label_markdown]");
    expect(text).toContain("[loop warning: repeat ×2]");
    expect(text).toContain("[not run: run stopped] [loop stop: repeat ×3]");
    expect(text).toContain("■ stop: repeat");
    expect(text).toContain('parcel({"id":"ZX-1"})  → tool error');
    expect(text).toContain("final answer  → finished");
    expect(text).toContain("observation 42 characters (text not recorded)");
  });

  it("lets no terminal escape sequence from a thought or tool input through", () => {
    const hostile = record({ runId: "x", step: 1, outcome: "observed", tool: "search", toolInput: "\u001b[2J", thought: "clear \u001b]0;pwned\u0007 screen" });
    const text = renderTimelineText(readAuditTrail(JSON.stringify(hostile)));
    expect(text).not.toMatch(/[\u001b\u0007]/);
    expect(text).toContain("\\u001b]0;pwned\\u0007");
  });

  it("cuts a long thought with a marker saying how much was left out", () => {
    const long = record({ runId: "x", step: 1, outcome: "observed", tool: "search", thought: "a".repeat(300) });
    expect(renderTimelineText(readAuditTrail(JSON.stringify(long)))).toContain("… [60 more characters]");
  });

  it("says so when there is nothing to show, and names skipped lines", () => {
    expect(renderTimelineText(readAuditTrail("oops\n"))).toBe("No audit records found.\n\nskipped line 1: not JSON\n");
  });
});

describe("renderTimelineHtml", () => {
  it("renders one <li data-step> per step in a section per run, with no script", () => {
    const html = renderTimelineHtml(readAuditTrail(jsonl([...RUN_A, ...RUN_B])), "Demo");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html.match(/<li class="step /g)).toHaveLength(5);
    expect(html).toContain('<section class="run" id="run-1" data-run-id="a" data-outcome="stopped">');
    expect(html).toContain("<title>Demo</title>");
    expect(html).not.toMatch(/<script|<link|src=/i);
  });

  it("escapes every value from the model or a tool", () => {
    const hostile = record({ runId: '"><img onerror=x>', step: 1, outcome: "observed", tool: "search", toolInput: "</code><script>alert(1)</script>", thought: "<b>bold</b> & co" });
    const html = renderTimelineHtml(readAuditTrail(JSON.stringify(hostile)));
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).toContain("&#60;b&#62;bold&#60;/b&#62; &#38; co");
  });
});
