/**
 * Reading line-oriented logs (CI jobs, build output, `kubectl logs`, test runs, stack traces):
 * whether a text is one, what each line is (a step boundary, a command, an error, a warning, a
 * summary or result line, progress, a stack frame, or ordinary output), the shape two lines share
 * when only their counters differ, and carriage-return redraws. `condense-log.ts` decides what
 * to keep from these.
 *
 * The markers follow the tools' own formats: GitHub Actions workflow commands (`##[group]`,
 * `::group::`, `##[error]`, the `2024-05-01T12:00:00.0000000Z` line prefix), GitLab CI
 * `section_start:`/`section_end:`, Docker BuildKit steps (`#5 [2/6] RUN …`), Gradle `> Task :`,
 * Go test `=== RUN` / `--- FAIL:`, pytest `=== … ===` banners, Jest `PASS`/`FAIL` lines, klog
 * (`I0102 15:04:05.000000`).
 */

/** What a log line is, from most to least worth keeping. */
export type LogLineKind = "error" | "summary" | "boundary" | "warning" | "command" | "frame" | "pass" | "progress" | "ordinary";

/** Timestamp prefixes: ISO 8601 (GitHub Actions, Docker, most loggers), syslog, bare clock times. */
const TIMESTAMP_PREFIX =
  /^(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2}| ?UTC)?\]?|\[?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]?|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2})[ \t]/;
/** klog's prefix (Kubernetes components): its first letter is the level, so it is never stripped. */
const KLOG_PREFIX = /^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s/;
/** A step starting (not a group's header closing): the line before one is the previous step's last. */
const STEP_START = /^(?:##\[group\]|::group::|section_start:|Step \d+\/\d+\b|#\d+ \[|> Task :|=== RUN\b|={3,} .{1,120} ={3,}$)/;
const PASS = /^(?:PASS\s+\S|--- PASS:|ok\s+\S+\s+\d|\S+::\S+ PASSED\b|\s*✓ )/;
const LEVEL_PREFIX = /^\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|PANIC)\]?[\s:]/;
const CI_MARKER = /^(?:##\[(?:group|endgroup|section|command|error|warning|notice|debug)\]|::(?:group|endgroup|error|warning|notice|debug)\b|section_(?:start|end):\d+:)/;

const BOUNDARY =
  /^(?:##\[(?:group|endgroup|section)\]|::(?:group|endgroup)::|section_(?:start|end):\d+:|Step \d+\/\d+\b|#\d+ \[[^\]]*\d+\/\d+\]|> Task :|=== (?:RUN|PAUSE|CONT)\b|--- (?:PASS|FAIL|SKIP):|={3,} .{1,120} ={3,}$|-{3,} .{1,120} -{3,}$|(?:FAIL|SKIP)\s+\S|Post job cleanup|Cleaning up orphan processes|==> |-----> |\[\d+\/\d+\] \S|Stage:? \S)/;
const COMMAND = /^(?:##\[command\]|\$ \S|\+ \S|> \S|Run \S|Running command\b|Executing\b)/;
const ERROR =
  /^(?:##\[error\]|::error\b)|\b(?:error|errors|ERR!|exception|fatal|failed|failure|failures|panic|panicked|traceback|denied|refused|timed out|timeout|segmentation fault|assertion|AssertionError|FAIL|FAILED|killed|OOMKilled|CrashLoopBackOff|ImagePullBackOff|exit code [1-9]\d*|exit status [1-9]\d*)\b/i;
const WARNING = /^(?:##\[warning\]|::warning\b)|\b(?:warn|warning|warnings|deprecated|deprecation)\b/i;
const SUMMARY =
  /^(?:Tests?|Test Suites|Test Files|Snapshots|Time|Ran|Summary|Results?|Total|Totals|Coverage|Duration|Status)\b\s*[:\d]|\b(?:\d+ (?:passed|failed|skipped|errors?|warnings?|tests?|specs?|examples?|failures?|pending|todo|packages?|vulnerabilit(?:y|ies)|files? changed)|BUILD (?:SUCCESSFUL|FAILED|SUCCESS|FAILURE)|Done in \d|Finished\b|Compiled successfully|completed with exit code|exit(?:ed)? (?:with )?(?:code|status)|Job (?:succeeded|failed|cancelled)|succeeded|All checks passed|failures=\d|passed in \d|failed in \d)/i;
/** What every summary line holds (a cheap test first: SUMMARY's alternatives are many). */
const SUMMARY_HINT = /\d|BUILD|Finished|Compiled|succeeded|All checks/i;
const PROGRESS =
  /\d{1,3}(?:\.\d+)?\s?%|\[[=#>.\- ]{6,}\]|[█▉▊▋▌▍▎▏░▒▓■□]{3,}|\b\d+(?:\.\d+)?\s?(?:[kKMGT]i?B|B)\s*\/\s*\d+(?:\.\d+)?\s?(?:[kKMGT]i?B|B)\b|\beta[: ]\s*\d|\b\d+(?:\.\d+)?\s?(?:[kKMG]i?B|it|items?)\/s\b/;

/** Stack frames: JS/Java/C# `at …`, Python `File "…", line N`, Go `\tpath.go:N`, gdb `#3 0x…`, Java `... 12 more`. */
const FRAME = /^\s+at\s+\S|^\s+File "[^"]+", line \d+|^\s+\S+\.go:\d+|^\s*#\d+\s+0x[0-9a-f]+|^\s+\.\.\. \d+ more$|^\s+\d+: 0x[0-9a-f]+/;
/** Go's function line of a frame (`pkg/path.(*T).Method(0x0, 0xc0)`); tested only on lines ending in `)`. */
const GO_FUNCTION = /^(?:created by )?[\w./-]+(?:\.\(\*?\w+\))?\.\w+\([^()]*\)$/;

function isFrame(line: string): boolean {
  return FRAME.test(line) || (line.endsWith(")") && GO_FUNCTION.test(line));
}

/** Where a new cause of a stack trace begins. */
export const TRACE_CAUSE = /^\s*(?:Caused by:|During handling of the above exception|The above exception was the direct cause|Traceback \(most recent call last\):|goroutine \d+ \[)/;
/** A Python traceback lists the most recent call last: its last frames matter most. */
export const PYTHON_TRACE = /^\s*Traceback \(most recent call last\):/;
/** Frames inside libraries, runtimes and frameworks rather than the app's own code. */
const LIBRARY_FRAME =
  /node_modules|node:internal|\(internal\/|\(<anonymous>\)|site-packages|dist-packages|\/usr\/lib\/|\/lib\/python\d|\bat (?:java|javax|jdk|sun|kotlin|scala|org\.junit|org\.springframework|org\.apache|io\.netty|com\.sun)\.|\/go\/pkg\/mod\/|\/usr\/local\/go\/src\/|runtime\/|\.cargo\/registry|\/rustc\/|System\.Private|Microsoft\./;

/** The timestamp at the start of a line, or `""`. */
export function timestampPrefix(line: string): string {
  return TIMESTAMP_PREFIX.exec(line)?.[0] ?? "";
}

/** True for a line that starts a step (a CI group, a Docker build step, a Gradle task, a test run). */
export function isStepStart(body: string): boolean {
  return STEP_START.test(body);
}

/** Go's frame is two lines: the function, then `\tpath/file.go:N +0x…`. */
export function isGoFramePath(line: string): boolean {
  return /^\t\S+\.go:\d+/.test(line);
}

/** True for a stack frame line. */
export function isFrameLine(line: string): boolean {
  return isFrame(line);
}

/** True for a stack frame in a library, runtime or framework. */
export function isLibraryFrame(line: string): boolean {
  return LIBRARY_FRAME.test(line);
}

/**
 * What a line is. `body` is the line without its timestamp. An error outranks a summary (a
 * "2 failed" line is both), a summary a boundary, and so on down the list of {@link LogLineKind}.
 */
export function classifyLogLine(body: string): LogLineKind {
  if (body.length === 0) return "ordinary";
  // Only the start of a line is read: a 10 MB line costs no more than a short one.
  const head = body.length > 400 ? body.slice(0, 400) : body;
  if (isFrame(head)) return "frame";
  if (ERROR.test(head) && !/\b(?:0|no) (?:errors?|failures?|failed)\b/i.test(head)) return "error";
  if (SUMMARY_HINT.test(head) && SUMMARY.test(head)) return "summary";
  if (BOUNDARY.test(head)) return "boundary";
  if (WARNING.test(head) && !/\b(?:0|no) warnings?\b/i.test(head)) return "warning";
  if (COMMAND.test(head)) return "command";
  if (PASS.test(head)) return "pass";
  if (PROGRESS.test(head)) return "progress";
  return "ordinary";
}

/**
 * The shape of a line for spotting repeats: without its timestamp, with numbers, hex ids and
 * progress bars reduced to one symbol each, so "Downloaded 10 of 400" and "Downloaded 11 of 400"
 * share one.
 */
export function lineShape(body: string): string {
  return body
    .slice(0, 300)
    .replace(/\[[=#>.\- ]{3,}\]|[█▉▊▋▌▍▎▏░▒▓■□]+/g, "▮")
    .replace(/\b[0-9a-f]{7,}\b/gi, "#")
    .replace(/\d+(?:[.,]\d+)*/g, "#")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * True for a text that reads as a log: at least 12 lines, and a third of them carrying a
 * timestamp, a log level, a CI marker, a stack frame or progress; or two CI group markers; or
 * eight stack frames. A Markdown document or prose never qualifies on its headings alone.
 */
export function looksLikeLog(text: string): boolean {
  let lines = 0;
  let marked = 0;
  let groups = 0;
  let frames = 0;
  let start = 0;
  while (start < text.length && lines < 4000) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, Math.min(end, start + 300));
    start = end + 1;
    if (line.trim().length === 0) continue;
    lines += 1;
    const body = line.slice(timestampPrefix(line).length);
    if (CI_MARKER.test(body)) groups += 1;
    const frame = isFrame(line);
    if (frame) frames += 1;
    if (body.length < line.length || KLOG_PREFIX.test(line) || LEVEL_PREFIX.test(body) || CI_MARKER.test(body) || frame || PROGRESS.test(body) || BOUNDARY.test(body)) marked += 1;
  }
  if (lines < 12) return false;
  return groups >= 2 || frames >= 8 || marked / lines >= 0.33;
}

/**
 * Replays carriage-return redraws (a progress bar rewriting its line) the way a terminal shows
 * them: of `10%\r55%\r100%`, only `100%` stays. Only in a text that also has line feeds: in one
 * with none, a lone `\r` is an old Mac line end and becomes one.
 *
 * @returns the text with `\r\n` as `\n`, and how many redrawn segments were dropped
 */
export function replayCarriageReturns(text: string): { text: string; dropped: number } {
  if (!text.includes("\r")) return { text, dropped: 0 };
  const unified = text.replace(/\r\n/g, "\n");
  if (!unified.includes("\r")) return { text: unified, dropped: 0 };
  if (!unified.includes("\n")) return { text: unified.replace(/\r/g, "\n"), dropped: 0 };
  let dropped = 0;
  const lines = unified.split("\n").map((line) => {
    if (!line.includes("\r")) return line;
    const segments = line.split("\r").filter((segment) => segment.length > 0);
    dropped += Math.max(0, segments.length - 1);
    return segments[segments.length - 1] ?? "";
  });
  return { text: lines.join("\n"), dropped };
}
