/**
 * Replays recorded ReAct trajectories (format of `shared/fixtures/trajectories/trajectories.json`)
 * through the stock `AgentExecutor`: the model returns each turn's recorded `llm_output` in order,
 * each tool returns the recorded observations in order (whatever the run does), and the outcome is
 * compared with the recorded final answer — for Reins' `createReactAgent` and, as a baseline, the
 * stock one, in the same process.
 */
import { readFileSync } from "node:fs";
import { AgentExecutor, createReactAgent as createStockReactAgent } from "@langchain/classic/agents";
import { DynamicTool } from "@langchain/core/tools";
import { createReactAgent } from "@reins/react-agent";
import { createReactPrompt } from "./react-prompt";
import { ScriptedChatModel, ScriptExhaustedError } from "@reins/testing";

/** One recorded turn. */
export interface TrajectoryTurn {
  /** The exact text the model produced (`null` when the recording lacks it). */
  readonly llm_output: string | null;
  /** What the tool (or the executor) answered; `null` after a final answer. */
  readonly observation: string | null;
}

/** One recorded run. */
export interface Trajectory {
  readonly id: string;
  readonly tools: readonly string[];
  readonly question: string;
  readonly format_variant: string;
  readonly turns: readonly TrajectoryTurn[];
  readonly final_answer: string | null;
  readonly failure_tags: readonly string[];
}

/** How a replayed run ended. */
export type ReplayVerdict = "reached" | "different_answer" | "stopped" | "ran_out" | "crashed";

/** One replayed run. */
export interface ReplayRun {
  readonly verdict: ReplayVerdict;
  /** The answer, the stop reason or the error message. */
  readonly detail: string;
  readonly modelCalls: number;
  readonly toolCalls: number;
  /** Loop-control warnings the run got (Reins only; 0 for the stock agent). */
  readonly loopWarnings: number;
}

/** One trajectory's replay, with Reins and (optionally) the stock agent. */
export interface TrajectoryReplay {
  readonly id: string;
  readonly formatVariant: string;
  /** Whether the goal applies: a text format, a recorded final answer, no loop tag. */
  readonly inGoal: boolean;
  readonly reins: ReplayRun;
  readonly stock?: ReplayRun;
}

/** Formats whose model output is ReAct text (the goal's scope). */
export const TEXT_FORMATS: readonly string[] = Object.freeze([
  "mrkl_classic",
  "conversational_do_i_need_a_tool",
  "llamaindex_react",
  "paper_style_in_langchain",
]);

/** Failure tags marking a recorded loop. */
export const LOOP_TAGS: readonly string[] = Object.freeze(["repeated_identical_action_loop", "cyclic_action_loop"]);

/** The iteration cap both executors get (LangChain's default). */
export const REPLAY_MAX_ITERATIONS = 15;

const NO_RECORDING_LEFT = "(no recorded observation left)";

/**
 * Reads a trajectories file.
 * @throws {Error} when the file is not a JSON array of trajectories (naming the first bad entry)
 */
export function loadTrajectories(file: string): Trajectory[] {
  const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
  if (!Array.isArray(parsed)) throw new Error(`${file}: expected a JSON array of trajectories`);
  parsed.forEach((entry: unknown, index) => {
    const candidate = entry as Partial<Trajectory> | null;
    if (candidate === null || typeof candidate !== "object" || typeof candidate.id !== "string" || !Array.isArray(candidate.turns) || !Array.isArray(candidate.tools)) {
      throw new Error(`${file}: entry ${index} is not a trajectory (needs id, tools, turns)`);
    }
  });
  return parsed as Trajectory[];
}

/** Whether the goal applies to a trajectory (text format, recording ends in a final answer, no loop tag). */
export function isInGoal(trajectory: Trajectory): boolean {
  const last = trajectory.turns[trajectory.turns.length - 1];
  return (
    TEXT_FORMATS.includes(trajectory.format_variant) &&
    trajectory.final_answer !== null &&
    last !== undefined &&
    last.llm_output !== null &&
    !trajectory.failure_tags.some((tag) => LOOP_TAGS.includes(tag))
  );
}

/** The tool name a trajectory lists: `Search[entity]` is the tool `Search`. */
export function toolNameOf(listed: string): string {
  const bracket = listed.indexOf("[");
  return (bracket === -1 ? listed : listed.slice(0, bracket)).trim();
}

function normaliseAnswer(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Tools answering the recorded observations in order, shared by every tool of the run. */
function recordedTools(trajectory: Trajectory): { tools: DynamicTool[]; calls: () => number } {
  const observations = trajectory.turns.map((turn) => turn.observation).filter((observation): observation is string => observation !== null);
  let next = 0;
  let calls = 0;
  const names = [...new Set(trajectory.tools.map(toolNameOf))].filter((name) => name.length > 0 && name.toLowerCase() !== "finish");
  const tools = names.map(
    (name) =>
      new DynamicTool({
        name,
        description: `Recorded tool "${name}": answers with the recorded observations.`,
        func: async () => {
          calls += 1;
          const observation = observations[next];
          next += 1;
          return observation ?? NO_RECORDING_LEFT;
        },
      }),
  );
  return { tools, calls: () => calls };
}

function judge(trajectory: Trajectory, result: Record<string, unknown>, counts: Pick<ReplayRun, "modelCalls" | "toolCalls" | "loopWarnings">): ReplayRun {
  const output = typeof result.output === "string" ? result.output : JSON.stringify(result.output);
  const stopReason = typeof result.stopReason === "string" ? result.stopReason : undefined;
  if (stopReason !== undefined && stopReason !== "final_answer") {
    return { verdict: "stopped", detail: stopReason, ...counts };
  }
  if (/^Agent stopped due to (max iterations|iteration limit)/.test(output)) {
    return { verdict: "stopped", detail: "max_iterations", ...counts };
  }
  if (trajectory.final_answer !== null && normaliseAnswer(output) === normaliseAnswer(trajectory.final_answer)) {
    return { verdict: "reached", detail: output, ...counts };
  }
  return { verdict: "different_answer", detail: output, ...counts };
}

/**
 * Replays one trajectory with one agent.
 *
 * @param trajectory - the recording
 * @param kind - `"reins"` (Reins' createReactAgent with every piece on) or `"stock"` (LangChain's)
 */
export async function replayTrajectory(trajectory: Trajectory, kind: "reins" | "stock"): Promise<ReplayRun> {
  const outputs = trajectory.turns.map((turn) => turn.llm_output).filter((output): output is string => output !== null);
  // A recording with a missing turn stops there: the replay cannot know what the model wrote.
  const firstMissing = trajectory.turns.findIndex((turn) => turn.llm_output === null);
  const script = firstMissing === -1 ? outputs : outputs.slice(0, firstMissing);
  const llm = new ScriptedChatModel({ replies: script });
  const { tools, calls } = recordedTools(trajectory);
  const prompt = createReactPrompt();
  let loopWarnings = 0;
  const counts = () => ({ modelCalls: llm.callCount, toolCalls: calls(), loopWarnings });
  try {
    let result: Record<string, unknown>;
    if (kind === "reins") {
      const agent = await createReactAgent({
        llm,
        tools,
        prompt,
        onEvent: (event) => {
          if (event.type === "loop_detection" && event.level === "warn") loopWarnings += 1;
        },
      });
      const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true, maxIterations: REPLAY_MAX_ITERATIONS });
      result = await executor.invoke({ input: trajectory.question }, { callbacks: agent.callbacks });
    } else {
      const agent = await createStockReactAgent({ llm, tools, prompt });
      const executor = new AgentExecutor({ agent, tools, handleParsingErrors: true, maxIterations: REPLAY_MAX_ITERATIONS });
      result = await executor.invoke({ input: trajectory.question });
    }
    return judge(trajectory, result, counts());
  } catch (error) {
    if (ScriptExhaustedError.isInstance(error)) {
      return { verdict: "ran_out", detail: `model called ${llm.callCount} times, ${script.length} recorded`, ...counts() };
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { verdict: "crashed", detail: message.split("\n")[0], ...counts() };
  }
}

/**
 * Replays every trajectory with Reins and, with `baseline`, the stock agent too.
 *
 * @param trajectories - the recordings
 * @param options - `baseline: true` adds the stock column
 */
export async function replayAll(trajectories: readonly Trajectory[], options: { baseline?: boolean } = {}): Promise<TrajectoryReplay[]> {
  const replays: TrajectoryReplay[] = [];
  for (const trajectory of trajectories) {
    const reins = await replayTrajectory(trajectory, "reins");
    const stock = options.baseline === true ? await replayTrajectory(trajectory, "stock") : undefined;
    replays.push({ id: trajectory.id, formatVariant: trajectory.format_variant, inGoal: isInGoal(trajectory), reins, ...(stock !== undefined ? { stock } : {}) });
  }
  return replays;
}

const VERDICT_LABELS: Readonly<Record<ReplayVerdict, string>> = Object.freeze({
  reached: "reached the recorded answer",
  different_answer: "different answer",
  stopped: "stopped",
  ran_out: "ran out of recorded turns",
  crashed: "crashed",
});

const VERDICTS: readonly ReplayVerdict[] = ["reached", "different_answer", "stopped", "ran_out", "crashed"];

function describeRun(run: ReplayRun): string {
  const mark = run.verdict === "reached" ? "✓" : run.verdict === "crashed" ? "✗" : "·";
  const detail = run.verdict === "stopped" ? ` (${run.detail})` : run.verdict === "crashed" || run.verdict === "different_answer" ? `: ${run.detail.slice(0, 60)}` : "";
  const warned = run.loopWarnings > 0 ? ` [loop warned ${run.loopWarnings}×]` : "";
  return `${mark} ${VERDICT_LABELS[run.verdict]}${detail}${warned}`;
}

function tally(runs: readonly ReplayRun[]): string {
  return VERDICTS.map((verdict) => `${runs.filter((run) => run.verdict === verdict).length} ${VERDICT_LABELS[verdict]}`).join(", ");
}

/** Counts of the goal: in-goal trajectories, how many reached their answer, how many crashed. */
export interface GoalSummary {
  readonly eligible: number;
  readonly reached: number;
  readonly crashed: number;
}

/** The goal's numbers for one column. */
export function goalSummary(replays: readonly TrajectoryReplay[], column: "reins" | "stock"): GoalSummary {
  const eligible = replays.filter((replay) => replay.inGoal && replay[column] !== undefined);
  return {
    eligible: eligible.length,
    reached: eligible.filter((replay) => replay[column]?.verdict === "reached").length,
    crashed: eligible.filter((replay) => replay[column]?.verdict === "crashed").length,
  };
}

/**
 * The report the CLI prints: per trajectory grouped by format (Reins, then stock beside it),
 * totals per format and overall, and the goal line.
 */
export function formatReplayReport(replays: readonly TrajectoryReplay[]): string {
  const baseline = replays.some((replay) => replay.stock !== undefined);
  const lines: string[] = [];
  const formats = [...new Set(replays.map((replay) => replay.formatVariant))];
  formats.sort((a, b) => Number(!TEXT_FORMATS.includes(a)) - Number(!TEXT_FORMATS.includes(b)) || a.localeCompare(b));
  const width = Math.max(...replays.map((replay) => replay.id.length)) + 2;
  for (const format of formats) {
    const group = replays.filter((replay) => replay.formatVariant === format);
    lines.push("", `━━ ${format} (${group.length})${TEXT_FORMATS.includes(format) ? " — text format" : ""}`);
    lines.push(`   ${"trajectory".padEnd(width)}${"Reins".padEnd(58)}${baseline ? "stock createReactAgent" : ""}`);
    for (const replay of group) {
      const goal = replay.inGoal ? "*" : " ";
      lines.push(` ${goal} ${replay.id.padEnd(width)}${describeRun(replay.reins).padEnd(58)}${replay.stock !== undefined ? describeRun(replay.stock) : ""}`);
    }
    lines.push(`   Reins: ${tally(group.map((replay) => replay.reins))}`);
    if (baseline) lines.push(`   stock: ${tally(group.flatMap((replay) => (replay.stock !== undefined ? [replay.stock] : [])))}`);
  }
  lines.push("", `━━ Totals (${replays.length} trajectories)`);
  lines.push(`   Reins: ${tally(replays.map((replay) => replay.reins))}`);
  if (baseline) lines.push(`   stock: ${tally(replays.flatMap((replay) => (replay.stock !== undefined ? [replay.stock] : [])))}`);
  const textReplays = replays.filter((replay) => TEXT_FORMATS.includes(replay.formatVariant));
  lines.push(`   text formats, Reins: ${tally(textReplays.map((replay) => replay.reins))}`);
  if (baseline) lines.push(`   text formats, stock: ${tally(textReplays.flatMap((replay) => (replay.stock !== undefined ? [replay.stock] : [])))}`);
  const reins = goalSummary(replays, "reins");
  lines.push("", `Goal (* = text format, recording ends in a final answer, no loop tag): Reins reached ${reins.reached}/${reins.eligible}, crashed ${reins.crashed}` + (baseline ? `; stock reached ${goalSummary(replays, "stock").reached}/${reins.eligible}, crashed ${goalSummary(replays, "stock").crashed}` : ""));
  return `${lines.join("\n")}\n`;
}
