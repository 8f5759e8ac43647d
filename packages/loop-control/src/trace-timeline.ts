/**
 * Renders a loop-control audit trail (read by `readAuditTrail`, `trace-read.ts`) for a person as a
 * plain-text timeline per run: the question, each turn (thought, calls, the observation as the
 * model received it, labels, timings) and the answer. Used by `reins-trace`; the HTML page is
 * `trace-html.ts`.
 *
 * Everything in a record may come from the model or a tool: control characters are shown as
 * `\uXXXX`, so no terminal escape sequence gets through.
 */
import type { LoopAuditOutcome, LoopAuditRecord } from "./audit";
import { appendAll, turnsOf, type AuditTrail, type TraceCall, type TraceLabel, type TraceTurn } from "./trace-read";

export { AUDIT_RECORD_TYPE, readAuditTrail, turnsOf, valueText } from "./trace-read";
export type { AuditRun, AuditTrail, SkippedAuditLine, TraceCall, TraceLabel, TraceRunOutcome, TraceTurn } from "./trace-read";

/** Control characters (C0 except newline and tab, DEL, C1) shown as `\uXXXX` in the text output. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** The text with control characters shown as `\uXXXX` (no terminal escape sequence gets through). */
export function printable(text: string): string {
  return text.replace(CONTROL, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Milliseconds as `1.23 s`; undefined for a missing or non-finite value. */
export function seconds(ms: number | undefined): string | undefined {
  return ms === undefined || !Number.isFinite(ms) ? undefined : `${(ms / 1000).toFixed(2)} s`;
}

/**
 * A step's time as `N ms` below one second, else `N.NN s` (`850 ms`, `5.40 s`); undefined for a
 * missing or non-finite value.
 */
export function duration(ms: number | undefined): string | undefined {
  if (ms === undefined || !Number.isFinite(ms)) return undefined;
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** What a call did, in a few words: `search("Oslo")`. */
export function callText(call: TraceCall): string {
  return `${call.tool}(${call.input})`;
}

/** What a turn did: its call, `N parallel calls`, `reply rejected by the parser`, `final answer`. */
export function turnActionText(turn: TraceTurn): string {
  if (turn.kind === "finish") return turn.stopReason === undefined || turn.stopReason === "final_answer" ? "final answer" : "graceful stop";
  if (turn.kind === "rejected") return "reply rejected by the parser";
  return turn.calls.length === 1 ? callText(turn.calls[0]) : `${turn.calls.length} parallel calls`;
}

/** The outcome words of a record. */
export const OUTCOME_WORDS: Readonly<Record<LoopAuditOutcome, string>> = {
  observed: "observed",
  warned: "warned",
  stopped: "stopped",
  tool_error: "tool error",
  parse_error: "parse error",
  finish: "finished",
};

/** Call outcomes that name how a failed call failed better than "tool error" (`tool_calls_total`'s `outcome`). */
const FAILURE_WORDS: Readonly<Record<string, string>> = {
  timeout: "timeout",
  circuit_open: "circuit open",
  rejected: "refused by policy",
  invalid_input: "invalid input",
};

/**
 * The outcome words of a turn: a failed single call says how it failed when its record has the
 * typed outcome (`timeout`, `circuit open` …, not `tool error`), else {@link OUTCOME_WORDS}.
 */
export function turnOutcomeText(turn: TraceTurn): string {
  const callOutcome = turn.calls.length === 1 ? turn.calls[0].callOutcome : undefined;
  const words = callOutcome === undefined ? undefined : FAILURE_WORDS[callOutcome];
  return turn.outcome === "tool_error" && words !== undefined ? words : OUTCOME_WORDS[turn.outcome];
}

/**
 * The timings of a turn (`llm`, its single call's `tool`, `cycle`), as `name N ms` or `name N.NN s`
 * ({@link duration}). The cycle runs from the reply that chose the turn to the next reply.
 */
export function turnTimings(turn: TraceTurn): string[] {
  const tool = turn.calls.length === 1 ? duration(turn.calls[0].toolMs) : undefined;
  return [
    ...(duration(turn.llmMs) !== undefined ? [`llm ${duration(turn.llmMs)}`] : []),
    ...(tool !== undefined ? [`tool ${tool}`] : []),
    ...(duration(turn.cycleMs) !== undefined ? [`cycle ${duration(turn.cycleMs)}`] : []),
  ];
}

/** `observation 42 characters (raw result 15000 characters)`, or undefined when the size is unknown. */
export function observationSize(call: TraceCall): string | undefined {
  const chars = call.observationChars ?? call.observation?.length;
  if (chars === undefined) return undefined;
  return `observation ${chars} characters${call.observationRawChars !== undefined ? ` (raw result ${call.observationRawChars} characters)` : ""}`;
}

const MAX_TEXT_THOUGHT_CHARS = 240;
/** The text timeline shows this much of an observation or answer; the HTML page shows all. */
const MAX_TEXT_CONTENT_CHARS = 2000;

function cut(text: string, max: number, where: string): string {
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters${where}]` : text;
}

function block(label: string, text: string, indent: string): string[] {
  const lines = printable(cut(text, MAX_TEXT_CONTENT_CHARS, "; --html shows all")).split("\n");
  return [`${indent}${label}:`, ...lines.map((line) => `${indent}  | ${line}`)];
}

function labelsText(labels: readonly TraceLabel[]): string {
  return labels.map((label) => `[${label.text}]`).join(" ");
}

function callLines(call: TraceCall, indent: string): string[] {
  const out: string[] = [];
  if (call.labels.length > 0) out.push(`${indent}${printable(labelsText(call.labels))}`);
  const size = observationSize(call);
  if (call.observation !== undefined) appendAll(out, block(`${size ?? "observation"}, as the model received it`, call.observation, indent));
  else if (size !== undefined) out.push(`${indent}${size} (text not recorded)`);
  return out;
}

/**
 * One turn of the text timeline: its line (number, offset from the run's start, action, outcome,
 * timings) and the indented lines under it (labels, thought cut to 240 characters, each call with
 * the observation as the model received it, the stop and the answer).
 *
 * @param turn - from `turnsOf`
 * @param runStartMs - the start of the run's first record, in epoch milliseconds
 * @param number - the number shown (the turn's, or a record's step number when following)
 */
export function turnLinesText(turn: TraceTurn, runStartMs: number, number = turn.number): string[] {
  const out: string[] = [];
  const offset = `+${((turn.startedAtMs - runStartMs) / 1000).toFixed(2)}s`;
  const timings = turnTimings(turn);
  const outcome = turn.calls.length > 1 ? "" : `  → ${turnOutcomeText(turn)}`;
  out.push(`  #${String(number).padEnd(3)} ${offset.padStart(8)}  ${printable(turnActionText(turn))}${outcome}${timings.length > 0 ? `  (${timings.join(", ")})` : ""}`);
  if (turn.labels.length > 0) out.push(`        ${printable(labelsText(turn.labels))}`);
  if (turn.problems.length > 0) out.push(`        broken record: ${printable(turn.problems.join("; "))}`);
  if (turn.thought.trim() !== "") out.push(`        thought: ${printable(cut(turn.thought.trim(), MAX_TEXT_THOUGHT_CHARS, ""))}`);
  if (turn.calls.length === 1) appendAll(out, callLines(turn.calls[0], "        "));
  else {
    for (const call of turn.calls) {
      const tool = duration(call.toolMs);
      out.push(`        · ${printable(callText(call))}${tool !== undefined ? `  (tool ${tool})` : ""}`);
      appendAll(out, callLines(call, "          "));
    }
  }
  if (turn.stopReason !== undefined) out.push(`        ■ stop: ${printable(turn.stopReason)}`);
  if (turn.answer !== undefined) appendAll(out, block(turn.stopReason === undefined || turn.stopReason === "final_answer" ? "answer" : "graceful stop text", turn.answer, "        "));
  return out;
}

/**
 * One record as text lines (`reins-trace --follow` prints these as each record is written),
 * numbered with the record's step.
 *
 * @param step - an audit record (as `readAuditTrail` returns it)
 * @param runStartMs - the start of the run's first record, in epoch milliseconds
 */
export function stepLinesText(step: LoopAuditRecord, runStartMs: number): string[] {
  const lines = turnLinesText(turnsOf([step])[0], runStartMs, step.step);
  if (step.question === undefined) return lines;
  const withQuestion = block("question", step.question, "  ");
  appendAll(withQuestion, lines);
  return withQuestion;
}

/**
 * The trail as plain text: a header per run (id, steps, duration, stop reason), its question, a
 * block per turn (see {@link turnLinesText}), then the skipped lines.
 *
 * @param trail - from `readAuditTrail`
 * @returns the text, ending in a newline
 */
export function renderTimelineText(trail: AuditTrail): string {
  const out: string[] = [];
  for (const run of trail.runs) {
    const steps = run.turns.length;
    const broken = run.brokenRecords > 0 ? `, ${run.brokenRecords} broken record${run.brokenRecords === 1 ? "" : "s"}` : "";
    out.push(`run ${printable(run.runId)} — ${steps} step${steps === 1 ? "" : "s"}, ${seconds(run.durationMs)}, stop: ${printable(run.stopReason ?? "not recorded")}${broken}`);
    if (run.question !== undefined) appendAll(out, block("question", run.question, "  "));
    for (const turn of run.turns) appendAll(out, turnLinesText(turn, run.startedAtMs));
    out.push("");
  }
  if (trail.runs.length === 0) out.push("No audit records found.", "");
  for (const skipped of trail.skipped) out.push(`skipped line ${skipped.line}: ${printable(skipped.reason)}`);
  return `${out.join("\n").replace(/\n+$/, "")}\n`;
}
