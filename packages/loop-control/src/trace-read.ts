/**
 * Reads a loop-control audit trail (JSONL, one {@link LoopAuditRecord} per line) into what
 * `reins-trace` shows: runs, their turns (the parallel calls of one `createAgent` model turn are
 * one turn) and the labels of each call.
 *
 * Every record is hostile until read: any field may hold any JSON type. A line that is not an
 * audit record (bad JSON, another type, no run id or step) is listed as skipped; a record with a
 * wrongly typed field is kept, that field shown as text, and the record marked broken. Nothing
 * here throws on input.
 */
import type { LoopAuditOutcome, LoopAuditRecord } from "./audit";

/** The `type` of an audit record line. */
export const AUDIT_RECORD_TYPE = "reins.loop_control.step";

/** A line of the trail that was not rendered, and why. */
export interface SkippedAuditLine {
  /** 1-based line number. */
  readonly line: number;
  readonly reason: string;
  /** The line's start (up to 200 characters), to recognise it. */
  readonly preview?: string;
}

/** A label of a call or turn: its kind (a CSS class) and its words. */
export interface TraceLabel {
  readonly kind:
    | "timeout"
    | "error"
    | "circuit"
    | "refused"
    | "fallback"
    | "cache"
    | "dry-run"
    | "invalid"
    | "parse"
    | "warn"
    | "stop"
    | "repair"
    | "rescue"
    | "broken";
  readonly text: string;
}

/** One tool call of a turn, from its record. */
export interface TraceCall {
  /** The record's step number. */
  readonly step: number;
  readonly tool: string;
  /** The tool input as JSON text. */
  readonly input: string;
  readonly callId?: string;
  /** The observation as the model received it, when the record holds it. */
  readonly observation?: string;
  readonly observationChars?: number;
  readonly observationRawChars?: number;
  readonly toolMs?: number;
  /** How the call ended (`tool_calls_total`'s `outcome`), when the record holds it. */
  readonly callOutcome?: string;
  readonly labels: readonly TraceLabel[];
}

/** One turn of a run: a model turn's calls, a rejected reply, or the run's finish. */
export interface TraceTurn {
  /** 1-based and consecutive within the run. */
  readonly number: number;
  readonly kind: "calls" | "rejected" | "finish";
  /** The outcome of the turn's first record (`broken` when a field had the wrong type). */
  readonly outcome: LoopAuditOutcome;
  readonly startedAtMs: number;
  readonly thought: string;
  readonly calls: readonly TraceCall[];
  readonly llmMs?: number;
  /**
   * From the model reply that chose the turn to the next model reply (the next turn's start), in
   * milliseconds, so the cycles of a run add up to the time from its first reply to its last. For
   * a run's last turn (no next reply recorded), the record's own `cycleMs`; none for a finish.
   */
  readonly cycleMs?: number;
  /** The turn's labels: a finish record's, or the repairs of a model reply as a whole (`replyRepairs`). */
  readonly labels: readonly TraceLabel[];
  readonly stopReason?: string;
  readonly answer?: string;
  /** Fields of the turn's records that had the wrong type. */
  readonly problems: readonly string[];
}

/** How a run ended, for the outcome filter: answered, stopped by loop control, error, or no end recorded. */
export type TraceRunOutcome = "answered" | "stopped" | "error" | "unfinished";

/** One run of the trail. */
export interface AuditRun {
  readonly runId: string;
  /** Its records, in step order, every field of the documented type. */
  readonly steps: readonly LoopAuditRecord[];
  readonly turns: readonly TraceTurn[];
  readonly question?: string;
  readonly answer?: string;
  /** The stop reason of the record that ended the run (absent when the trail has no such record). */
  readonly stopReason?: string;
  readonly outcome: TraceRunOutcome;
  /** From the first record's model call to the end of the last record (its start plus its tool time), in milliseconds. */
  readonly durationMs: number;
  readonly startedAtMs: number;
  /** Records of the run that had wrongly typed fields. */
  readonly brokenRecords: number;
}

/** What {@link readAuditTrail} found. */
export interface AuditTrail {
  /** Runs in the order their first record appears. */
  readonly runs: readonly AuditRun[];
  /** Lines that are not audit records (bad JSON, another record type, missing fields). */
  readonly skipped: readonly SkippedAuditLine[];
}

const OUTCOMES: ReadonlySet<string> = new Set<LoopAuditOutcome>(["observed", "warned", "stopped", "tool_error", "parse_error", "finish"]);

/**
 * Appends every item of `items` to `target` one by one: a record may hold hundreds of thousands of
 * lines, and `target.push(...items)` passes each as an argument (a stack overflow past ~100 k).
 */
export function appendAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** How deep {@link valueText} writes nested arrays and objects before it marks a cut. */
export const MAX_VALUE_DEPTH = 64;

/**
 * Any JSON value as text: a string as is, anything else as its JSON. Nesting deeper than
 * {@link MAX_VALUE_DEPTH} levels is cut, marked `"[… deeper levels cut]"`, so a hostile record of
 * ten thousand `[` renders instead of overflowing the stack.
 */
export function valueText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    return JSON.stringify(depthBounded(value, 0)) ?? String(value);
  } catch {
    return String(value);
  }
}

const DEPTH_CUT = "[… deeper levels cut]";

/** A copy of `value` whose nesting stops at {@link MAX_VALUE_DEPTH} (only copied where it is deeper). */
function depthBounded(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_VALUE_DEPTH) return DEPTH_CUT;
  if (Array.isArray(value)) return value.map((item) => depthBounded(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) Object.defineProperty(copy, key, { value: depthBounded(item, depth + 1), enumerable: true, writable: true, configurable: true });
  return copy;
}

function problemOf(record: Record<string, unknown>): string | undefined {
  if (record.type !== AUDIT_RECORD_TYPE) return `type is ${valueText(record.type) === "" ? "missing" : JSON.stringify(valueText(record.type).slice(0, 80))}, not "${AUDIT_RECORD_TYPE}"`;
  if (typeof record.runId !== "string" || record.runId === "") return "runId is missing";
  if (typeof record.step !== "number" || !Number.isInteger(record.step) || record.step < 1) return "step is not an integer ≥ 1";
  if (typeof record.startedAt !== "string" || Number.isNaN(Date.parse(record.startedAt))) return "startedAt is not an ISO-8601 time";
  if (typeof record.outcome !== "string" || !OUTCOMES.has(record.outcome)) return `outcome ${JSON.stringify(valueText(record.outcome).slice(0, 80))} is not one of ${[...OUTCOMES].join(", ")}`;
  return undefined;
}

/** A record with every field of its documented type; wrong types become text or are dropped, and listed. */
function sanitize(raw: Record<string, unknown>, problems: string[]): LoopAuditRecord {
  const text = (field: string): string | undefined => {
    const value = raw[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") problems.push(`${field} is not a string`);
    return valueText(value);
  };
  const count = (source: Record<string, unknown>, field: string, name = field): number | undefined => {
    const value = source[field];
    if (value === undefined) return undefined;
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
    problems.push(`${name} is not a number ≥ 0`);
    return undefined;
  };
  const rawDurations = raw.durations;
  const durations = typeof rawDurations === "object" && rawDurations !== null && !Array.isArray(rawDurations) ? (rawDurations as Record<string, unknown>) : {};
  if (rawDurations !== undefined && durations !== rawDurations) problems.push("durations is not an object");
  const list = (field: string): string[] | undefined => {
    const value = raw[field];
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      problems.push(`${field} is not a list`);
      return [];
    }
    if (value.some((item) => typeof item !== "string")) problems.push(`${field} holds a non-string`);
    return value.map(valueText);
  };
  const repairs = list("repairs") ?? [];
  const replyRepairs = list("replyRepairs");
  const rawDetection = raw.detection;
  let detection: LoopAuditRecord["detection"];
  if (typeof rawDetection === "object" && rawDetection !== null && !Array.isArray(rawDetection)) {
    const fields = rawDetection as Record<string, unknown>;
    const detectionCount = count(fields, "count", "detection.count") ?? 0;
    detection = { kind: valueText(fields.kind) as "repeat", level: fields.level === "stop" ? "stop" : "warn", count: detectionCount };
  } else if (rawDetection !== undefined) problems.push("detection is not an object");
  const optional = <T>(value: T | undefined, key: string): Record<string, T> => (value === undefined ? {} : { [key]: value });
  const turn = raw.turn === undefined ? undefined : typeof raw.turn === "number" && Number.isInteger(raw.turn) && raw.turn >= 1 ? raw.turn : undefined;
  if (raw.turn !== undefined && turn === undefined) problems.push("turn is not an integer ≥ 1");
  return {
    type: AUDIT_RECORD_TYPE,
    runId: raw.runId as string,
    step: raw.step as number,
    startedAt: raw.startedAt as string,
    durations: { ...optional(count(durations, "llmMs", "durations.llmMs"), "llmMs"), ...optional(count(durations, "toolMs", "durations.toolMs"), "toolMs"), ...optional(count(durations, "cycleMs", "durations.cycleMs"), "cycleMs") },
    thought: text("thought") ?? "",
    repairs,
    ...(replyRepairs !== undefined && replyRepairs.length > 0 ? { replyRepairs } : {}),
    outcome: raw.outcome as LoopAuditOutcome,
    ...optional(text("question"), "question"),
    ...optional(text("tool"), "tool"),
    ...(raw.toolInput !== undefined ? { toolInput: raw.toolInput } : {}),
    ...optional(turn, "turn"),
    ...optional(text("callId"), "callId"),
    ...optional(text("observationFingerprint"), "observationFingerprint"),
    ...optional(count(raw, "observationChars"), "observationChars"),
    ...optional(text("observation"), "observation"),
    ...optional(count(raw, "observationRawChars"), "observationRawChars"),
    ...(raw.callOutcome !== undefined ? { callOutcome: text("callOutcome") as LoopAuditRecord["callOutcome"] } : {}),
    ...(raw.refused === true ? { refused: true } : {}),
    ...optional(detection, "detection"),
    ...(raw.stopReason !== undefined ? { stopReason: text("stopReason") as LoopAuditRecord["stopReason"] } : {}),
    ...optional(text("answer"), "answer"),
  };
}

const CALL_OUTCOME_LABELS: Readonly<Record<string, TraceLabel>> = {
  timeout: { kind: "timeout", text: "timeout" },
  error: { kind: "error", text: "tool error" },
  circuit_open: { kind: "circuit", text: "circuit open" },
  rejected: { kind: "refused", text: "refused by policy" },
  fallback: { kind: "fallback", text: "fallback" },
  cached: { kind: "cache", text: "cache hit" },
  dry_run: { kind: "dry-run", text: "dry run" },
  invalid_input: { kind: "invalid", text: "invalid input" },
};

/** The labels of one record: how its call ended, a refusal, a parse error, a loop warning, repairs, a broken field. */
function labelsOf(record: LoopAuditRecord, broken: boolean): TraceLabel[] {
  const labels: TraceLabel[] = [];
  const known = record.callOutcome === undefined ? undefined : CALL_OUTCOME_LABELS[record.callOutcome];
  if (known !== undefined) labels.push(known);
  else if (record.callOutcome !== undefined && record.callOutcome !== "success") labels.push({ kind: "error", text: `outcome ${record.callOutcome}` });
  if (record.outcome === "tool_error" && known === undefined) labels.push({ kind: "error", text: "tool error" });
  if (record.outcome === "parse_error") labels.push({ kind: "parse", text: "reply rejected by the parser" });
  if (record.outcome === "stopped") labels.push(record.refused === true || (record.observation === undefined && record.observationChars === undefined) ? { kind: "stop", text: "not run: run stopped" } : { kind: "stop", text: "stopped" });
  if (record.detection !== undefined) labels.push({ kind: record.detection.level === "stop" ? "stop" : "warn", text: `${record.detection.level === "stop" ? "loop stop" : "loop warning"}: ${record.detection.kind} ×${record.detection.count}` });
  labels.push(...repairLabels(record.repairs));
  if (broken) labels.push({ kind: "broken", text: "broken record" });
  return labels;
}

/** `rescued: …` and `repaired: …` labels of a list of repairs. */
function repairLabels(repairs: readonly string[]): TraceLabel[] {
  const labels: TraceLabel[] = [];
  const rescues = repairs.filter((repair) => /rescue/i.test(repair));
  if (rescues.length > 0) labels.push({ kind: "rescue", text: `rescued: ${rescues.join(", ")}` });
  const repaired = repairs.filter((repair) => !/rescue/i.test(repair));
  if (repaired.length > 0) labels.push({ kind: "repair", text: `repaired: ${repaired.join(", ")}` });
  return labels;
}

function callOf(record: LoopAuditRecord, broken: boolean): TraceCall {
  return {
    step: record.step,
    tool: record.tool ?? "?",
    input: record.toolInput === undefined ? "" : typeof record.toolInput === "string" ? JSON.stringify(record.toolInput) : valueText(record.toolInput),
    ...(record.callId !== undefined ? { callId: record.callId } : {}),
    ...(record.observation !== undefined ? { observation: record.observation } : {}),
    ...(record.observationChars !== undefined ? { observationChars: record.observationChars } : {}),
    ...(record.observationRawChars !== undefined ? { observationRawChars: record.observationRawChars } : {}),
    ...(record.durations.toolMs !== undefined ? { toolMs: record.durations.toolMs } : {}),
    ...(record.callOutcome !== undefined ? { callOutcome: record.callOutcome } : {}),
    labels: labelsOf(record, broken),
  };
}

/**
 * The turns of a run's records (in step order): records sharing a `turn` number in a row are one
 * turn; every other record is a turn of its own. Numbered 1, 2, … whatever the recorded steps.
 *
 * @param problems - the wrongly typed fields of each record, by record
 */
export function turnsOf(records: readonly LoopAuditRecord[], problems: ReadonlyMap<LoopAuditRecord, readonly string[]> = new Map()): TraceTurn[] {
  const groups: LoopAuditRecord[][] = [];
  for (const record of records) {
    const last = groups[groups.length - 1];
    const sameTurn = last !== undefined && record.turn !== undefined && last[0].turn === record.turn && record.outcome !== "finish" && last[0].outcome !== "finish";
    if (sameTurn) last.push(record);
    else groups.push([record]);
  }
  return groups.map((group, index): TraceTurn => {
    const first = group[0];
    const groupProblems = group.flatMap((record) => problems.get(record) ?? []);
    const kind = first.outcome === "finish" ? "finish" : first.tool === "_Exception" ? "rejected" : "calls";
    const stop = group.find((record) => record.stopReason !== undefined);
    const next = groups[index + 1]?.[0];
    // From the reply that chose this turn to the next reply; a run's last turn has only its own record's figure.
    const recorded = group.map((record) => record.durations.cycleMs).filter((ms): ms is number => ms !== undefined);
    const cycleMs =
      kind === "finish" ? undefined : next !== undefined ? Math.max(0, Date.parse(next.startedAt) - Date.parse(first.startedAt)) : recorded.length > 0 ? recorded.reduce((longest, ms) => Math.max(longest, ms), 0) : undefined;
    const replyLabels = kind === "finish" ? [] : repairLabels(first.replyRepairs ?? []);
    return {
      number: index + 1,
      kind,
      outcome: first.outcome,
      startedAtMs: Date.parse(first.startedAt),
      thought: first.thought,
      // A rejected reply's "call" is the executor's `_Exception` step: its observation is the parser's corrective text.
      calls: kind === "finish" ? [] : group.map((record) => callOf(record, (problems.get(record) ?? []).length > 0)),
      ...(first.durations.llmMs !== undefined ? { llmMs: first.durations.llmMs } : {}),
      ...(cycleMs !== undefined ? { cycleMs } : {}),
      labels: kind === "finish" ? labelsOf(first, groupProblems.length > 0) : replyLabels,
      ...(stop?.stopReason !== undefined ? { stopReason: stop.stopReason } : {}),
      ...(first.answer !== undefined ? { answer: first.answer } : {}),
      problems: groupProblems,
    };
  });
}

/** The filter class of a run's stop reason. */
export function runOutcomeOf(stopReason: string | undefined): TraceRunOutcome {
  if (stopReason === undefined) return "unfinished";
  if (stopReason === "final_answer") return "answered";
  if (stopReason === "error") return "error";
  return "stopped";
}

function previewOf(line: string): string {
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/**
 * Parses an audit trail. Never throws: a line that is not an audit record is listed in `skipped`
 * with its line number, the reason and its start, and the rest is still read.
 *
 * @param text - the JSONL text (blank lines are ignored)
 * @returns the runs and the skipped lines
 */
export function readAuditTrail(text: string): AuditTrail {
  const byRun = new Map<string, LoopAuditRecord[]>();
  const problems = new Map<LoopAuditRecord, readonly string[]>();
  const skipped: SkippedAuditLine[] = [];
  const lines = typeof text === "string" ? text.split("\n") : [];
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      skipped.push({ line: index + 1, reason: "not JSON", preview: previewOf(line) });
      return;
    }
    const problem = typeof value !== "object" || value === null || Array.isArray(value) ? "not a JSON object" : problemOf(value as Record<string, unknown>);
    if (problem !== undefined) {
      skipped.push({ line: index + 1, reason: problem, preview: previewOf(line) });
      return;
    }
    const found: string[] = [];
    const record = sanitize(value as Record<string, unknown>, found);
    if (found.length > 0) problems.set(record, found);
    const steps = byRun.get(record.runId) ?? [];
    steps.push(record);
    byRun.set(record.runId, steps);
  });
  const runs = [...byRun].map(([runId, steps]): AuditRun => {
    // Stable: records with one step number keep their order in the file.
    const ordered = [...steps].sort((left, right) => left.step - right.step);
    const first = Date.parse(ordered[0].startedAt);
    const last = ordered[ordered.length - 1];
    // From the first model call's start (the first record's decision less its model time) to the end of the last record.
    const durationMs = Math.max(0, Date.parse(last.startedAt) - first + (ordered[0].durations.llmMs ?? 0) + (last.durations.toolMs ?? 0));
    const stop = [...ordered].reverse().find((step) => step.stopReason !== undefined);
    const question = ordered.find((step) => step.question !== undefined)?.question;
    const answer = [...ordered].reverse().find((step) => step.answer !== undefined)?.answer;
    return {
      runId,
      steps: ordered,
      turns: turnsOf(ordered, problems),
      ...(question !== undefined ? { question } : {}),
      ...(answer !== undefined ? { answer } : {}),
      ...(stop?.stopReason !== undefined ? { stopReason: stop.stopReason } : {}),
      outcome: runOutcomeOf(stop?.stopReason),
      durationMs,
      startedAtMs: first,
      brokenRecords: ordered.filter((step) => problems.has(step)).length,
    };
  });
  return { runs, skipped };
}
