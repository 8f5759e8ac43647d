import { readFileSync } from "node:fs";
import path from "node:path";
import { describeWithShared, SHARED_DIR } from "@reins/testing";
import { resolveHardenedReActOutputParserOptions } from "./options";
import { readCanonicalStep } from "./canonical-step";
import { readFullReActStep, readReActStep } from "./read-react-step";

const SHARED = SHARED_DIR;

interface Sample {
  readonly text: string;
  readonly tools: readonly string[];
}

function samples(): Sample[] {
  const result: Sample[] = [];
  for (const file of ["realworld-dev.json", "peer-dev.json"]) {
    const cases = JSON.parse(readFileSync(path.join(SHARED, "corpus", file), "utf8")) as Array<{ text: string; tools: string[] }>;
    for (const testCase of cases) result.push({ text: testCase.text, tools: testCase.tools });
  }
  const trajectories = JSON.parse(readFileSync(path.join(SHARED, "fixtures/trajectories/trajectories.json"), "utf8")) as Array<{
    tools: string[];
    turns: Array<{ llm_output: string | null }>;
  }>;
  for (const trajectory of trajectories) {
    for (const turn of trajectory.turns) if (typeof turn.llm_output === "string") result.push({ text: turn.llm_output, tools: trajectory.tools });
  }
  return result;
}

describe("readReActStep", () => {
  describeWithShared(["corpus/realworld-dev.json", "corpus/peer-dev.json", "fixtures/trajectories/trajectories.json"], "fast path for canonical replies, over every corpus and trajectory text", () => {
    const all = samples();

    it("gives the same result as the full reader on every corpus and trajectory text", () => {
      let fastPathHits = 0;
      for (const sample of all) {
        const config = resolveHardenedReActOutputParserOptions({ toolNames: sample.tools }).reader;
        const full = readFullReActStep(sample.text, config);
        const fast = readCanonicalStep(sample.text, config);
        if (fast === undefined) continue;
        expect({ text: sample.text, step: fast }).toEqual({ text: sample.text, step: full });
        fastPathHits += 1;
      }
      expect(fastPathHits).toBeGreaterThan(20);
    });
  });

  describe("fast path for canonical replies", () => {
    it("is off when custom labels replace the canonical ones", () => {
      const config = resolveHardenedReActOutputParserOptions({ toolNames: ["search"], labels: { action: ["ACT"] }, replaceLabels: true }).reader;
      expect(config.canonicalLabels).toBe(false);
      expect(readReActStep("Thought: x\nAction: search\nAction Input: y", config)).toMatchObject({ ok: false });
    });
  });
});
