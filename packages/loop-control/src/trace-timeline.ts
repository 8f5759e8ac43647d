/**
 * Reads a loop-control audit trail (JSONL, one {@link LoopAuditRecord} per line) and renders it for
 * a person: a plain-text timeline per run, or one self-contained HTML page. Used by `reins-trace`.
 *
 * Everything in a record may come from the model or a tool (thoughts, tool inputs): the text
 * renderer replaces control characters (no terminal escape sequences get through) and the HTML
 * renderer escapes every value; the page has no script and loads nothing.
 */
import type { LoopAuditOutcome, LoopAuditRecord } from "./audit";

/** The `type` of an audit record line. */
export const AUDIT_RECORD_TYPE = "reins.loop_control.step";

/** A line of the trail that was not rendered, and why. */
export interface SkippedAuditLine {
  /** 1-based line number. */
  readonly line: number;
  readonly reason: string;
}

/** One run of the trail, its steps in step order. */
export interface AuditRun {
  readonly runId: string;
  readonly steps: readonly LoopAuditRecord[];
  /** The stop reason of the step that ended the run (absent when the trail has no such step). */
  readonly stopReason?: string;
  /** From the first step's start to the end of the last step (its start plus its tool time), in milliseconds. */
  readonly durationMs: number;
}

/** What {@link readAuditTrail} found. */
export interface AuditTrail {
  /** Runs in the order their first step appears. */
  readonly runs: readonly AuditRun[];
  /** Lines that are not audit records (bad JSON, another record type, missing fields). */
  readonly skipped: readonly SkippedAuditLine[];
}

const OUTCOMES: ReadonlySet<string> = new Set<LoopAuditOutcome>(["observed", "warned", "stopped", "tool_error", "parse_error", "finish"]);

function problemOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  const record = value as Record<string, unknown>;
  if (record.type !== AUDIT_RECORD_TYPE) return `type is ${JSON.stringify(record.type)}, not "${AUDIT_RECORD_TYPE}"`;
  if (typeof record.runId !== "string" || record.runId === "") return "runId is missing";
  if (typeof record.step !== "number" || !Number.isInteger(record.step) || record.step < 1) return "step is not an integer ≥ 1";
  if (typeof record.startedAt !== "string" || Number.isNaN(Date.parse(record.startedAt))) return "startedAt is not an ISO-8601 time";
  if (typeof record.outcome !== "string" || !OUTCOMES.has(record.outcome)) return `outcome ${JSON.stringify(record.outcome)} is not one of ${[...OUTCOMES].join(", ")}`;
  if (typeof record.durations !== "object" || record.durations === null) return "durations is missing";
  return undefined;
}

/**
 * Parses an audit trail. Never throws: a line that is not an audit record is listed in `skipped`
 * with its line number and the reason, and the rest is still read.
 *
 * @param text - the JSONL text (blank lines are ignored)
 * @returns the runs and the skipped lines
 */
export function readAuditTrail(text: string): AuditTrail {
  const byRun = new Map<string, LoopAuditRecord[]>();
  const skipped: SkippedAuditLine[] = [];
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      skipped.push({ line: index + 1, reason: "not JSON" });
      return;
    }
    const problem = problemOf(value);
    if (problem !== undefined) {
      skipped.push({ line: index + 1, reason: problem });
      return;
    }
    const record = value as LoopAuditRecord;
    const steps = byRun.get(record.runId) ?? [];
    steps.push({ ...record, repairs: Array.isArray(record.repairs) ? record.repairs : [], thought: typeof record.thought === "string" ? record.thought : "" });
    byRun.set(record.runId, steps);
  });
  const runs = [...byRun].map(([runId, steps]): AuditRun => {
    const ordered = [...steps].sort((left, right) => left.step - right.step);
    const first = Date.parse(ordered[0].startedAt);
    const last = ordered[ordered.length - 1];
    const durationMs = Math.max(0, Date.parse(last.startedAt) - first + (last.durations.toolMs ?? 0));
    const stop = [...ordered].reverse().find((step) => step.stopReason !== undefined);
    return { runId, steps: ordered, durationMs, ...(stop?.stopReason !== undefined ? { stopReason: stop.stopReason } : {}) };
  });
  return { runs, skipped };
}

/** Control characters (C0 except newline and tab, DEL, C1) shown as `\uXXXX` in the text output. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

function printable(text: string): string {
  return text.replace(CONTROL, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function seconds(ms: number | undefined): string | undefined {
  return ms === undefined || !Number.isFinite(ms) ? undefined : `${(ms / 1000).toFixed(2)} s`;
}

function inputText(toolInput: unknown): string {
  if (toolInput === undefined) return "";
  if (typeof toolInput === "string") return JSON.stringify(toolInput);
  try {
    return JSON.stringify(toolInput) ?? String(toolInput);
  } catch {
    return String(toolInput);
  }
}

/** What a step did, in a few words: `search("Oslo")`, `parse error`, `final answer`. */
function actionOf(step: LoopAuditRecord): string {
  if (step.outcome === "finish") return "final answer";
  if (step.tool === "_Exception") return "reply rejected by the parser";
  return `${step.tool ?? "?"}(${inputText(step.toolInput)})`;
}

const OUTCOME_WORDS: Readonly<Record<LoopAuditOutcome, string>> = {
  observed: "observed",
  warned: "warned",
  stopped: "stopped",
  tool_error: "tool error",
  parse_error: "parse error",
  finish: "finished",
};

function timingsOf(step: LoopAuditRecord): string[] {
  return [
    ...(seconds(step.durations.llmMs) !== undefined ? [`llm ${seconds(step.durations.llmMs)}`] : []),
    ...(seconds(step.durations.toolMs) !== undefined ? [`tool ${seconds(step.durations.toolMs)}`] : []),
    ...(seconds(step.durations.cycleMs) !== undefined ? [`cycle ${seconds(step.durations.cycleMs)}`] : []),
  ];
}

function detectionOf(step: LoopAuditRecord): string | undefined {
  const detection = step.detection;
  return detection === undefined ? undefined : `${detection.level === "stop" ? "stop" : "warning"}: ${detection.kind} ×${detection.count}`;
}

const MAX_TEXT_THOUGHT_CHARS = 240;

/**
 * The trail as a plain-text timeline: per run a header (id, steps, duration, stop reason), then one
 * block per step (offset from the run's start, action, outcome, timings, repairs, loop warnings,
 * the thought cut to 240 characters with a marker), then the stop.
 *
 * @param trail - from {@link readAuditTrail}
 * @returns the text, ending in a newline
 */
export function renderTimelineText(trail: AuditTrail): string {
  const out: string[] = [];
  for (const run of trail.runs) {
    const start = Date.parse(run.steps[0].startedAt);
    out.push(`run ${printable(run.runId)} — ${run.steps.length} step${run.steps.length === 1 ? "" : "s"}, ${seconds(run.durationMs)}, stop: ${run.stopReason ?? "not recorded"}`);
    for (const step of run.steps) {
      const offset = `+${((Date.parse(step.startedAt) - start) / 1000).toFixed(2)}s`;
      out.push(`  #${String(step.step).padEnd(3)} ${offset.padStart(8)}  ${printable(actionOf(step))}  → ${OUTCOME_WORDS[step.outcome]}${timingsOf(step).length > 0 ? `  (${timingsOf(step).join(", ")})` : ""}`);
      if (step.repairs.length > 0) out.push(`        repairs: ${printable(step.repairs.join(", "))}`);
      const detection = detectionOf(step);
      if (detection !== undefined) out.push(`        ${detection}`);
      if (step.thought.trim() !== "") {
        const thought = step.thought.trim().replace(/\s+/g, " ");
        const cut = thought.length > MAX_TEXT_THOUGHT_CHARS ? `${thought.slice(0, MAX_TEXT_THOUGHT_CHARS)}… [${thought.length - MAX_TEXT_THOUGHT_CHARS} more characters]` : thought;
        out.push(`        thought: ${printable(cut)}`);
      }
      if (step.observationChars !== undefined) out.push(`        observation: ${step.observationChars} characters`);
      if (step.stopReason !== undefined) out.push(`        ■ stop: ${step.stopReason}`);
    }
    out.push("");
  }
  if (trail.runs.length === 0) out.push("No audit records found.", "");
  for (const skipped of trail.skipped) out.push(`skipped line ${skipped.line}: ${skipped.reason}`);
  return `${out.join("\n").replace(/\n+$/, "")}\n`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #1d2330; background: #fafbfc; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
.run-meta { color: #5b6475; margin: 0 0 .75rem; }
ol.timeline { list-style: none; padding: 0; border-left: 3px solid #c9d1de; margin-left: .5rem; }
li.step { position: relative; margin: 0 0 .9rem 1rem; padding: .5rem .75rem; background: #fff; border: 1px solid #dde3ec; border-radius: 6px; }
li.step::before { content: ""; position: absolute; left: -1.45rem; top: .85rem; width: .7rem; height: .7rem; border-radius: 50%; background: #7a8aa6; }
li.outcome-observed::before { background: #2f9e5b; } li.outcome-finish::before { background: #2864c7; }
li.outcome-warned::before { background: #d99a00; } li.outcome-tool_error::before, li.outcome-parse_error::before { background: #d0463c; }
li.outcome-stopped::before { background: #7d2ac0; }
.head { font-weight: 600; } .offset { color: #5b6475; font-variant-numeric: tabular-nums; margin-right: .5rem; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 4px; font-size: 12px; margin-left: .4rem; background: #e8ecf3; }
.badge.warn { background: #fff2cc; } .badge.stop { background: #eadcf8; } .badge.error { background: #fbe0de; }
.thought { white-space: pre-wrap; color: #313a4c; margin: .3rem 0 0; }
.facts { color: #5b6475; font-size: 12px; margin-top: .25rem; }
code { font: 12px ui-monospace, monospace; background: #f0f3f8; padding: 0 .25rem; border-radius: 3px; word-break: break-all; }
.skipped { color: #a33; }
`;

function stepHtml(step: LoopAuditRecord, runStartMs: number): string {
  const offset = `+${((Date.parse(step.startedAt) - runStartMs) / 1000).toFixed(2)} s`;
  const badges = [
    `<span class="badge${step.outcome === "tool_error" || step.outcome === "parse_error" ? " error" : step.outcome === "warned" ? " warn" : step.outcome === "stopped" ? " stop" : ""}">${escapeHtml(OUTCOME_WORDS[step.outcome])}</span>`,
    ...(detectionOf(step) !== undefined ? [`<span class="badge ${step.detection?.level === "stop" ? "stop" : "warn"}">${escapeHtml(detectionOf(step) as string)}</span>`] : []),
    ...(step.stopReason !== undefined ? [`<span class="badge stop">stop: ${escapeHtml(step.stopReason)}</span>`] : []),
  ];
  const facts = [
    ...timingsOf(step),
    ...(step.repairs.length > 0 ? [`repairs: ${step.repairs.join(", ")}`] : []),
    ...(step.observationChars !== undefined ? [`observation ${step.observationChars} characters`] : []),
  ];
  const action = step.outcome === "finish" || step.tool === "_Exception" ? escapeHtml(actionOf(step)) : `<code>${escapeHtml(actionOf(step))}</code>`;
  return [
    `<li class="step outcome-${escapeHtml(step.outcome)}" data-step="${step.step}" data-outcome="${escapeHtml(step.outcome)}">`,
    `<div class="head"><span class="offset">#${step.step} ${escapeHtml(offset)}</span>${action}${badges.join("")}</div>`,
    ...(step.thought.trim() !== "" ? [`<p class="thought">${escapeHtml(step.thought.trim())}</p>`] : []),
    ...(facts.length > 0 ? [`<div class="facts">${escapeHtml(facts.join(" · "))}</div>`] : []),
    `</li>`,
  ].join("");
}

/**
 * The trail as one self-contained HTML page (inline CSS, no script, nothing loaded): a section per
 * run (`data-run-id`) with its steps as a timeline, each step an `<li class="step" data-step="N">`
 * with its action, outcome, timings, repairs, loop warnings, thought and stop. Every value is
 * HTML-escaped.
 *
 * @param trail - from {@link readAuditTrail}
 * @param title - the page title
 * @returns the HTML document
 */
export function renderTimelineHtml(trail: AuditTrail, title = "Reins run trace"): string {
  const sections = trail.runs.map((run) => {
    const start = Date.parse(run.steps[0].startedAt);
    return [
      `<section class="run" data-run-id="${escapeHtml(run.runId)}">`,
      `<h2>Run <code>${escapeHtml(run.runId)}</code></h2>`,
      `<p class="run-meta">${run.steps.length} step${run.steps.length === 1 ? "" : "s"} · ${escapeHtml(seconds(run.durationMs) ?? "")} · started ${escapeHtml(run.steps[0].startedAt)} · stop: <strong class="stop-reason">${escapeHtml(run.stopReason ?? "not recorded")}</strong></p>`,
      `<ol class="timeline">${run.steps.map((step) => stepHtml(step, start)).join("\n")}</ol>`,
      `</section>`,
    ].join("\n");
  });
  const skipped =
    trail.skipped.length === 0
      ? ""
      : `<section class="skipped"><h2>Skipped lines</h2><ul>${trail.skipped.map((line) => `<li>line ${line.line}: ${escapeHtml(line.reason)}</li>`).join("")}</ul></section>`;
  const steps = trail.runs.reduce((sum, run) => sum + run.steps.length, 0);
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="run-meta">${trail.runs.length} run${trail.runs.length === 1 ? "" : "s"}, ${steps} step${steps === 1 ? "" : "s"}.</p>`,
    ...(trail.runs.length === 0 ? ["<p>No audit records found.</p>"] : sections),
    skipped,
    "</body></html>",
    "",
  ].join("\n");
}
