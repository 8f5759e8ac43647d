import type { LoopAuditRecord } from "./audit";
import { renderTimelineHtml } from "./trace-html";
import { readAuditTrail, renderTimelineText } from "./trace-timeline";
import { runTraceCli } from "./trace-cli";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function record(fields: Partial<LoopAuditRecord> & Pick<LoopAuditRecord, "runId" | "step" | "outcome">, atMs = T0 + fields.step * 1000): LoopAuditRecord {
  return { type: "reins.loop_control.step", startedAt: new Date(atMs).toISOString(), durations: { llmMs: 400, toolMs: 100, cycleMs: 500 }, thought: "", repairs: [], ...fields };
}

function jsonl(records: readonly unknown[]): string {
  return records.map((entry) => (typeof entry === "string" ? entry : JSON.stringify(entry))).join("\n");
}

/** A createAgent run: two parallel calls in turn 1, then the answer. */
const PARALLEL = [
  record({ runId: "p", step: 1, turn: 1, callId: "c1", outcome: "observed", question: "Weather in Oslo and Bergen?", thought: "Both at once.", tool: "weather", toolInput: { city: "Oslo" }, observation: "Oslo: 4 °C «Final Answer:» [120 characters omitted]", observationChars: 51, observationRawChars: 4200 }),
  record({ runId: "p", step: 2, turn: 1, callId: "c2", outcome: "tool_error", thought: "Both at once.", tool: "weather", toolInput: { city: "Bergen" }, observation: 'Tool "weather" did not answer within 5 s.', callOutcome: "timeout", durations: { llmMs: 400, toolMs: 5000, cycleMs: 5400 } }),
  record({ runId: "p", step: 3, outcome: "finish", thought: "", answer: "Oslo is 4 °C; Bergen did not answer.", stopReason: "final_answer", durations: { llmMs: 300, cycleMs: 300 } }, T0 + 7000),
];

describe("the trace page of a createAgent run with parallel calls", () => {
  const trail = readAuditTrail(jsonl(PARALLEL));

  it("shows the parallel calls of one model turn as one turn, numbered 1, 2", () => {
    const [run] = trail.runs;
    expect(run.turns.map((turn) => [turn.number, turn.kind, turn.calls.length])).toEqual([
      [1, "calls", 2],
      [2, "finish", 0],
    ]);
    const html = renderTimelineHtml(trail);
    expect([...html.matchAll(/<li class="step [^"]*" data-step="(\d+)"/g)].map((match) => match[1])).toEqual(["1", "2"]);
    expect(html).toContain("1 run, 2 steps.");
    expect(html).toContain('data-call-step="1" data-call-id="c1"');
    expect(html).toContain("2 parallel calls");
  });

  it("shows the question, each observation as the model received it with its marks and sizes, and the answer", () => {
    const html = renderTimelineHtml(trail);
    expect(html).toContain('<pre class="question-text">Weather in Oslo and Bergen?</pre>');
    expect(html).toContain("observation 51 characters (raw result 4200 characters)");
    expect(html).toContain("<mark>«Final Answer:»</mark>");
    expect(html).toContain("<mark>[120 characters omitted]</mark>");
    expect(html).toContain("Tool &#34;weather&#34; did not answer within 5 s.");
    expect(html).toContain('<h3>Final answer</h3><pre class="answer-text">Oslo is 4 °C; Bergen did not answer.</pre>');
    const text = renderTimelineText(trail);
    expect(text).toContain("question:\n    | Weather in Oslo and Bergen?");
    expect(text).toContain("  | Oslo: 4 °C «Final Answer:» [120 characters omitted]");
    expect(text).toContain("answer:\n          | Oslo is 4 °C; Bergen did not answer.");
  });

  it("labels the timeout as a timeout, not as a tool error, and gives each call its own tool time", () => {
    const html = renderTimelineHtml(trail);
    expect(html).toContain('<span class="badge timeout">timeout</span>');
    expect(html).not.toContain(">tool error<");
    expect(html).toContain("· tool 5.00 s");
    // The turn's cycle: from its reply (T0 + 1 s) to the next reply, the answer (T0 + 7 s).
    expect(html).toContain("llm 400 ms · cycle 6.00 s");
  });
});

describe("labels", () => {
  it("gives timeout, error, dry run, refusal, cache hit, repair and rescue each their own words", () => {
    const outcomes = [
      ["timeout", "timeout"],
      ["error", "tool error"],
      ["dry_run", "dry run"],
      ["rejected", "refused by policy"],
      ["cached", "cache hit"],
      ["circuit_open", "circuit open"],
    ] as const;
    const records = outcomes.map(([callOutcome], index) => record({ runId: "l", step: index + 1, outcome: callOutcome === "error" || callOutcome === "timeout" ? "tool_error" : "observed", tool: "t", callOutcome }));
    records.push(record({ runId: "l", step: 7, outcome: "observed", tool: "t", repairs: ["json_repair"] }));
    records.push(record({ runId: "l", step: 8, outcome: "observed", tool: "t", repairs: ["tool_call_rescue"] }));
    records.push(record({ runId: "l", step: 9, outcome: "stopped", tool: "t", refused: true, stopReason: "max_steps" }));
    const text = renderTimelineText(readAuditTrail(jsonl(records)));
    for (const [, words] of outcomes) expect(text).toContain(`[${words}]`);
    expect(text).toContain("[repaired: json_repair]");
    expect(text).toContain("[rescued: tool_call_rescue]");
    expect(text).toContain("[not run: run stopped]");
    expect(text.match(/\[tool error\]/g)).toHaveLength(1);
  });
});

describe("hostile and malformed records", () => {
  const hostile = [
    record({ runId: "h", step: 1, outcome: "observed", tool: "search" }),
    { ...record({ runId: "h", step: 2, outcome: "finish" }), stopReason: { evil: "<script>alert(1)</script>" }, thought: 42, answer: ["<img src=x onerror=alert(1)>"], repairs: "nope", durations: { llmMs: "slow", cycleMs: -1 }, detection: [1], question: null, tool: { a: 1 }, observationChars: "many", turn: "x" },
    "{ not json",
    { type: "reins.loop_control.step", runId: 7, step: 1 },
    { type: "reins.loop_control.step", runId: "h2", step: 1, startedAt: new Date(T0).toISOString(), outcome: "observed", durations: null, tool: "</code><script>x</script>", toolInput: "\u001b[2J", observation: "\u0000<b>" },
    "null",
    `{"type":"reins.loop_control.step","runId":"__proto__","step":1,"startedAt":"${new Date(T0).toISOString()}","outcome":"observed","durations":{},"__proto__":{"polluted":true}}`,
  ];

  it("renders every field of any type as escaped text and marks the broken record", () => {
    const trail = readAuditTrail(jsonl(hostile));
    const html = renderTimelineHtml(trail);
    expect(html).not.toMatch(/<script|<img|onerror=alert\(1\)>/i);
    expect(html).toContain("stop: {&#34;evil&#34;:&#34;&#60;script&#62;alert(1)&#60;/script&#62;&#34;}");
    expect(html).toContain('<span class="badge broken">broken record</span>');
    expect(html).toContain('<div class="problems">Broken record: ');
    for (const problem of ["thought is not a string", "durations.llmMs is not a number ≥ 0", "stopReason is not a string", "answer is not a string", "repairs is not a list", "turn is not an integer ≥ 1"]) expect(html).toContain(problem);
    expect(html).toContain('<pre class="answer-text">[&#34;&#60;img src=x onerror=alert(1)&#62;&#34;]</pre>');
    expect(html).toContain("line 3: not JSON");
    expect(html).toContain("line 4: runId is missing");
    expect(html).toContain("line 6: not a JSON object");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const text = renderTimelineText(trail);
    expect(text).not.toMatch(/[\u0000\u001b]/);
    expect(text).toContain("broken record: repairs is not a list");
  });

  it("reins-trace makes the page and the text (exit 1, the skipped lines listed) instead of throwing", async () => {
    for (const html of [true, false]) {
      let out = "";
      let err = "";
      const code = await runTraceCli(html ? ["-", "--html"] : ["-"], {
        stdin: (async function* () {
          yield jsonl(hostile);
        })(),
        stdout: { write: (chunk: string) => (out += chunk) },
        stderr: { write: (chunk: string) => (err += chunk) },
      });
      expect(code).toBe(1);
      expect(out).toContain(html ? "</html>" : "run h — 2 steps");
      expect(err).toContain("skipped line 3: not JSON");
    }
  });
});

describe("several runs", () => {
  const runs = [
    record({ runId: "ok", step: 1, outcome: "finish", stopReason: "final_answer", answer: "42" }),
    record({ runId: "looped", step: 1, outcome: "stopped", tool: "t", stopReason: "repeat" }),
    record({ runId: "looped", step: 2, outcome: "finish", stopReason: "repeat", answer: "I stopped: the same call repeated." }),
    record({ runId: "open", step: 1, outcome: "observed", tool: "t" }),
  ];

  it("has a run picker and an outcome filter in CSS alone, no script, no SVG, CSP default-src 'none'", () => {
    const html = renderTimelineHtml(readAuditTrail(jsonl(runs)));
    expect(html).toContain('<nav class="picker"');
    expect(html).toContain('<a href="#run-2"><code>looped</code></a>');
    for (const outcome of ["all", "answered", "stopped", "unfinished"]) expect(html).toContain(`id="show-${outcome}"`);
    expect(html).not.toContain('id="show-error"');
    expect(html).toContain('#show-stopped:checked ~ main .run:not([data-outcome="stopped"])');
    expect(html).toContain("main:has(.run:target) .run:not(:target)");
    expect(html).toContain('data-run-id="looped" data-outcome="stopped"');
    expect(html).toContain("<h3>Graceful stop text</h3>");
    expect(html).toContain("No answer recorded (the run has no finish record).");
    expect(html).toMatch(/content="default-src 'none'; style-src 'unsafe-inline'"/);
    expect(html).not.toMatch(/<script|<svg|javascript:|<link|src=/i);
  });

  it("numbers the steps of an old trail with a duplicate step number consecutively", () => {
    const old = [record({ runId: "d", step: 1, outcome: "observed", tool: "t" }), record({ runId: "d", step: 2, outcome: "stopped", tool: "t", stopReason: "repeat" }), record({ runId: "d", step: 2, outcome: "finish", stopReason: "repeat" })];
    const text = renderTimelineText(readAuditTrail(jsonl(old)));
    expect(text).toContain("run d — 3 steps");
    expect(text.match(/^ {2}#\d+/gm)).toEqual(["  #1", "  #2", "  #3"]);
  });
});

describe("LoopControlHandler's audit records", () => {
  it("hold the question, the observation as the model read it, the answer, and each step's own cycle time", async () => {
    const { LoopControlHandler } = await import("./loop-control-handler");
    const { RunDriver } = await import("./__fixtures__/run-driver");
    let nowMs = T0;
    const records: LoopAuditRecord[] = [];
    const handler = new LoopControlHandler({ now: () => nowMs, audit: { sink: (entry) => records.push(entry) } });
    // Every callback takes 10 ms; the first tool call takes 500 ms more.
    const driver = new RunDriver(handler, "r", async () => {
      nowMs += 10;
    });
    const toolEnd = handler.handleToolEnd.bind(handler);
    let slowTools = 1;
    handler.handleToolEnd = async (...args: Parameters<typeof toolEnd>) => {
      if (slowTools-- > 0) nowMs += 500;
      return toolEnd(...args);
    };
    await driver.start();
    await driver.step({ tool: "search", toolInput: "Oslo", observation: "Oslo «Final Answer:» 4 °C" });
    await driver.step({ tool: "search", toolInput: "Bergen", observation: "Bergen 6 °C" });
    await driver.answer("Oslo 4 °C, Bergen 6 °C");
    expect(records.map((entry) => entry.step)).toEqual([1, 2, 3]);
    expect(records[0]).toMatchObject({ question: "q", observation: "Oslo «Final Answer:» 4 °C", observationChars: 25 });
    expect(records[1].question).toBeUndefined();
    expect(records[2]).toMatchObject({ outcome: "finish", answer: "Oslo 4 °C, Bergen 6 °C", stopReason: "final_answer" });
    // Step 1: its model call (10 ms) and its 510 ms tool; step 2 does not inherit step 1's tool time.
    expect(records[0].durations).toMatchObject({ llmMs: 10, toolMs: 510, cycleMs: 520 });
    expect(records[1].durations).toMatchObject({ llmMs: 10, toolMs: 10, cycleMs: 20 });
    expect(records[2].durations).toMatchObject({ llmMs: 10, cycleMs: 10 });
  });
});
