import { readFileSync } from "node:fs";
import path from "node:path";
import { describeWithShared, sharedPath } from "@reins/testing";
import { cleanObservation } from "./clean-observation";

interface FixtureEntry {
  readonly id: string;
  readonly file: string;
  readonly key_facts: ReadonlyArray<string | number>;
}

const FIXTURE_DIR = sharedPath("fixtures/tool-outputs");

/**
 * How a key fact is looked for: as a substring after Unicode NFC, curly quotes to straight ones,
 * whitespace runs to one space, and lower case. Numbers are looked for as written in index.json.
 */
function normalizeForFacts(text: string): string {
  return text
    .normalize("NFC")
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, " ")
    .toLowerCase();
}

function missingFacts(text: string, facts: ReadonlyArray<string | number>): string[] {
  const haystack = normalizeForFacts(text);
  return facts.map(String).filter((fact) => !haystack.includes(normalizeForFacts(fact)));
}

function cleanEveryFixture() {
  const index = JSON.parse(readFileSync(path.join(FIXTURE_DIR, "index.json"), "utf8")) as FixtureEntry[];
  return index.map((entry) => {
    const raw = readFileSync(path.join(FIXTURE_DIR, entry.file), "utf8");
    return { entry, raw, cleaned: cleanObservation(raw) };
  });
}

describe("cleanObservation", () => {
  describeWithShared(["fixtures/tool-outputs/index.json"], "over every shared tool-output fixture with the default options", () => {
    const results = cleanEveryFixture();
    it("reads all 23 fixtures", () => {
      expect(results).toHaveLength(23);
    });

    for (const { entry, cleaned } of results) {
      it(`keeps every key fact of ${entry.id}`, () => {
        expect(missingFacts(cleaned.text, entry.key_facts)).toEqual([]);
      });
      it(`stays within the default budget for ${entry.id}`, () => {
        expect(cleaned.text.length).toBeGreaterThan(0);
        expect(cleaned.text.length).toBeLessThanOrEqual(6000);
        expect(cleaned.cleanChars).toBe(cleaned.text.length);
      });
    }

    it("cuts the median observation size by at least 70 %", () => {
      const cuts = results.map(({ cleaned }) => 1 - cleaned.cleanChars / cleaned.rawChars).sort((left, right) => left - right);
      const median = cuts[Math.floor(cuts.length / 2)] as number;
      expect(median).toBeGreaterThanOrEqual(0.7);
    });

    it("says an HTML page, a long API response and the long search result were truncated", () => {
      const truncated = (id: string): boolean => results.find(({ entry }) => entry.id === id)?.cleaned.truncated ?? false;
      expect(truncated("html-news-bbc-obama-gun-laws")).toBe(true);
      expect(truncated("wikipedia-action-query-douglas-adams")).toBe(true);
      expect(truncated("search-firecrawl-web-with-page-markdown")).toBe(true);
      expect(truncated("github-error-422-validation")).toBe(false);
    });
  });
});
