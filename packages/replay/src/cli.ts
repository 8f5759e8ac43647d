/**
 * `reins-replay`: an OpenAI-compatible server (Chat Completions and the Responses API, text and
 * tool calls) answering with scripted replies or a recorded trajectory, so any app using the
 * OpenAI SDK, `ChatOpenAI` or a LangChain `"openai:…"` model runs without a key.
 *
 *   npx reins-replay [SCRIPT] [OPTIONS] -- CMD ARGS…   run CMD against it, exit with CMD's code
 *   npx reins-replay [SCRIPT] [OPTIONS]                serve until Ctrl-C, printing the base URL
 */
import { ReplayOptionsError, positiveInteger } from "./errors";
import { FALLBACK_OUTPUT, runWithReplayServer } from "./run-with-server";
import { startReplayServer, type ScriptedOutput } from "./replay-server";
import { parseScriptText, readScriptFile, readTrajectory } from "./script";

export const USAGE = `usage: reins-replay [SCRIPT] [OPTIONS] [-- CMD ARGS…]
  With CMD: runs it with OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL pointing at the server,
  then exits with its code. Without: serves until Ctrl-C and prints the base URL.
SCRIPT (the model's replies, in order; none: every request gets the fallback answer)
  --outputs JSON          a JSON array: ReAct text strings and/or {"toolCalls":[{"name","arguments"}],"content"?} turns
  --outputs-file FILE     the same array from a file
  --trajectory FILE       the llm_output of each turn of a recorded trajectory (one object or an array)
  --id ID                 which trajectory of FILE (default: the first)
OPTIONS
  --no-fallback           once the script is used up, answer HTTP 400 instead of a fixed final answer
  --require-all-outputs   exit 3 when CMD exits 0 before requesting every scripted reply
  --timeout-ms N          kill CMD after N ms, exit 124 (default 60000)
  --port N                port to bind on 127.0.0.1 (default: a free one)
  --model NAME            model id the server reports (default reins-replay)
`;

/** The parsed command line. */
export interface ReplayCliOptions {
  readonly outputs: ScriptedOutput[];
  readonly fallback: string | false;
  readonly requireAllOutputs: boolean;
  readonly timeoutMs: number;
  readonly port: number;
  readonly model: string;
  readonly command: [string, ...string[]] | undefined;
  /** What the script is, for the start-up line. */
  readonly source: string;
}

const VALUE_FLAGS = new Set(["--outputs", "--outputs-file", "--trajectory", "--id", "--timeout-ms", "--port", "--model"]);

function integer(flag: string, value: string, min: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min) throw new ReplayOptionsError(flag, `must be an integer ≥ ${min}, got ${value}`);
  return number;
}

/**
 * Parses `reins-replay`'s arguments.
 * @throws {ReplayOptionsError} naming the bad flag
 */
export function parseReplayArgs(argv: readonly string[]): ReplayCliOptions {
  const separator = argv.indexOf("--");
  const own = separator === -1 ? argv : argv.slice(0, separator);
  const rest = separator === -1 ? [] : argv.slice(separator + 1);
  if (separator !== -1 && rest.length === 0) throw new ReplayOptionsError("--", "needs a command after it");
  const values = new Map<string, string>();
  const switches = new Set<string>();
  for (let index = 0; index < own.length; index += 1) {
    const flag = own[index];
    if (flag === "--no-fallback" || flag === "--require-all-outputs") {
      switches.add(flag);
    } else if (VALUE_FLAGS.has(flag)) {
      const value = own[index + 1];
      if (value === undefined) throw new ReplayOptionsError(flag, "needs a value");
      values.set(flag, value);
      index += 1;
    } else {
      throw new ReplayOptionsError(flag, "unknown option (see --help)");
    }
  }
  const scripts = ["--outputs", "--outputs-file", "--trajectory"].filter((flag) => values.has(flag));
  if (scripts.length > 1) throw new ReplayOptionsError(scripts[1], `cannot be combined with ${scripts[0]}`);
  if (values.has("--id") && !values.has("--trajectory")) throw new ReplayOptionsError("--id", "needs --trajectory");
  let outputs: ScriptedOutput[] = [];
  let source = "no script (the fallback answer)";
  if (values.has("--outputs")) {
    outputs = parseScriptText("--outputs", values.get("--outputs")!);
    source = `${outputs.length} scripted output(s)`;
  } else if (values.has("--outputs-file")) {
    outputs = readScriptFile(values.get("--outputs-file")!);
    source = `${outputs.length} scripted output(s) from ${values.get("--outputs-file")}`;
  } else if (values.has("--trajectory")) {
    const trajectory = readTrajectory(values.get("--trajectory")!, values.get("--id"));
    outputs = trajectory.outputs;
    source = `trajectory "${trajectory.id}" (${outputs.length} model output(s)${trajectory.missing > 0 ? `, ${trajectory.missing} turn(s) without llm_output left out` : ""}; ${trajectory.available} in the file)`;
  }
  return {
    outputs,
    fallback: switches.has("--no-fallback") ? false : FALLBACK_OUTPUT,
    requireAllOutputs: switches.has("--require-all-outputs"),
    timeoutMs: values.has("--timeout-ms") ? positiveInteger("--timeout-ms", integer("--timeout-ms", values.get("--timeout-ms")!, 1), 1) : 60_000,
    port: values.has("--port") ? integer("--port", values.get("--port")!, 0) : 0,
    model: values.get("--model") ?? "reins-replay",
    command: rest.length > 0 ? (rest as [string, ...string[]]) : undefined,
    source,
  };
}

/** Standard streams and the signal to stop serving (Ctrl-C by default). */
export interface ReplayCliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Resolves when serve mode should stop. @default SIGINT or SIGTERM */
  readonly untilStopped?: Promise<void>;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** Runs `reins-replay`; resolves with the exit code (2 for a usage error). */
export async function runReplayCli(argv: readonly string[], io: ReplayCliIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout.write(USAGE);
    return 0;
  }
  let options: ReplayCliOptions;
  try {
    options = parseReplayArgs(argv);
  } catch (error) {
    if (!ReplayOptionsError.isInstance(error)) throw error;
    io.stderr.write(`reins-replay: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (options.command !== undefined) {
    const shown = options.command.join(" ");
    io.stderr.write(`reins-replay: serving ${options.source} to ${shown.length > 80 ? `${shown.slice(0, 79)}…` : shown}\n`);
    return runWithReplayServer({ ...options, command: options.command, log: (line) => io.stderr.write(`${line}\n`) });
  }
  const server = await startReplayServer({
    outputs: options.outputs,
    model: options.model,
    port: options.port,
    ...(options.fallback === false ? {} : { respond: () => options.fallback as string }),
  });
  io.stdout.write(`reins-replay: serving ${options.source} at ${server.baseURL} (Chat Completions and Responses API); Ctrl-C stops\n`);
  io.stdout.write(`  export OPENAI_BASE_URL=${server.baseURL} OPENAI_API_KEY=replay OPENAI_MODEL=${options.model}\n`);
  await (io.untilStopped ?? untilSignal());
  await server.close();
  io.stderr.write(`reins-replay: ${server.requests.length} model request(s) served, ${server.pending} scripted output(s) left\n`);
  return 0;
}

const invokedDirectly = typeof process !== "undefined" && /reins-replay(\.c?js)?$|replay[\\/]dist[\\/]cli\.(c|m)?js$/.test(process.argv[1] ?? "");
if (invokedDirectly) {
  runReplayCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`reins-replay: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
