import { readFileSync } from "node:fs";
import { describeWithShared, sharedPath } from "@reins/testing";
import { matchReActLabel, stableStringify, type ReinsEvent } from "@reins/core";
import { LoopControlHandler } from "./index";
import { RunDriver } from "./__fixtures__/run-driver";

interface Trajectory {
  readonly id: string;
  readonly tools: readonly string[];
  readonly turns: ReadonlyArray<{ readonly llm_output: string; readonly observation: string | null }>;
  readonly failure_tags: readonly string[];
}

const TRAJECTORIES = "fixtures/trajectories/trajectories.json";

const LOOP_TAGS = ["repeated_identical_action_loop", "cyclic_action_loop"];

/**
 * A rough reading of a recorded step's action (not the Reins parser): XML tags, a JSON action
 * blob, `Action:`/`Action Input:` labels (value on the next line when the label line is empty),
 * or a paper-style `Tool[input]`. `undefined` when no action is found (a parse error).
 */
function readAction(text: string): { tool: string; toolInput: string } | undefined {
  const xml = /<tool>([\s\S]*?)<\/tool>\s*<tool_input>([\s\S]*)/.exec(text);
  if (xml) return { tool: xml[1].trim(), toolInput: xml[2].replace(/<\/tool_input>[\s\S]*/, "").trim() };
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start >= 0 && end > start) {
    try {
      const blob = JSON.parse(text.slice(start, end + 1)) as { action?: unknown; action_input?: unknown };
      if (typeof blob.action === "string") {
        return { tool: blob.action, toolInput: typeof blob.action_input === "string" ? blob.action_input : stableStringify(blob.action_input) };
      }
    } catch {
      // Not a JSON blob: read labels below.
    }
  }
  const lines = text.split("\n");
  let tool: string | undefined;
  let toolInput: string | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    const match = matchReActLabel(lines[index]);
    if (match?.label === "action" && tool === undefined) {
      let value = match.value.trim();
      while (value.length === 0 && index + 1 < lines.length) value = lines[++index].trim();
      tool = value;
    } else if (match?.label === "action_input" && toolInput === undefined) {
      toolInput = match.value.trim();
    }
  }
  const candidate = tool ?? lines.map((line) => line.trim()).find((line) => /^\w+\[.*\]$/.test(line));
  if (candidate === undefined || candidate.length === 0) return undefined;
  const paper = /^(\w+)\[(.*)\]$/.exec(candidate);
  if (paper) return { tool: paper[1], toolInput: paper[2] };
  return { tool: candidate, toolInput: toolInput ?? "" };
}

interface ReplayOutcome {
  readonly id: string;
  readonly loopTagged: boolean;
  readonly detections: string[];
  readonly stopReason?: string;
  readonly stoppedAtTurn?: number;
  readonly turns: number;
}

/** Feeds a trajectory's steps to a finish-mode handler, ending the run once it decides to stop. */
async function replay(trajectory: Trajectory): Promise<ReplayOutcome> {
  const events: ReinsEvent[] = [];
  const handler = new LoopControlHandler({ mode: "finish", onEvent: (event) => events.push(event) });
  const driver = new RunDriver(handler, trajectory.id);
  await driver.start();
  const knownTools = new Set(trajectory.tools.map((tool) => tool.toLowerCase()));
  let stoppedAtTurn: number | undefined;
  for (let index = 0; index < trajectory.turns.length; index += 1) {
    const turn = trajectory.turns[index];
    const isLast = index === trajectory.turns.length - 1;
    if (isLast && (turn.observation === null || turn.observation === "")) break;
    const action = readAction(turn.llm_output) ?? { tool: "_Exception", toolInput: turn.observation ?? "" };
    const step = { ...action, log: turn.llm_output, observation: turn.observation ?? "" };
    await driver.plan(step);
    // AgentExecutor runs no tool for an unknown tool name: the handler sees no observation then.
    if (action.tool === "_Exception" || knownTools.has(action.tool.toLowerCase())) await driver.act(step);
    if (handler.runContext.contextOf(trajectory.id)?.loop.stop !== undefined) {
      stoppedAtTurn = index + 1;
      break;
    }
  }
  const stop = handler.runContext.contextOf(trajectory.id)?.loop.stop;
  await driver.finish("final", stop === undefined ? {} : { stopReason: stop.reason });
  expect(handler.runContext.size).toBe(0);
  return {
    id: trajectory.id,
    loopTagged: trajectory.failure_tags.some((tag) => LOOP_TAGS.includes(tag)),
    detections: events.flatMap((event) => (event.type === "loop_detection" ? [`${event.kind}:${event.level}`] : [])),
    ...(stop !== undefined ? { stopReason: stop.reason, stoppedAtTurn } : {}),
    turns: trajectory.turns.length,
  };
}

describe("LoopControlHandler", () => {
  describeWithShared([TRAJECTORIES], "on the recorded trajectories in shared/fixtures/trajectories", () => {
    const trajectories = JSON.parse(readFileSync(sharedPath(TRAJECTORIES), "utf8")) as Trajectory[];
    let outcomes: ReplayOutcome[];
    beforeAll(async () => {
      outcomes = [];
      for (const trajectory of trajectories) outcomes.push(await replay(trajectory));
    });

    it("reads all 48 trajectories, 7 of them tagged as loops", () => {
      expect(outcomes).toHaveLength(48);
      expect(outcomes.filter((outcome) => outcome.loopTagged)).toHaveLength(7);
    });

    /** Per call (tool and input), the observations it got, in order. */
    function resultsByCall(trajectory: Trajectory): Map<string, string[]> {
      const results = new Map<string, string[]>();
      for (const turn of trajectory.turns.slice(0, -1)) {
        const action = readAction(turn.llm_output);
        if (action === undefined) continue;
        const key = `${action.tool}|${action.toolInput}`;
        results.set(key, [...(results.get(key) ?? []), turn.observation ?? ""]);
      }
      return results;
    }

    it("warns or stops every trajectory tagged repeated_identical_action_loop or cyclic_action_loop, except those whose every call repeats at most twice", () => {
      // A repeat is the same call that got the same result: a call made twice is not flagged yet
      // (the warning comes with the call after two equal results), so loops that never repeat a
      // call a third time (or cycle three times) go by.
      const missed = outcomes.filter((outcome) => outcome.loopTagged && outcome.detections.length === 0).map((outcome) => outcome.id);
      for (const id of missed) {
        const trajectory = trajectories.find((candidate) => candidate.id === id) as Trajectory;
        expect(Math.max(0, ...[...resultsByCall(trajectory).values()].map((results) => results.length))).toBeLessThanOrEqual(2);
      }
      expect(missed).toEqual(["lc-samwit-california-file-loop", "reflexion-hotpot-google-stupid-halted"]);
    });

    it("stops, before its recorded end, every loop-tagged trajectory that makes a call again after it returned the same result 3 times", () => {
      const repeated = trajectories.filter((trajectory) =>
        [...resultsByCall(trajectory).values()].some((results) => results.length >= 4 && new Set(results.slice(0, 3)).size === 1),
      );
      expect(repeated.length).toBeGreaterThan(0);
      for (const trajectory of repeated) {
        const outcome = outcomes.find((candidate) => candidate.id === trajectory.id);
        expect(outcome?.loopTagged).toBe(true);
        expect(outcome?.stopReason).toBe("repeat");
        expect(outcome?.stoppedAtTurn).toBeLessThan(trajectory.turns.length);
      }
    });

    it("neither warns nor stops any trajectory without a loop tag", () => {
      const flagged = outcomes
        .filter((outcome) => !outcome.loopTagged && (outcome.detections.length > 0 || outcome.stopReason !== undefined))
        .map((outcome) => `${outcome.id}: ${outcome.detections.join(",")} ${outcome.stopReason ?? ""}`);
      expect(flagged).toEqual([]);
    });
  });
});
