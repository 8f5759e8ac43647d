// Keeps the worst-case times that README.md and the package READMEs state honest: each figure is
// recomputed here from the default constants, and the documents must state exactly that figure.
import { readFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_LOOP_CONTROL_OPTIONS } from "@reins/loop-control";
import { DEFAULT_REACT_AGENT_OPTIONS } from "@reins/react-agent";
import { DEFAULT_RETRY_OPTIONS, DEFAULT_TOOL_POLICY } from "@reins/tool-executor";

const root = path.resolve(__dirname, "../../..");
const read = (file: string): string => readFileSync(path.join(root, file), "utf8");
const seconds = (ms: number): string => `${ms / 1000} s`;

const policy = DEFAULT_TOOL_POLICY as Required<Pick<typeof DEFAULT_TOOL_POLICY, "timeoutMs" | "deadlineMs" | "idempotent">>;
const retry = DEFAULT_RETRY_OPTIONS;
const agentMaxSteps = (DEFAULT_REACT_AGENT_OPTIONS.loopControl as { maxSteps: number }).maxSteps;
const handlerMaxSteps = DEFAULT_LOOP_CONTROL_OPTIONS.maxSteps;
const maxDurationMs = DEFAULT_LOOP_CONTROL_OPTIONS.maxDurationMs;

/** One call: the whole-call deadline, or every attempt and backoff when that is shorter. */
const withoutDeadlineMs = retry.maxAttempts * policy.timeoutMs + (retry.maxAttempts - 1) * retry.maxDelayMs;
const oneCallMs = Math.min(policy.deadlineMs, withoutDeadlineMs);

/** The README row whose first cell is `what`, split into its cells. */
function row(markdown: string, what: string): string[] {
  const line = markdown.split("\n").find((l) => l.startsWith(`| ${what} |`));
  if (line === undefined) throw new Error(`README.md has no defaults row "${what}"`);
  return line.split(" | ").map((cell) => cell.replace(/^\|\s*|\s*\|$/g, ""));
}

describe("the worst-case times the READMEs state", () => {
  it("are computed from constants that still have the values the tables name", () => {
    // A changed default must change the doc: these are the inputs the README lists.
    expect(policy.idempotent).toBe(false);
    expect(oneCallMs).toBe(policy.deadlineMs);
    expect(Number.isFinite(maxDurationMs)).toBe(true);
    expect(agentMaxSteps * oneCallMs).toBeLessThan(maxDurationMs);
  });

  const readme = read("README.md");

  it("README.md: one tool call, with and without deadlineMs", () => {
    const [, defaults, worst] = row(readme, "one tool call");
    expect(defaults).toContain(`\`timeoutMs\` ${seconds(policy.timeoutMs)} per attempt`);
    expect(defaults).toContain(`\`retry.maxAttempts\` ${retry.maxAttempts}`);
    expect(defaults).toContain(`backoff ${retry.initialDelayMs} ms base / ${seconds(retry.maxDelayMs)} cap`);
    expect(defaults).toContain(`\`deadlineMs\` ${seconds(policy.deadlineMs)}`);
    expect(worst).toContain(`**${seconds(oneCallMs)}**`);
    const [, steps, saved] = row(readme, "the same call without `deadlineMs`");
    expect(steps).toBe(`${retry.maxAttempts} attempts × ${seconds(policy.timeoutMs)} + ${retry.maxAttempts - 1} backoffs × ${seconds(retry.maxDelayMs)}`);
    expect(saved).toContain(seconds(withoutDeadlineMs));
  });

  it("README.md: the tool time of one run and the run's budget", () => {
    const [, agentSteps, agentWorst] = row(readme, "the tool calls of one run (`createReactAgent`)");
    expect(agentSteps).toBe(`\`loopControl.maxSteps\` ${agentMaxSteps}`);
    expect(agentWorst).toBe(`${agentMaxSteps} × ${seconds(oneCallMs)} = **${seconds(agentMaxSteps * oneCallMs)}**`);
    const [, handlerSteps, handlerWorst] = row(readme, "the tool calls of one run (`LoopControlHandler` alone)");
    expect(handlerSteps).toBe(`\`maxSteps\` ${handlerMaxSteps}`);
    expect(handlerWorst).toBe(`${handlerMaxSteps} × ${seconds(oneCallMs)} = ${seconds(handlerMaxSteps * oneCallMs)}`);
    const [, budget, runWorst] = row(readme, "one run");
    expect(budget).toContain(`\`loopControl.maxDurationMs\` ${seconds(maxDurationMs)}`);
    expect(runWorst).toContain(`**${seconds(maxDurationMs)}**, plus the model call in flight`);
    const [, modelDefaults, modelWorst] = row(readme, "one model call");
    expect(modelDefaults).toBe("none from Reins");
    expect(modelWorst).toContain("unbounded");
  });

  it("packages/tool-executor/README.md states the same call times", () => {
    const doc = read("packages/tool-executor/README.md").replace(/\s+/g, " ");
    expect(doc).toContain(`one call takes at most **${seconds(oneCallMs)}** (\`deadlineMs\`)`);
    expect(doc).toContain(`${retry.maxAttempts} attempts × ${seconds(policy.timeoutMs)} + ${retry.maxAttempts - 1} backoffs × ${seconds(retry.maxDelayMs)} = ${seconds(withoutDeadlineMs)}`);
    expect(doc).toContain(`\`maxDurationMs\` (${seconds(maxDurationMs)} by default`);
  });

  it("packages/react-agent/README.md states the same call and run times", () => {
    const doc = read("packages/react-agent/README.md").replace(/\s+/g, " ");
    expect(doc).toContain(`one tool call takes at most **${seconds(oneCallMs)}** (\`deadlineMs\`)`);
    expect(doc).toContain(`at most ${agentMaxSteps} × ${seconds(oneCallMs)} = **${seconds(agentMaxSteps * oneCallMs)}**`);
    expect(doc).toContain(`one run at most **${seconds(maxDurationMs)}** (\`maxDurationMs\`)`);
  });
});
