#!/usr/bin/env node
/**
 * `reins-trace`: renders a loop-control audit trail (JSONL, one record per step, as written by the
 * `audit` option or `npm run demo -- --audit FILE`) as a timeline a person can read: steps, tool
 * outcomes, repairs, warnings, the stop and its reason, timings. `--html` writes one
 * self-contained HTML page instead.
 */
import { open, readFile } from "node:fs/promises";
import { AuditFollower } from "./trace-follow";
import { renderTimelineHtml } from "./trace-html";
import { readAuditTrail, type AuditTrail } from "./trace-read";
import { renderTimelineText } from "./trace-timeline";

/** Where the CLI reads and writes (injectable for tests). */
export interface TraceCliIo {
  readonly stdin: AsyncIterable<string | Uint8Array>;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Reads a file as UTF-8. @default fs.promises.readFile */
  readonly readFile?: (path: string) => Promise<string>;
  /** `--follow`: the bytes of a file from `offset` on, and its size. @default fs.promises.open + read */
  readonly readFrom?: (path: string, offset: number) => Promise<{ bytes: Uint8Array; size: number }>;
  /** `--follow`: waits between two reads. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** `--follow`: the clock of the progress lines. @default Date.now */
  readonly now?: () => number;
  /** `--follow` ends when this aborts (the bin aborts it on SIGINT/SIGTERM). */
  readonly signal?: AbortSignal;
}

/** How often `--follow` reads the file again, in milliseconds. */
export const FOLLOW_POLL_MS = 500;

const USAGE = `Usage: reins-trace [FILE | -] [--html] [--run RUN_ID] [--title TEXT]
       reins-trace --follow FILE [--run RUN_ID]

Renders a Reins loop-control audit trail (JSONL) as a timeline per run. Reads FILE, or stdin when
FILE is "-" or absent.

  --html     print one self-contained HTML page (no script, nothing loaded) instead of text:
             each run's question, steps, observations as the model received them and answer,
             a run picker and an outcome filter
  --run      only the run with this id
  --title    the HTML page title (default "Reins run trace")
  --follow   tail FILE as it grows (waits for it to appear): print each step when its record is
             written, and every 5 s while a run's next step is under way a line such as
             "… run R step 4 running 12 s" (a step is recorded when its tool call ends, so the
             line covers that step's model call and tool call). Ends on Ctrl-C.

Examples:
  npm run demo -- --audit /tmp/audit.jsonl & npx reins-trace --follow /tmp/audit.jsonl
  npx reins-trace /tmp/audit.jsonl --html > trace.html

Exit codes: 0 rendered; 1 some lines were not audit records (they are listed, the rest rendered);
2 bad usage, unreadable file, or no audit record at all.
`;

interface TraceArguments {
  readonly file: string | undefined;
  readonly html: boolean;
  readonly runId: string | undefined;
  readonly title: string | undefined;
  readonly follow: boolean;
}

function readArguments(argv: readonly string[]): TraceArguments | { help: true } | { error: string } {
  let file: string | undefined;
  let html = false;
  let runId: string | undefined;
  let title: string | undefined;
  let follow = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === "--help" || argument === "-h") return { help: true };
    if (argument === "--html") html = true;
    else if (argument === "--follow" || argument === "-f") follow = true;
    else if (argument === "--run" || argument === "--title") {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith("--")) return { error: `${argument} needs a value` };
      index += 1;
      if (argument === "--run") runId = value;
      else title = value;
    } else if (argument.startsWith("--")) return { error: `unknown option ${argument}` };
    else if (file !== undefined) return { error: `one input file only (got ${file} and ${argument})` };
    else file = argument;
  }
  if (follow && (file === undefined || file === "-")) return { error: "--follow needs a FILE (stdin cannot be followed)" };
  if (follow && html) return { error: "--follow prints text; render the HTML page once the run has ended" };
  return { file, html, runId, title, follow };
}

async function readAll(stream: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/**
 * Runs `reins-trace`.
 *
 * @param argv - the arguments after the program name
 * @param io - stdin, stdout, stderr and a file reader
 * @returns the exit code (see the usage text)
 */
export async function runTraceCli(argv: readonly string[], io: TraceCliIo): Promise<number> {
  const options = readArguments(argv);
  if ("help" in options) {
    io.stdout.write(USAGE);
    return 0;
  }
  if ("error" in options) {
    io.stderr.write(`reins-trace: ${options.error}\n${USAGE}`);
    return 2;
  }
  if (options.follow) return followTrail(options.file as string, options.runId, io);
  let text: string;
  try {
    text = options.file === undefined || options.file === "-" ? await readAll(io.stdin) : await (io.readFile ?? ((path: string) => readFile(path, "utf8")))(options.file);
  } catch (error) {
    io.stderr.write(`reins-trace: cannot read ${options.file}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const full = readAuditTrail(text);
  const trail: AuditTrail = options.runId === undefined ? full : { ...full, runs: full.runs.filter((run) => run.runId === options.runId) };
  if (trail.runs.length === 0) {
    const known = full.runs.map((run) => run.runId);
    io.stderr.write(
      options.runId !== undefined && known.length > 0
        ? `reins-trace: no run ${options.runId} in the trail. Runs: ${known.join(", ")}\n`
        : `reins-trace: no audit record (type "reins.loop_control.step") in ${options.file ?? "stdin"}${full.skipped.length > 0 ? `; ${full.skipped.length} line(s) skipped, first: line ${full.skipped[0].line}: ${full.skipped[0].reason}` : ""}\n`,
    );
    return 2;
  }
  io.stdout.write(options.html ? renderTimelineHtml(trail, options.title) : renderTimelineText(trail));
  if (full.skipped.length > 0) {
    for (const skipped of full.skipped) io.stderr.write(`reins-trace: skipped line ${skipped.line}: ${skipped.reason}\n`);
    return 1;
  }
  return 0;
}

async function readFromFile(path: string, offset: number): Promise<{ bytes: Uint8Array; size: number }> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    const length = Math.max(0, size - offset);
    const bytes = new Uint8Array(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await handle.read(bytes, read, length - read, offset + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { bytes: bytes.subarray(0, read), size };
  } finally {
    await handle.close();
  }
}

function sleepFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** `--follow`: reads `file` from where it left off every {@link FOLLOW_POLL_MS} until `io.signal` aborts. */
async function followTrail(file: string, runId: string | undefined, io: TraceCliIo): Promise<number> {
  const follower = new AuditFollower({ runId });
  const readFrom = io.readFrom ?? readFromFile;
  const sleep = io.sleep ?? ((ms: number) => sleepFor(ms, io.signal));
  const now = io.now ?? Date.now;
  let decoder = new TextDecoder();
  let offset = 0;
  let waiting = false;
  const write = (output: { out: string; err: string }): void => {
    if (output.out !== "") io.stdout.write(output.out);
    if (output.err !== "") io.stderr.write(output.err);
  };
  while (io.signal?.aborted !== true) {
    try {
      const { bytes, size } = await readFrom(file, offset);
      if (size < offset) {
        // Truncated or replaced: start again from its beginning.
        io.stderr.write(`reins-trace: ${file} got shorter; reading it from the start\n`);
        write(follower.end());
        offset = 0;
        decoder = new TextDecoder();
        continue;
      }
      waiting = false;
      offset += bytes.length;
      if (bytes.length > 0) write(follower.push(decoder.decode(bytes, { stream: true })));
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") {
        io.stderr.write(`reins-trace: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
        return 2;
      }
      if (!waiting) io.stderr.write(`reins-trace: waiting for ${file} to appear\n`);
      waiting = true;
    }
    const progress = follower.progress(now());
    if (progress !== "") io.stdout.write(progress);
    await sleep(FOLLOW_POLL_MS);
  }
  write(follower.push(decoder.decode()));
  write(follower.end());
  return follower.skipped > 0 ? 1 : 0;
}

const invokedDirectly = typeof process !== "undefined" && /reins-trace|trace-cli\.(c|m)?[jt]s$/.test(process.argv[1] ?? "");
if (invokedDirectly) {
  // Only a follow ends on Ctrl-C through the signal (it then flushes its last line); any other
  // use keeps Node's default, so Ctrl-C still ends a read of stdin.
  const stop = new AbortController();
  if (process.argv.includes("--follow") || process.argv.includes("-f")) {
    process.once("SIGINT", () => stop.abort());
    process.once("SIGTERM", () => stop.abort());
  }
  runTraceCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, signal: stop.signal }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`reins-trace: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
