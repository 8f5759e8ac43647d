/**
 * The audit trail as one self-contained HTML page: inline CSS, no script, no inline SVG, nothing
 * loaded (CSP `default-src 'none'`). A run picker (links to each run, `:target` shows the one
 * picked) and a filter by outcome (radio inputs and CSS) work without JavaScript. Every value is
 * HTML-escaped.
 */
import { AUDIT_RECORD_TYPE, type AuditRun, type AuditTrail, type TraceCall, type TraceLabel, type TraceRunOutcome, type TraceTurn } from "./trace-read";
import { callText, duration, observationSize, seconds, turnActionText, turnOutcomeText, turnTimings } from "./trace-timeline";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The cleaner's and neutraliser's marks in an observation: cuts (`[N characters omitted]`,
 * `… N more`), neutralised labels and keys (`«…»`), neutralised tags (`‹`) and control lines
 * (`| ` at a line start). Highlighted, the text itself unchanged.
 */
const MARKS = /\[\d[\d,. ]* characters omitted\]|… \d[\d,. ]* more[^\n]{0,60}|«[^«»\n]{0,120}»|‹|^\| /gmu;

/** The text escaped, with the cleaner's and neutraliser's marks in `<mark>`. */
function withMarks(text: string): string {
  let html = "";
  let at = 0;
  for (const match of text.matchAll(MARKS)) {
    const index = match.index ?? 0;
    html += `${escapeHtml(text.slice(at, index))}<mark>${escapeHtml(match[0])}</mark>`;
    at = index + match[0].length;
  }
  return html + escapeHtml(text.slice(at));
}

const OUTCOME_FILTERS: ReadonlyArray<{ readonly outcome: TraceRunOutcome | "all"; readonly words: string }> = [
  { outcome: "all", words: "All runs" },
  { outcome: "answered", words: "Answered" },
  { outcome: "stopped", words: "Stopped" },
  { outcome: "error", words: "Error" },
  { outcome: "unfinished", words: "No end recorded" },
];

const FILTER_CSS = OUTCOME_FILTERS.filter((filter) => filter.outcome !== "all")
  .map(({ outcome }) => `#show-${outcome}:checked ~ main .run:not([data-outcome="${outcome}"]), #show-${outcome}:checked ~ nav.picker li:not([data-outcome="${outcome}"]) { display: none; }`)
  .join("\n");

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #1d2330; background: #fafbfc; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin: 0 0 .3rem; } h3 { font-size: .95rem; margin: .6rem 0 .2rem; }
.run-meta { color: #5b6475; margin: 0 0 .75rem; }
input.filter { position: absolute; opacity: 0; pointer-events: none; }
.filters label { display: inline-block; padding: .15rem .6rem; margin: 0 .3rem .3rem 0; border: 1px solid #c9d1de; border-radius: 4px; cursor: pointer; background: #fff; }
${OUTCOME_FILTERS.map(({ outcome }) => `#show-${outcome}:checked ~ .filters label[for="show-${outcome}"]`).join(", ")} { background: #2864c7; color: #fff; border-color: #2864c7; }
${OUTCOME_FILTERS.map(({ outcome }) => `#show-${outcome}:focus-visible ~ .filters label[for="show-${outcome}"]`).join(", ")} { outline: 2px solid #2864c7; }
${FILTER_CSS}
nav.picker ol { max-height: 18rem; overflow: auto; padding-left: 2rem; margin: .25rem 0 1rem; background: #fff; border: 1px solid #dde3ec; border-radius: 6px; }
main:has(.run:target) .run:not(:target) { display: none; }
.show-all-runs { display: none; } main:has(.run:target) .show-all-runs { display: block; margin-bottom: 1rem; }
section.run { margin-top: 1.5rem; padding-top: .5rem; border-top: 1px solid #dde3ec; }
ol.timeline { list-style: none; padding: 0; border-left: 3px solid #c9d1de; margin-left: .5rem; }
li.step { position: relative; margin: 0 0 .9rem 1rem; padding: .5rem .75rem; background: #fff; border: 1px solid #dde3ec; border-radius: 6px; }
li.step::before { content: ""; position: absolute; left: -1.45rem; top: .85rem; width: .7rem; height: .7rem; border-radius: 50%; background: #7a8aa6; }
li.outcome-observed::before { background: #2f9e5b; } li.outcome-finish::before { background: #2864c7; }
li.outcome-warned::before { background: #d99a00; } li.outcome-tool_error::before, li.outcome-parse_error::before { background: #d0463c; }
li.outcome-stopped::before { background: #7d2ac0; }
.head { font-weight: 600; } .offset { color: #5b6475; font-variant-numeric: tabular-nums; margin-right: .5rem; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 4px; font-size: 12px; margin-left: .4rem; background: #e8ecf3; font-weight: 500; }
.badge.warn, .badge.fallback, .badge.repair, .badge.rescue { background: #fff2cc; } .badge.stop, .badge.refused { background: #eadcf8; }
.badge.error, .badge.parse, .badge.circuit, .badge.invalid { background: #fbe0de; } .badge.timeout { background: #ffd8b8; }
.badge.cache { background: #dcefff; } .badge.dry-run { background: #e3f5e1; } .badge.broken { background: #a33; color: #fff; }
.thought { white-space: pre-wrap; color: #313a4c; margin: .3rem 0 0; }
.facts { color: #5b6475; font-size: 12px; margin-top: .25rem; }
.call { margin-top: .45rem; padding-left: .6rem; border-left: 2px solid #dde3ec; }
pre { white-space: pre-wrap; word-break: break-word; font: 12px/1.4 ui-monospace, monospace; background: #f4f6fa; padding: .4rem .5rem; margin: .25rem 0 0; border-radius: 4px; max-height: 32rem; overflow: auto; }
pre.answer-text { background: #eef4ff; } pre.question-text { background: #f1f1f1; }
mark { background: #ffe58a; }
summary { cursor: pointer; color: #3a4458; font-size: 12px; }
code { font: 12px ui-monospace, monospace; background: #f0f3f8; padding: 0 .25rem; border-radius: 3px; word-break: break-all; }
.skipped { color: #a33; } .problems { color: #a33; font-size: 12px; }
`;

function badges(labels: readonly TraceLabel[]): string {
  return labels.map((label) => `<span class="badge ${escapeHtml(label.kind)}">${escapeHtml(label.text)}</span>`).join("");
}

function observationHtml(call: TraceCall): string {
  const size = observationSize(call);
  if (call.observation === undefined) return size === undefined ? "" : `<div class="facts">${escapeHtml(size)} (text not recorded)</div>`;
  return `<details class="observation" open><summary>Observation as the model received it${size !== undefined ? ` · ${escapeHtml(size)}` : ""}</summary><pre class="observation-text">${withMarks(call.observation)}</pre></details>`;
}

function callHtml(call: TraceCall, alone: boolean): string {
  const tool = duration(call.toolMs);
  const head = alone ? "" : `<div class="call-head"><code>${escapeHtml(callText(call))}</code>${badges(call.labels)}${tool !== undefined ? `<span class="facts"> · tool ${escapeHtml(tool)}</span>` : ""}</div>`;
  return `<div class="call" data-call-step="${call.step}"${call.callId !== undefined ? ` data-call-id="${escapeHtml(call.callId)}"` : ""}>${head}${observationHtml(call)}</div>`;
}

function turnHtml(turn: TraceTurn, runStartMs: number): string {
  const offset = `+${((turn.startedAtMs - runStartMs) / 1000).toFixed(2)} s`;
  const alone = turn.calls.length === 1 ? turn.calls[0] : undefined;
  const action = turn.kind === "calls" && alone !== undefined ? `<code>${escapeHtml(callText(alone))}</code>` : escapeHtml(turnActionText(turn));
  const outcome = turn.calls.length > 1 ? "" : `<span class="badge">${escapeHtml(turnOutcomeText(turn))}</span>`;
  const labels = [...turn.labels, ...(alone?.labels ?? [])];
  const stop = turn.stopReason !== undefined ? `<span class="badge stop">stop: ${escapeHtml(turn.stopReason)}</span>` : "";
  const facts = turnTimings(turn);
  const graceful = turn.stopReason !== undefined && turn.stopReason !== "final_answer";
  return [
    `<li class="step outcome-${escapeHtml(turn.outcome)}" data-step="${turn.number}" data-outcome="${escapeHtml(turn.outcome)}">`,
    `<div class="head"><span class="offset">#${turn.number} ${escapeHtml(offset)}</span>${action}${outcome}${badges(labels)}${stop}</div>`,
    ...(turn.thought.trim() !== "" ? [`<p class="thought">${escapeHtml(turn.thought.trim())}</p>`] : []),
    ...(facts.length > 0 ? [`<div class="facts">${escapeHtml(facts.join(" · "))}</div>`] : []),
    ...(turn.problems.length > 0 ? [`<div class="problems">Broken record: ${escapeHtml(turn.problems.join("; "))}</div>`] : []),
    ...turn.calls.map((call) => callHtml(call, alone !== undefined)),
    ...(turn.answer !== undefined ? [`<h3>${graceful ? "Graceful stop text" : "Final answer"}</h3><pre class="answer-text">${escapeHtml(turn.answer)}</pre>`] : []),
    `</li>`,
  ].join("");
}

function runHtml(run: AuditRun, index: number): string {
  const steps = run.turns.length;
  const broken = run.brokenRecords > 0 ? ` · <span class="badge broken">${run.brokenRecords} broken record${run.brokenRecords === 1 ? "" : "s"}</span>` : "";
  return [
    `<section class="run" id="run-${index + 1}" data-run-id="${escapeHtml(run.runId)}" data-outcome="${run.outcome}">`,
    `<h2>Run <code>${escapeHtml(run.runId)}</code></h2>`,
    `<p class="run-meta">${steps} step${steps === 1 ? "" : "s"} · ${escapeHtml(seconds(run.durationMs) ?? "")} · started ${escapeHtml(new Date(run.startedAtMs).toISOString())} · stop: <strong class="stop-reason">${escapeHtml(run.stopReason ?? "not recorded")}</strong>${broken}</p>`,
    run.question !== undefined ? `<h3>Question</h3><pre class="question-text">${escapeHtml(run.question)}</pre>` : `<p class="run-meta">Question not recorded.</p>`,
    `<ol class="timeline">${run.turns.map((turn) => turnHtml(turn, run.startedAtMs)).join("\n")}</ol>`,
    ...(run.answer === undefined ? [`<p class="run-meta">No answer recorded${run.stopReason === undefined ? " (the run has no finish record)" : ""}.</p>`] : []),
    `</section>`,
  ].join("\n");
}

function pickerHtml(runs: readonly AuditRun[]): string {
  const items = runs.map(
    (run, index) =>
      `<li data-outcome="${run.outcome}"><a href="#run-${index + 1}"><code>${escapeHtml(run.runId.length > 40 ? `${run.runId.slice(0, 40)}…` : run.runId)}</code></a> · ${escapeHtml(run.stopReason ?? "not recorded")} · ${run.turns.length} step${run.turns.length === 1 ? "" : "s"}${run.question !== undefined ? ` · ${escapeHtml(run.question.length > 60 ? `${run.question.slice(0, 60)}…` : run.question)}` : ""}</li>`,
  );
  return `<nav class="picker" aria-label="Runs"><ol>${items.join("")}</ol></nav>`;
}

/**
 * The trail as one self-contained HTML page (inline CSS, no script, nothing loaded): an outcome
 * filter and a run picker, then a section per run (`data-run-id`, `data-outcome`) with its
 * question, its turns as a timeline (each an `<li class="step" data-step="N">`, N = 1, 2, …, with
 * its thought, calls, the observation as the model received it with the cleaner's marks
 * highlighted, labels, "llm / tool / cycle N s" timings and stop) and its answer; then the lines
 * that were not audit records. Every value is HTML-escaped.
 *
 * @param trail - from `readAuditTrail`
 * @param title - the page title
 * @returns the HTML document
 */
export function renderTimelineHtml(trail: AuditTrail, title = "Reins run trace"): string {
  const runs = trail.runs;
  const counts = new Map<string, number>([["all", runs.length]]);
  for (const run of runs) counts.set(run.outcome, (counts.get(run.outcome) ?? 0) + 1);
  const filters = OUTCOME_FILTERS.filter((filter) => filter.outcome === "all" || (counts.get(filter.outcome) ?? 0) > 0);
  const skipped =
    trail.skipped.length === 0
      ? ""
      : `<section class="skipped"><h2>Lines that are not ${escapeHtml(AUDIT_RECORD_TYPE)} records</h2><ul>${trail.skipped
          .map((line) => `<li>line ${line.line}: ${escapeHtml(line.reason)}${line.preview !== undefined ? ` <code>${escapeHtml(line.preview)}</code>` : ""}</li>`)
          .join("")}</ul></section>`;
  const steps = runs.reduce((sum, run) => sum + run.turns.length, 0);
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="run-meta">${runs.length} run${runs.length === 1 ? "" : "s"}, ${steps} step${steps === 1 ? "" : "s"}.</p>`,
    ...filters.map((filter) => `<input class="filter" type="radio" name="outcome" id="show-${filter.outcome}"${filter.outcome === "all" ? " checked" : ""}>`),
    `<div class="filters">Show: ${filters.map((filter) => `<label for="show-${filter.outcome}">${escapeHtml(filter.words)} (${counts.get(filter.outcome) ?? 0})</label>`).join("")}</div>`,
    ...(runs.length > 1 ? [pickerHtml(runs)] : []),
    "<main>",
    `<p class="show-all-runs"><a href="#">Show every run</a></p>`,
    ...(runs.length === 0 ? ["<p>No audit records found.</p>"] : runs.map(runHtml)),
    "</main>",
    skipped,
    "</body></html>",
    "",
  ].join("\n");
}
