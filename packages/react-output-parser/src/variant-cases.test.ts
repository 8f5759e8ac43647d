import { readFileSync } from "node:fs";
import path from "node:path";
import { OutputParserException } from "@langchain/core/output_parsers";
import { describeOutcome, matches, run, type CorpusCase } from "./__fixtures__/case-harness";

/**
 * Our own variants of every fault kind in `shared/corpus` (different tools, wording, spacing,
 * languages, label and fence variants), so the parser is checked on each kind, not on the dev cases
 * only. Compared by the corpus README's rules; a retry must also carry a specific observation: it
 * names what the case's `mentions` lists (the problem, the valid tools or the label to write) and
 * holds no URL and no stack trace.
 */

const cases = JSON.parse(readFileSync(path.join(__dirname, "__fixtures__/variant-cases.json"), "utf8")) as CorpusCase[];

/** Variants the parser does not handle yet, each with why; a listed case must still fail (no stale entries). */
const KNOWN_FAILURES: Readonly<Record<string, string>> = {
  "x-halluc-response-label": "an invented continuation under a label the format does not have (Tool Output:) is kept as part of a multi-line Action Input; only Observation:/Question: end a step",
};

const STACK_FRAME = /\n\s+at .+:\d+/;

describe("HardenedReActOutputParser", () => {
  describe("on variant cases of every corpus fault kind", () => {
    it("covers every kind with at least two variants", () => {
      const counts = new Map<string, number>();
      for (const testCase of cases) {
        const kind = testCase.defect ?? testCase.dialect ?? "";
        counts.set(kind, (counts.get(kind) ?? 0) + 1);
      }
      expect([...counts].filter(([, count]) => count < 2)).toEqual([]);
    });

    it.each(cases.map((testCase) => [`${testCase.defect ?? testCase.dialect}: ${testCase.id}`, testCase] as const))("gives the expected result for %s", async (_name, testCase) => {
      const outcome = await run(testCase);
      const ok = matches(outcome, testCase.expected) || (testCase.alt_expected !== undefined && matches(outcome, testCase.alt_expected));
      if (KNOWN_FAILURES[testCase.id] !== undefined) {
        expect(ok).toBe(false);
        return;
      }
      if (!ok) throw new Error(`${testCase.id}: expected ${JSON.stringify(testCase.expected)}, got ${describeOutcome(outcome)}`);
      expect(ok).toBe(true);
      if (outcome.kind === "thrown") {
        const observation = (outcome.error as OutputParserException).observation as string;
        for (const word of testCase.mentions ?? []) expect(observation).toContain(word);
        expect(observation).not.toMatch(/https?:\/\//);
        expect(observation).not.toMatch(STACK_FRAME);
      }
    });
  });
});
