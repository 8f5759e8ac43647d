import { actionKey } from "@reins/core";
import { DEFAULT_LOOP_CONTROL_OPTIONS, countRepeats, countStalledThoughts, detectCycle, simHash, type ActionRecord } from "./index";
import { intendedActionOf } from "./detectors";
import { hammingDistance } from "./simhash";
import { thoughtOf } from "./thought";

const repeat = DEFAULT_LOOP_CONTROL_OPTIONS.repeat;
const cycle = DEFAULT_LOOP_CONTROL_OPTIONS.cycle;
const stall = DEFAULT_LOOP_CONTROL_OPTIONS.stall;
const record = (tool: string, input: string, observationFingerprint?: string): ActionRecord => ({
  key: actionKey(tool, input),
  ...(observationFingerprint !== undefined ? { observationFingerprint } : {}),
});

describe("countRepeats", () => {
  describe("by default", () => {
    it("counts the earlier identical calls with the same result (an unseen result counts as the same), not only the last one", () => {
      const history = [record("search", "a"), record("search", "b"), record("search", "a")];
      expect(countRepeats(history, actionKey("search", "a"), repeat).count).toBe(2);
      expect(countRepeats(history, actionKey("search", "c"), repeat).count).toBe(1);
      const changed = [record("job_status", "1", "queued"), record("job_status", "1", "running")];
      expect(countRepeats(changed, actionKey("job_status", "1"), repeat).count).toBe(1);
    });

    it("with requireSameObservation: false, counts every earlier identical call plus this one", () => {
      const history = [record("search", "a", "x"), record("search", "b"), record("search", "a", "y")];
      expect(countRepeats(history, actionKey("search", "a"), { ...repeat, requireSameObservation: false }).count).toBe(3);
    });

    it("forgets actions older than the window", () => {
      const history = [record("search", "a"), record("x", "1"), record("x", "2")];
      expect(countRepeats(history, actionKey("search", "a"), { ...repeat, window: 2 }).count).toBe(1);
    });
  });

  describe("with requireSameObservation", () => {
    const options = { ...repeat, requireSameObservation: true };
    it("counts only the run of equal observations ending at the latest identical call", () => {
      const history = [record("poll", "1", "aaa"), record("poll", "1", "bbb"), record("poll", "1", "bbb")];
      expect(countRepeats(history, actionKey("poll", "1"), options).count).toBe(2);
    });
    it("needs two equal earlier results before the first warning", () => {
      expect(countRepeats([record("poll", "1", "aaa")], actionKey("poll", "1"), options).count).toBe(1);
    });
  });
});

describe("detectCycle", () => {
  describe("with A→B→A→B", () => {
    it("finds period 2 with two repetitions", () => {
      const actions = [record("a", "1"), record("b", "1"), record("a", "1"), record("b", "1")];
      expect(detectCycle(actions, cycle)).toEqual({ period: 2, repetitions: 2, keys: [actions[2].key, actions[3].key] });
    });
  });

  describe("with one action repeated", () => {
    it("reports nothing for periods ≥ 2 (that is the repeat detector's case)", () => {
      const actions = Array.from({ length: 6 }, () => record("a", "1"));
      expect(detectCycle(actions, cycle)).toBeUndefined();
      expect(detectCycle(actions, { ...cycle, minPeriod: 1 })?.period).toBe(1);
    });
  });

  describe("with a broken pattern", () => {
    it("reports nothing when the tail is not periodic", () => {
      const actions = ["ls", "grep", "search", "pwd", "ls", "grep", "search", "find"].map((tool) => record(tool, "x"));
      expect(detectCycle(actions, cycle)).toBeUndefined();
    });
  });

  describe("with sameObservation", () => {
    it("breaks the cycle where known observations differ", () => {
      const actions = [record("a", "1", "o1"), record("b", "1", "o2"), record("a", "1", "o3"), record("b", "1")];
      expect(detectCycle(actions, cycle, true)).toBeUndefined();
      expect(detectCycle(actions, cycle, false)?.period).toBe(2);
    });
  });
});

describe("simHash", () => {
  describe("near-duplicate thoughts", () => {
    it("puts step-numbered copies of a thought 0 bits apart and unrelated thoughts far apart", () => {
      const first = simHash("Thought 3: I need to find another source to see if Civilization IV was hailed as a masterwork.");
      const second = simHash("Thought 4: I need to find another source to see if Civilization IV was hailed as a masterwork.");
      const other = simHash("The population of Paris grew by two percent between the last two censuses.");
      expect(hammingDistance(first, second)).toBe(0);
      expect(hammingDistance(first, other)).toBeGreaterThan(stall.maxDistance);
    });
  });
});

describe("countStalledThoughts", () => {
  const hash = simHash("I need to look up what Diwali is and what it means.");
  describe("with stale observations", () => {
    it("counts near-duplicates in the window including the current thought", () => {
      const earlier = [hash, hash, hash].map((entry) => ({ hash: entry, novelObservation: false }));
      expect(countStalledThoughts(earlier, hash, stall)).toBe(4);
    });
  });
  describe("when the earlier observations were new", () => {
    it("does not count them", () => {
      const earlier = [hash, hash].map((entry) => ({ hash: entry, novelObservation: true }));
      expect(countStalledThoughts(earlier, hash, stall)).toBe(1);
    });
  });
  describe("with a short thought", () => {
    it("returns 0 below minWords", () => {
      const short = simHash("Search again.");
      expect(countStalledThoughts([{ hash: short, novelObservation: false }], short, stall)).toBe(0);
    });
  });
});

describe("thoughtOf", () => {
  it.each([
    ["Thought: I should search.\nAction: search\nAction Input: x", "I should search."],
    [" I need the age\nof the leader.\nAction: Search\nAction Input: age", "I need the age of the leader."],
    ["Thought 2: Look it up.\nAction 2: Lookup[Diwali]", "Look it up."],
    ["Action: search\nAction Input: x", ""],
  ])("reads the thought of %j", (log, thought) => {
    expect(thoughtOf(log)).toBe(thought);
  });
});

describe("intendedActionOf", () => {
  describe("with a rejected reply", () => {
    it("reads the named tool and its input", () => {
      expect(intendedActionOf("Thought: call it\nAction: Jester\nAction Input: foo")).toEqual({ tool: "Jester", toolInput: "foo" });
    });
    it("gives an empty input when none is written", () => {
      expect(intendedActionOf("Action: lookup")).toEqual({ tool: "lookup", toolInput: "" });
    });
    it("finds no action in a plain refusal", () => {
      expect(intendedActionOf("I'm sorry, but I cannot provide an answer without an Action.")).toBeUndefined();
    });
    it("ignores an empty Action line", () => {
      expect(intendedActionOf("Action:\nAction Input: x")).toBeUndefined();
    });
  });
});
