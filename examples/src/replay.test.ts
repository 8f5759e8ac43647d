import { describeWithShared, sharedPath } from "@reins/testing";
import { formatReplayReport, isInGoal, LOOP_TAGS, loadTrajectories, replayAll, toolNameOf, type Trajectory, type TrajectoryReplay } from "./replay-runner";

// Read from the shared data at test time (never copied into the repo).
const TRAJECTORIES = "fixtures/trajectories/trajectories.json";
const TRAJECTORIES_FILE = sharedPath(TRAJECTORIES);

describe("replayAll", () => {
  describeWithShared([TRAJECTORIES], "over the shared recorded trajectories, with the stock baseline", () => {
    let trajectories: Trajectory[];
    let replays: TrajectoryReplay[];

    beforeAll(async () => {
      trajectories = loadTrajectories(TRAJECTORIES_FILE);
      replays = await replayAll(trajectories, { baseline: true });
    }, 180_000);

    it("replays every trajectory with both agents", () => {
      expect(replays).toHaveLength(trajectories.length);
      for (const replay of replays) expect(replay.stock).toBeDefined();
    });

    it("never crashes with Reins", () => {
      const crashed = replays.filter((replay) => replay.reins.verdict === "crashed").map((replay) => `${replay.id}: ${replay.reins.detail}`);
      expect(crashed).toEqual([]);
    });

    it("reaches the recorded answer of every text-format trajectory that ends in one and has no loop tag", () => {
      const inGoal = replays.filter((replay) => replay.inGoal);
      expect(inGoal.length).toBeGreaterThan(0);
      const missed = inGoal.filter((replay) => replay.reins.verdict !== "reached").map((replay) => `${replay.id}: ${replay.reins.verdict} ${replay.reins.detail}`);
      expect(missed).toEqual([]);
    });

    it("reaches every answer the stock agent reaches, unless it stopped a loop-tagged run for its loop", () => {
      const byId = new Map(trajectories.map((trajectory) => [trajectory.id, trajectory]));
      const stoppedLoop = (replay: (typeof replays)[number]): boolean =>
        (byId.get(replay.id)?.failure_tags.some((tag) => LOOP_TAGS.includes(tag)) ?? false) &&
        replay.reins.verdict === "stopped" &&
        ["repeat", "cycle", "stall"].includes(replay.reins.detail);
      const regressions = replays
        .filter((replay) => replay.stock?.verdict === "reached" && replay.reins.verdict !== "reached" && !stoppedLoop(replay))
        .map((replay) => replay.id);
      expect(regressions).toEqual([]);
    });

    it("warns, stops or finishes every loop-tagged trajectory instead of looping silently (except one that never makes a call a third time)", () => {
      // A repeat is the same call that got the same result: this run searches six different
      // titles and repeats one only once (a 2nd identical call is not flagged yet), so it runs to
      // its recorded end unflagged.
      const neverThrice = ["reflexion-hotpot-google-stupid-halted"];
      const silent = replays
        .filter((replay) => !neverThrice.includes(replay.id))
        .filter((replay) => trajectories.find((trajectory) => trajectory.id === replay.id)?.failure_tags.some((tag) => LOOP_TAGS.includes(tag)))
        .filter(
          (replay) =>
            replay.reins.loopWarnings === 0 &&
            !(replay.reins.verdict === "stopped" && ["repeat", "cycle", "stall"].includes(replay.reins.detail)) &&
            replay.reins.verdict !== "reached" &&
            replay.reins.verdict !== "different_answer",
        )
        .map((replay) => replay.id);
      expect(silent).toEqual([]);
    });

    it("neither stops nor warns a trajectory without a loop tag for a loop", () => {
      const byId = new Map(trajectories.map((trajectory) => [trajectory.id, trajectory]));
      const flagged = replays
        .filter((replay) => !byId.get(replay.id)?.failure_tags.some((tag) => LOOP_TAGS.includes(tag)))
        .filter((replay) => replay.reins.loopWarnings > 0 || (replay.reins.verdict === "stopped" && ["repeat", "cycle", "stall"].includes(replay.reins.detail)))
        .map((replay) => replay.id);
      expect(flagged).toEqual([]);
    });

    it("prints both columns grouped by format, with totals and the goal line", () => {
      const report = formatReplayReport(replays);
      expect(report).toContain("━━ mrkl_classic (17) — text format");
      expect(report).toContain("stock createReactAgent");
      expect(report).toMatch(/Goal \(\* = text format.*\): Reins reached (\d+)\/\1, crashed 0; stock reached \d+\/\d+/);
    });
  });
});

describe("isInGoal", () => {
  const base: Trajectory = {
    id: "t",
    tools: ["Search"],
    question: "q",
    format_variant: "mrkl_classic",
    turns: [{ llm_output: "Final Answer: x", observation: null }],
    final_answer: "x",
    failure_tags: [],
  };

  it.each<[string, Partial<Trajectory>, boolean]>([
    ["a text-format run ending in a final answer", {}, true],
    ["a JSON-format run", { format_variant: "chat_json" }, false],
    ["a run without a final answer", { final_answer: null }, false],
    ["a run whose last completion was not recorded", { turns: [{ llm_output: null, observation: null }] }, false],
    ["a loop-tagged run", { failure_tags: ["cyclic_action_loop"] }, false],
  ])("decides %s", (_name, change, expected) => {
    expect(isInGoal({ ...base, ...change })).toBe(expected);
  });
});

describe("toolNameOf", () => {
  it("takes the tool name before a bracketed argument hint", () => {
    expect(["Search[entity]", "click[button or option]", "python repl"].map(toolNameOf)).toEqual(["Search", "click", "python repl"]);
  });
});
