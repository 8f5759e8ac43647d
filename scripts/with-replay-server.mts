// Runs one command against the examples' OpenAI-compatible replay server (examples/src/replay-server.ts):
// starts the server on 127.0.0.1 and a free port, runs the command with OPENAI_BASE_URL,
// OPENAI_API_KEY and OPENAI_MODEL pointing at it, closes the server and exits with the
// command's code. Used by scripts/check-docs.mjs (runnable doc snippets) and scripts/smoke.mjs
// (the README quick start in an app built from the tarballs).
//
//   npx tsx scripts/with-replay-server.mts [--outputs '["Final Answer: 4"]'] [--require-all-outputs] [--timeout-ms N] -- CMD ARGS…
//
// --outputs is a JSON array of scripted model outputs, served in order. When they run out (or
// none were given) every further request gets one fixed final answer, so a program that asks
// the model once more than scripted still ends. A command still running after --timeout-ms
// (default 60000) is killed and the exit code is 124. With --require-all-outputs, a command that
// exits 0 before requesting every scripted output fails with exit code 3 (the program did not
// take the path its docs describe).
import { spawn } from "node:child_process";
import { startReplayServer } from "../examples/src/replay-server";

const FALLBACK_OUTPUT = "Thought: I can answer from what I have.\nFinal Answer: Replay answer: the replay server has no more scripted outputs.";

function fail(message: string): never {
  process.stderr.write(`with-replay-server: ${message}\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const separator = argv.indexOf("--");
if (separator === -1 || separator === argv.length - 1) fail("usage: with-replay-server.mts [--outputs JSON] [--timeout-ms N] -- CMD ARGS…");
const own = argv.slice(0, separator);
const [command, ...args] = argv.slice(separator + 1) as [string, ...string[]];

let outputs: string[] = [];
let timeoutMs = 60_000;
let requireAllOutputs = false;
for (let index = 0; index < own.length; index += 1) {
  const flag = own[index];
  if (flag === "--require-all-outputs") {
    requireAllOutputs = true;
    continue;
  }
  const value = own[index + 1];
  if (value === undefined) fail(`${flag} needs a value`);
  index += 1;
  if (flag === "--outputs") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      fail(`--outputs is not JSON: ${(error as Error).message}`);
    }
    if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === "string")) fail("--outputs must be a JSON array of strings");
    outputs = parsed as string[];
  } else if (flag === "--timeout-ms") {
    timeoutMs = Number(value);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) fail(`--timeout-ms must be a positive integer, got ${value}`);
  } else {
    fail(`unknown option ${flag}`);
  }
}

const model = "reins-replay";
const server = await startReplayServer({ outputs, model, respond: () => FALLBACK_OUTPUT });
const child = spawn(command, args, {
  stdio: "inherit",
  env: { ...process.env, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "replay", OPENAI_MODEL: model },
});
let timedOut = false;
const timer = setTimeout(() => {
  timedOut = true;
  child.kill("SIGKILL");
}, timeoutMs);
const code = await new Promise<number>((resolve) => {
  child.on("error", (error) => {
    process.stderr.write(`with-replay-server: cannot start ${command}: ${error.message}\n`);
    resolve(127);
  });
  child.on("close", (exitCode) => resolve(exitCode ?? 1));
});
clearTimeout(timer);
await server.close();
if (timedOut) process.stderr.write(`with-replay-server: ${command} still running after ${timeoutMs} ms: killed\n`);
process.stderr.write(`with-replay-server: ${server.requests.length} model request(s) served, ${server.pending} scripted output(s) left\n`);
if (!timedOut && code === 0 && requireAllOutputs && server.pending > 0) {
  process.stderr.write(`with-replay-server: the command ended with ${server.pending} scripted output(s) never requested (--require-all-outputs)\n`);
  process.exit(3);
}
process.exit(timedOut ? 124 : code);
