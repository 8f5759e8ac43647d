/**
 * `npm run replay -- FILE [--baseline]` — replays recorded trajectories through the stock
 * AgentExecutor with Reins' createReactAgent (and, with --baseline, LangChain's own beside it)
 * and prints what each run reached.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { formatReplayReport, goalSummary, loadTrajectories, replayAll } from "./replay-runner";

async function main(argv: readonly string[]): Promise<number> {
  const baseline = argv.includes("--baseline");
  const files = argv.filter((arg) => !arg.startsWith("--"));
  if (files.length !== 1) {
    process.stderr.write("usage: npm run replay -- FILE [--baseline]\n  FILE: a trajectories JSON file (e.g. ../shared/fixtures/trajectories/trajectories.json)\n");
    return 2;
  }
  // npm runs workspace scripts from the workspace folder; resolve relative paths from where the user typed.
  const file = path.resolve(process.env.INIT_CWD ?? process.cwd(), files[0]);
  if (!existsSync(file)) {
    // One line, no stack: the usual cause is a clone without ../shared beside it.
    process.stderr.write(`replay: no file ${file}${/[\\/]shared[\\/]/.test(file) ? " (the recorded trajectories live in ../shared, beside the clone; it is not there)" : ""}\n`);
    return 2;
  }
  const trajectories = loadTrajectories(file);
  process.stdout.write(`Replaying ${trajectories.length} trajectories from ${file}${baseline ? " (with the stock baseline)" : ""}\n`);
  const replays = await replayAll(trajectories, { baseline });
  process.stdout.write(formatReplayReport(replays));
  const goal = goalSummary(replays, "reins");
  return goal.reached === goal.eligible && goal.crashed === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // One line: a bad file is named by loadTrajectories; REINS_DEBUG=1 adds the stack.
    const detail = error instanceof Error ? (process.env.REINS_DEBUG === "1" ? (error.stack ?? error.message) : error.message) : String(error);
    process.stderr.write(`replay failed: ${detail}\n`);
    process.exitCode = 1;
  },
);
