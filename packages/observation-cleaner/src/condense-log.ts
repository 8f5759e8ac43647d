/**
 * Condensing a log (see `log-lines.ts` for what counts as one) so that what a reader of a CI job
 * or `kubectl logs` looks for survives, wherever it sits:
 * 1. always: runs of progress lines and of lines that differ only in their counters become their
 *    first and last line around one counted marker; stack traces keep the first frames of each
 *    cause (the last ones of a Python traceback) and their app frames, library frames are counted;
 *    when most lines carry a timestamp, ordinary lines lose theirs (step, error, warning and result
 *    lines, and the first and last line, keep it);
 * 2. when that is still over the budget: step boundaries, commands, errors (with the two lines
 *    after each), warnings, summary and result lines, the first lines and the last lines are kept
 *    first; what budget is left goes to the other lines nearest the start and the end; the middle
 *    goes.
 *
 * Every gap says how many lines it stands for and which (`[lines 120–480 omitted]`), so a reader
 * with the full result (the tool message's artifact, `read_artifact`) can ask for exactly them.
 */
import type { Notes } from "./decode";
import { shortenString } from "./render";
import { PYTHON_TRACE, TRACE_CAUSE, classifyLogLine, isGoFramePath, isLibraryFrame, isStepStart, lineShape, timestampPrefix, type LogLineKind } from "./log-lines";

/** One line of output, or a marker standing for lines left out. */
interface Entry {
  text: string;
  readonly kind: LogLineKind | "marker";
  /** {@link lineShape} of the line without its timestamp. */
  readonly shape: string;
  priority: number;
  /** First and last line of the input (1-based) this entry stands for. */
  readonly first: number;
  readonly last: number;
}

/** The result of {@link condenseLog}. */
export interface CondensedLog {
  readonly text: string;
  /** True when any line was left out (collapsed, counted or cut). */
  readonly truncated: boolean;
}

/** Frames kept from the start (the end, for Python) of each cause, and app frames kept beyond those. */
const FRAMES_KEPT = 3;
const APP_FRAMES_KEPT = 2;
/** Runs at least this long are collapsed. */
const MIN_RUN = 3;
/** Longest log line kept whole (a minified bundle or a JSON dump on one line is cut). */
const MAX_LINE_CHARS = 600;
const HEAD_LINES = 3;
const TAIL_LINES = 12;

const BASE_PRIORITY: Record<LogLineKind | "marker", number> = {
  error: 6,
  summary: 6,
  boundary: 4,
  warning: 4,
  command: 3,
  frame: 5,
  pass: 2,
  progress: 1,
  ordinary: 0,
  marker: 0,
};

function lineRange(first: number, last: number): string {
  return first === last ? `line ${first}` : `lines ${first}–${last}`;
}

function marker(text: string, first: number, last: number, priority: number): Entry {
  return { text, kind: "marker", shape: "", priority, first, last };
}

class LogCondenser {
  private collapsedProgress = 0;
  private collapsedRepeats = 0;
  private collapsedFrames = 0;
  private strippedTimestamps = 0;

  constructor(private readonly notes: Notes) {}

  /** Lines as entries, timestamps stripped from ordinary lines when most lines carry one. */
  private entries(lines: readonly string[]): Entry[] {
    const stamps = lines.map((line) => timestampPrefix(line));
    const nonEmpty = lines.filter((line) => line.trim().length > 0).length;
    const stripStamps = stamps.filter((stamp) => stamp.length > 0).length >= nonEmpty * 0.5;
    return lines.map((line, index) => {
      const stamp = stamps[index] as string;
      const body = line.slice(stamp.length);
      const kind = classifyLogLine(body);
      const keepStamp = !stripStamps || index === 0 || index === lines.length - 1 || kind === "error";
      if (!keepStamp && stamp.length > 0) this.strippedTimestamps += 1;
      return { text: shortenString((keepStamp ? line : body).trimEnd(), MAX_LINE_CHARS), kind, shape: lineShape(body), priority: BASE_PRIORITY[kind], first: index + 1, last: index + 1 };
    });
  }

  /** Each run of stack frames keeps its first (Python: last) frames and its app frames. */
  private collapseFrames(entries: Entry[]): Entry[] {
    const output: Entry[] = [];
    let index = 0;
    let python = false;
    while (index < entries.length) {
      const entry = entries[index] as Entry;
      if (TRACE_CAUSE.test(entry.text)) python = PYTHON_TRACE.test(entry.text);
      if (entry.kind !== "frame") {
        output.push(entry);
        index += 1;
        continue;
      }
      // A frame and its continuation lines (Python's source line under `File "…", line N`).
      const frames: Entry[][] = [];
      while (index < entries.length) {
        const current = entries[index] as Entry;
        const previous = frames[frames.length - 1];
        if (current.kind === "frame" && previous !== undefined && previous.length === 1 && isGoFramePath(current.text) && !isGoFramePath((previous[0] as Entry).text)) previous.push(current);
        else if (current.kind === "frame") frames.push([current]);
        else if (frames.length > 0 && /^\s{4,}\S/.test(current.text) && !TRACE_CAUSE.test(current.text) && (frames[frames.length - 1] as Entry[]).length === 1) {
          (frames[frames.length - 1] as Entry[]).push(current);
        } else break;
        index += 1;
      }
      const edge = python ? frames.slice(-FRAMES_KEPT) : frames.slice(0, FRAMES_KEPT);
      const kept = new Set(edge);
      let app = 0;
      for (const frame of frames) {
        if (app >= APP_FRAMES_KEPT) break;
        if (!kept.has(frame) && !isLibraryFrame(frame.map((line) => line.text).join(" "))) {
          kept.add(frame);
          app += 1;
        }
      }
      let pending: Entry[][] = [];
      const flush = (): void => {
        if (pending.length === 0) return;
        const first = (pending[0]?.[0] as Entry).first;
        const lastFrame = pending[pending.length - 1] as Entry[];
        const last = (lastFrame[lastFrame.length - 1] as Entry).last;
        const library = pending.filter((frame) => isLibraryFrame(frame.map((line) => line.text).join(" "))).length;
        const where = library === pending.length ? "all in libraries" : library > 0 ? `${library} in libraries` : "none in libraries";
        output.push(marker(`    [${pending.length} more frames omitted, ${where} (${lineRange(first, last)})]`, first, last, BASE_PRIORITY.frame));
        this.collapsedFrames += pending.length;
        pending = [];
      };
      for (const frame of frames) {
        if (kept.has(frame)) {
          flush();
          output.push(...frame);
        } else pending.push(frame);
      }
      flush();
    }
    return output;
  }

  /** Runs of progress lines, and of lines of one shape, become first, counted marker, last. */
  private collapseRuns(entries: Entry[]): Entry[] {
    const output: Entry[] = [];
    let index = 0;
    while (index < entries.length) {
      const entry = entries[index] as Entry;
      const collapsible = entry.kind === "progress" || entry.kind === "ordinary" || entry.kind === "pass" || entry.kind === "warning" || entry.kind === "error";
      let end = index + 1;
      if (collapsible && entry.text.trim().length > 0) {
        const shape = entry.shape;
        const progress = entry.kind === "progress";
        while (end < entries.length) {
          const next = entries[end] as Entry;
          if (progress ? next.kind !== "progress" : next.kind !== entry.kind || next.shape !== shape) break;
          end += 1;
        }
      }
      const length = end - index;
      if (length < MIN_RUN) {
        output.push(entry);
        index += 1;
        continue;
      }
      const last = entries[end - 1] as Entry;
      const inner = entries.slice(index + 1, end - 1);
      const firstInner = (inner[0] as Entry).first;
      const lastInner = (inner[inner.length - 1] as Entry).last;
      const what = entry.kind === "progress" ? "progress lines" : "similar lines";
      if (entry.kind === "progress") this.collapsedProgress += inner.length;
      else this.collapsedRepeats += inner.length;
      output.push(entry, marker(`[${inner.length} ${what} omitted (${lineRange(firstInner, lastInner)})]`, firstInner, lastInner, entry.priority), last);
      index = end;
    }
    return output;
  }

  /** Raises the priority of the lines a reader needs around the important ones. */
  private prioritise(entries: Entry[]): void {
    let lastLine: Entry | undefined;
    entries.forEach((entry, index) => {
      // A step's last line is its result ("HEAD is now at …", "added 812 packages").
      if (entry.kind === "boundary" && isStepStart(entry.text) && lastLine !== undefined) lastLine.priority = Math.max(lastLine.priority, 3);
      if (entry.text.trim().length > 0 && entry.kind !== "boundary" && entry.kind !== "marker") lastLine = entry;
      if (entry.kind === "error") {
        for (const next of entries.slice(index + 1, index + 3)) next.priority = Math.max(next.priority, 3);
      }
    });
    entries.slice(0, HEAD_LINES).forEach((entry) => (entry.priority = Math.max(entry.priority, 3)));
    entries.slice(-TAIL_LINES).forEach((entry, offset, tail) => (entry.priority = Math.max(entry.priority, offset >= tail.length - 3 ? 6 : 4)));
  }

  private render(entries: readonly Entry[], keep: ReadonlySet<Entry> | undefined): string {
    const parts: string[] = [];
    let gapFirst = 0;
    let gapLast = 0;
    let passed = 0;
    const closeGap = (): void => {
      if (gapFirst === 0) return;
      parts.push(`[${lineRange(gapFirst, gapLast)} omitted${passed > 0 ? `, ${passed} of them passing tests` : ""}]`);
      gapFirst = 0;
      passed = 0;
    };
    for (const entry of entries) {
      if (keep !== undefined && !keep.has(entry)) {
        if (gapFirst === 0) gapFirst = entry.first;
        gapLast = entry.last;
        if (entry.kind === "pass") passed += 1;
        continue;
      }
      closeGap();
      parts.push(entry.text);
    }
    closeGap();
    return parts.join("\n");
  }

  /** Entries from most to least worth keeping: by priority, then nearest the start or the end. */
  private rank(entries: readonly Entry[]): Entry[] {
    const count = entries.length;
    return entries
      .map((entry, index) => ({ entry, index }))
      .filter(({ entry }) => entry.text.trim().length > 0)
      .sort((left, right) => right.entry.priority - left.entry.priority || Math.min(left.index, count - 1 - left.index) - Math.min(right.index, count - 1 - right.index))
      .map(({ entry }) => entry);
  }

  /** The most important entries that fit `budget` characters (before gap markers). */
  private select(entries: readonly Entry[], ranked: readonly Entry[], budget: number): Set<Entry> {
    const keep = new Set<Entry>();
    let used = 0;
    for (const entry of ranked) {
      const cost = entry.text.length + 1;
      if (used + cost > budget) continue;
      keep.add(entry);
      used += cost;
    }
    // A blank line is kept where it separates kept lines, so paragraphs of output stay apart.
    entries.forEach((entry, index) => {
      if (entry.text.trim().length === 0 && keep.has(entries[index - 1] as Entry) && keep.has(entries[index + 1] as Entry)) keep.add(entry);
    });
    return keep;
  }

  condense(text: string, maxChars: number): CondensedLog {
    const lines = text.split("\n");
    const entries = this.collapseRuns(this.collapseFrames(this.entries(lines)));
    this.prioritise(entries);
    let result = this.render(entries, undefined);
    let cut = false;
    if (result.length > maxChars) {
      cut = true;
      let budget = maxChars;
      const ranked = this.rank(entries);
      for (let attempt = 0; attempt < 8 && result.length > maxChars; attempt += 1) {
        const keep = this.select(entries, ranked, budget);
        result = this.render(entries, keep);
        budget -= Math.max(result.length - maxChars, 0) + Math.ceil(maxChars * 0.05);
      }
      const kept = result.split("\n").length;
      this.notes.add(`cut a log of ${lines.length} lines to about ${kept} (step boundaries, commands, errors, warnings, results and the last lines first)`);
    }
    if (this.collapsedProgress > 0) this.notes.add(`collapsed ${this.collapsedProgress} progress line(s) of a log`);
    if (this.collapsedRepeats > 0) this.notes.add(`collapsed ${this.collapsedRepeats} repeated log line(s) that differ only in numbers`);
    if (this.collapsedFrames > 0) this.notes.add(`collapsed ${this.collapsedFrames} stack frame(s) (first frames of each cause and app frames kept)`);
    if (this.strippedTimestamps > 0) this.notes.add(`dropped the timestamps of ${this.strippedTimestamps} ordinary log line(s)`);
    return { text: result, truncated: cut || this.collapsedProgress + this.collapsedRepeats + this.collapsedFrames > 0 };
  }
}

/**
 * Condenses a log to `maxChars` (see the module comment). Callers check `looksLikeLog` first;
 * the result may still exceed `maxChars` when the important lines alone do (the caller's final
 * cut bounds it).
 *
 * @param text - the log, line ends already `\n`, carriage-return redraws already replayed
 * @param maxChars - the character budget
 * @param notes - where what was done is noted
 */
export function condenseLog(text: string, maxChars: number, notes: Notes): CondensedLog {
  return new LogCondenser(notes).condense(text, maxChars);
}
