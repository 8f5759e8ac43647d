// Runs one command against Reins' OpenAI-compatible replay server (@reins/replay, the engine of the
// `reins-replay` bin): starts the server on 127.0.0.1 and a free port, runs the command with
// OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL pointing at it, closes the server and exits with
// the command's code. Used by scripts/check-docs.mjs (runnable doc snippets) and scripts/smoke.mjs
// (the README quick starts in apps built from the tarballs).
//
//   npx tsx scripts/with-replay-server.mts [--outputs '["Final Answer: 4"]'] [--require-all-outputs] [--timeout-ms N] -- CMD ARGS…
//
// --outputs is a JSON array of scripted model outputs (ReAct text strings and/or tool-calling turns
// `{"toolCalls":[{"name","arguments"}],"content"?}`), served in order through Chat Completions or the
// Responses API. When they run out (or none were given) every further request gets one fixed final
// answer, so a program that asks the model once more than scripted still ends. A command still
// running after --timeout-ms (default 60000) is killed and the exit code is 124. With
// --require-all-outputs, a command that exits 0 before requesting every scripted output fails with
// exit code 3 (the program did not take the path its docs describe). The same as
// `npx reins-replay --outputs JSON [--require-all-outputs] [--timeout-ms N] -- CMD ARGS…` in an app.
import { runReplayCli } from "../packages/replay/src/cli";

const argv = process.argv.slice(2);
const separator = argv.indexOf("--");
const own = separator === -1 ? argv : argv.slice(0, separator);
const known = new Set(["--outputs", "--timeout-ms"]);
for (let index = 0; index < own.length; index += 1) {
  if (own[index] === "--require-all-outputs") continue;
  if (!known.has(own[index])) {
    process.stderr.write(`with-replay-server: unknown option ${own[index]}\nusage: with-replay-server.mts [--outputs JSON] [--require-all-outputs] [--timeout-ms N] -- CMD ARGS…\n`);
    process.exit(2);
  }
  index += 1;
}
if (separator === -1 || separator === argv.length - 1) {
  process.stderr.write("usage: with-replay-server.mts [--outputs JSON] [--require-all-outputs] [--timeout-ms N] -- CMD ARGS…\n");
  process.exit(2);
}
process.exit(await runReplayCli(argv, { stdout: process.stdout, stderr: process.stderr }));
