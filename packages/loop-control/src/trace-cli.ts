#!/usr/bin/env node
/**
 * `reins-trace`: renders a loop-control audit trail (JSONL, one record per step, as written by the
 * `audit` option or `npm run demo -- --audit FILE`) as a timeline a person can read: steps, tool
 * outcomes, repairs, warnings, the stop and its reason, timings. `--html` writes one
 * self-contained HTML page instead.
 */
import { readFile } from "node:fs/promises";
import { readAuditTrail, renderTimelineHtml, renderTimelineText, type AuditTrail } from "./trace-timeline";

/** Where the CLI reads and writes (injectable for tests). */
export interface TraceCliIo {
  readonly stdin: AsyncIterable<string | Uint8Array>;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Reads a file as UTF-8. @default fs.promises.readFile */
  readonly readFile?: (path: string) => Promise<string>;
}

const USAGE = `Usage: reins-trace [FILE | -] [--html] [--run RUN_ID] [--title TEXT]

Renders a Reins loop-control audit trail (JSONL) as a timeline per run. Reads FILE, or stdin when
FILE is "-" or absent.

  --html     print one self-contained HTML page (no script, nothing loaded) instead of text
  --run      only the run with this id
  --title    the HTML page title (default "Reins run trace")

Exit codes: 0 rendered; 1 some lines were not audit records (they are listed, the rest rendered);
2 bad usage, unreadable file, or no audit record at all.
`;

interface TraceArguments {
  readonly file: string | undefined;
  readonly html: boolean;
  readonly runId: string | undefined;
  readonly title: string | undefined;
}

function readArguments(argv: readonly string[]): TraceArguments | { help: true } | { error: string } {
  let file: string | undefined;
  let html = false;
  let runId: string | undefined;
  let title: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === "--help" || argument === "-h") return { help: true };
    if (argument === "--html") html = true;
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
  return { file, html, runId, title };
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

const invokedDirectly = typeof process !== "undefined" && /reins-trace|trace-cli\.(c|m)?[jt]s$/.test(process.argv[1] ?? "");
if (invokedDirectly) {
  runTraceCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`reins-trace: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
