/**
 * Runs one command against a replay server: starts it, runs the command with `OPENAI_BASE_URL`,
 * `OPENAI_API_KEY` and `OPENAI_MODEL` pointing at it (what the OpenAI SDK, `ChatOpenAI` and
 * LangChain's `"openai:…"` model strings read), closes the server and resolves with the command's
 * exit code. The engine of `reins-replay -- CMD` and of the repository's
 * `scripts/with-replay-server.mts`.
 */
import { spawn } from "node:child_process";
import { positiveInteger } from "./errors";
import { startReplayServer, type ScriptedOutput } from "./replay-server";

/** What every request gets once the script is used up (unless `fallback: false`): a ReAct final answer, also a plain text answer for a tool-calling agent. */
export const FALLBACK_OUTPUT = "Thought: I can answer from what I have.\nFinal Answer: Replay answer: the replay server has no more scripted outputs.";

/** Options of {@link runWithReplayServer}. */
export interface RunWithReplayServerOptions {
  /** The command and its arguments. */
  readonly command: readonly [string, ...string[]];
  /** @default [] */
  readonly outputs?: readonly ScriptedOutput[];
  /**
   * The answer once the script is used up; `false` answers HTTP 400 ("Replay script exhausted") instead.
   * @default FALLBACK_OUTPUT
   */
  readonly fallback?: string | false;
  /** Exit code 3 when the command exits 0 before requesting every scripted output. @default false */
  readonly requireAllOutputs?: boolean;
  /** A command still running after this many milliseconds is killed (exit code 124). @default 60000 */
  readonly timeoutMs?: number;
  /** @default "reins-replay" */
  readonly model?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** Where the one-line status messages go. @default process.stderr */
  readonly log?: (line: string) => void;
}

/**
 * Runs the command against a fresh replay server.
 * @returns the command's exit code; 124 when killed at `timeoutMs`; 127 when it cannot start; 3 for `requireAllOutputs` unmet
 * @throws {ReplayOptionsError} for a bad `timeoutMs`
 */
export async function runWithReplayServer(options: RunWithReplayServerOptions): Promise<number> {
  const timeoutMs = positiveInteger("timeoutMs", options.timeoutMs, 60_000);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const model = options.model ?? "reins-replay";
  const fallback = options.fallback ?? FALLBACK_OUTPUT;
  const server = await startReplayServer({
    outputs: options.outputs ?? [],
    model,
    port: options.port ?? 0,
    ...(fallback === false ? {} : { respond: () => fallback }),
  });
  const [command, ...args] = options.command;
  let timedOut = false;
  let code: number;
  try {
    const child = spawn(command, args, {
      stdio: "inherit",
      env: { ...process.env, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "replay", OPENAI_MODEL: model },
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    code = await new Promise<number>((resolve) => {
      child.on("error", (error) => {
        log(`reins-replay: cannot start ${command}: ${error.message}`);
        resolve(127);
      });
      child.on("close", (exitCode) => resolve(exitCode ?? 1));
    });
    clearTimeout(timer);
  } finally {
    await server.close();
  }
  if (timedOut) log(`reins-replay: ${command} still running after ${timeoutMs} ms: killed`);
  log(`reins-replay: ${server.requests.length} model request(s) served, ${server.pending} scripted output(s) left`);
  if (timedOut) return 124;
  if (code === 0 && options.requireAllOutputs === true && server.pending > 0) {
    log(`reins-replay: the command ended with ${server.pending} scripted output(s) never requested (--require-all-outputs)`);
    return 3;
  }
  return code;
}
