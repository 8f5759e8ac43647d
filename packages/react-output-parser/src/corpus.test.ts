import { readFileSync } from "node:fs";
import path from "node:path";
import { describeWithShared, sharedPath } from "@reins/testing";
import { describeOutcome, matches, run, type CorpusCase } from "./__fixtures__/case-harness";

/**
 * Table-driven over the shared parser corpus (`shared/corpus/*.json`), compared as the corpus
 * README says (see `__fixtures__/case-harness.ts`).
 */

const CORPUS_DIR = sharedPath("corpus");

function loadCorpus(file: string): CorpusCase[] {
  return JSON.parse(readFileSync(path.join(CORPUS_DIR, file), "utf8")) as CorpusCase[];
}

/**
 * Cases that still fail after honest effort, each with the reason. Kept tiny; a case that contradicts
 * DESIGN.md is resolved in favour of DESIGN.md.
 */
const KNOWN_FAILURES: Readonly<Record<string, string>> = {};

describe("HardenedReActOutputParser", () => {
  for (const file of ["realworld-dev.json", "peer-dev.json"]) {
    describeWithShared([`corpus/${file}`], `on the shared corpus ${file}`, () => {
      const cases = loadCorpus(file);
      it.each(cases.map((testCase) => [testCase.id, testCase] as const))("gives the expected result for %s", async (id, testCase) => {
        const outcome = await run(testCase);
        const ok = matches(outcome, testCase.expected) || (testCase.alt_expected !== undefined && matches(outcome, testCase.alt_expected));
        if (KNOWN_FAILURES[id] !== undefined) {
          // A listed known failure must still fail, so the list cannot go stale silently.
          expect(ok).toBe(false);
          return;
        }
        if (!ok) {
          throw new Error(`${id}: expected ${JSON.stringify(testCase.expected)}${testCase.alt_expected ? ` or ${JSON.stringify(testCase.alt_expected)}` : ""}, got ${describeOutcome(outcome)}`);
        }
        expect(ok).toBe(true);
      });
    });
  }
});
