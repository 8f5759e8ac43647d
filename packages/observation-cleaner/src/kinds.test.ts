/**
 * One set of tool outputs per kind of loss the cleaner must not make (written for this package,
 * invented values in the documented shapes of public APIs; key facts written before the output
 * was looked at): long ids and tracking numbers (Square, Authorize.net, EasyPost, an API error
 * with request and trace ids), link fields (GitHub releases), nested lists (GitHub issues, Jira
 * search), documents (a scraped pricing page as Markdown and inside Firecrawl JSON, a plain-text
 * report), error and challenge pages (Cloudflare block and challenge, an HTTP 429 with headers,
 * nginx 503, S3 XML), text after a leading tag, repeated text (Slack blocks), and a small payload
 * that must not grow (Google Geocoding).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { cleanObservation } from "./clean-observation";
import { countTokensCl100k } from "./tokens";

interface KindEntry {
  readonly id: string;
  readonly file: string;
  readonly kind: string;
  readonly key_facts: ReadonlyArray<string | number>;
}

const KINDS_DIR = path.resolve(__dirname, "__fixtures__/kinds");
const index = JSON.parse(readFileSync(path.join(KINDS_DIR, "index.json"), "utf8")) as KindEntry[];

function normalizeForFacts(text: string): string {
  return text.normalize("NFC").replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"').replace(/\s+/g, " ").toLowerCase();
}

const results = index.map((entry) => {
  const raw = readFileSync(path.join(KINDS_DIR, entry.file), "utf8");
  return { entry, raw, cleaned: cleanObservation(raw) };
});
const resultOf = (id: string) => {
  const found = results.find(({ entry }) => entry.id === id);
  if (found === undefined) throw new Error(`no fixture ${id}`);
  return found;
};

describe("cleanObservation", () => {
  describe("over one payload set per kind of loss, with the default options", () => {
    it("reads all 18 payloads of 9 kinds", () => {
      expect(results).toHaveLength(18);
      expect(new Set(index.map((entry) => entry.kind)).size).toBe(9);
    });

    it.each(results.map((result) => [result.entry.id, result] as const))("keeps every key fact of %s", (_id, { entry, cleaned }) => {
      const haystack = normalizeForFacts(cleaned.text);
      expect(entry.key_facts.map(String).filter((fact) => !haystack.includes(normalizeForFacts(fact)))).toEqual([]);
    });

    it.each(results.map((result) => [result.entry.id, result] as const))("is never longer than the input, nor the budget, for %s", (_id, { raw, cleaned }) => {
      expect(cleaned.text.trim().length).toBeGreaterThan(0);
      expect(cleaned.text.length).toBeLessThanOrEqual(Math.min(6000, raw.length));
    });

    it("cuts the median payload of 2 KB or more by at least 70 %", () => {
      const cuts = results
        .filter(({ raw }) => raw.length >= 2048)
        .map(({ raw, cleaned }) => 1 - cleaned.cleanChars / raw.length)
        .sort((left, right) => left - right);
      expect(cuts[Math.floor(cuts.length / 2)]).toBeGreaterThanOrEqual(0.7);
    });

    it("names every one of the 30 issues of a list whose records each hold nested lists", () => {
      const { raw, cleaned } = resultOf("nested-github-issues-30");
      const numbers = (JSON.parse(raw) as Array<{ number: number }>).map((issue) => issue.number);
      expect(numbers.filter((number) => !cleaned.text.includes(`number: ${number}`))).toEqual([]);
      expect(cleaned.truncated).toBe(true);
      expect(cleaned.text).toMatch(/more, identifying fields only:/);
    });

    it("keeps a human-facing link for every release, the upload link with its URI template, and drops the API links that only extend the record's own", () => {
      const { cleaned } = resultOf("links-github-releases");
      expect(cleaned.text).toContain("https://uploads.github.com/repos/harborlabs/tidewater/releases/201845330/assets{?name,label}");
      expect(cleaned.text).not.toContain("api.github.com/users/ines-marlow/followers");
      for (let minor = 0; minor <= 11; minor += 1) expect(cleaned.text).toContain(`releases/tag/v3.${minor}.0`);
    });

    it("keeps the pricing table of a scraped page whole, with every heading, and marks each gap", () => {
      const { cleaned } = resultOf("markdown-pricing-page");
      expect(cleaned.text).toContain("| Enterprise | Custom | Unlimited | Unlimited | Named engineer |");
      expect(cleaned.text).toContain("## FAQ");
      expect(cleaned.text).toMatch(/\[\d+ characters omitted\]/);
      expect(cleaned.truncated).toBe(true);
    });

    it("keeps the useful HTTP headers of a 429 and drops the rest", () => {
      const { cleaned } = resultOf("error-http-429-response");
      expect(cleaned.text).toMatch(/retry-after: 120/);
      expect(cleaned.text).not.toMatch(/strict-transport-security|vary/);
    });

    it("reads a text that starts with a tag as text, not as XML", () => {
      const { raw, cleaned } = resultOf("text-after-leading-tag");
      expect(cleaned.text).toBe(raw.trim());
    });

    it("writes a Slack message's text once, not again from its blocks", () => {
      const { cleaned } = resultOf("repeated-slack-history");
      expect(cleaned.text.split("Pilot boat delayed ~20 min").length - 1).toBe(1);
      expect(cleaned.text).not.toContain("rich_text_section");
    });
  });

  describe("when a value nests deeper than the cleaner reads", () => {
    const nested = (depth: number, leaf: unknown): unknown => {
      let value: unknown = leaf;
      for (let level = 0; level < depth; level += 1) value = { level, child: value };
      return value;
    };

    it("writes the deep part flat, keeps its values and says it was truncated (JSON text)", () => {
      const result = cleanObservation(JSON.stringify(nested(200, { answer: "deep value 42" })));
      expect(result.text).toContain("deep value 42");
      expect(result.text).toMatch(/nested deeper than 64 levels, flattened/);
      expect(result.truncated).toBe(true);
    });

    it("writes the deep part flat, keeps its values and says it was truncated (objects)", () => {
      const result = cleanObservation(nested(200, { answer: "deep value 43" }));
      expect(result.text).toContain("deep value 43");
      expect(result.truncated).toBe(true);
    });

    it("keeps the text at the bottom of 5 000 nested <div>s", () => {
      const html = `<html><body>${"<div>".repeat(5000)}<p>bottom of the page</p>${"</div>".repeat(5000)}</body></html>`;
      const result = cleanObservation(html);
      expect(result.text).toContain("bottom of the page");
      expect(result.text).not.toContain("…");
      expect(result.notes.join("\n")).toMatch(/flattened \d+ element\(s\) nested deeper than 150 levels/);
    });

    it("keeps the text at the bottom of 5 000 nested XML elements", () => {
      const xml = `<?xml version="1.0"?>${"<node>".repeat(5000)}<value>bottom value</value>${"</node>".repeat(5000)}`;
      const result = cleanObservation(xml);
      expect(result.text).toContain("bottom value");
    });
  });

  describe("when an XML document repeats one element thousands of times", () => {
    const items = Array.from({ length: 2000 }, (_, index) => `<item><guid>urn:berth:${index}</guid><title>Berth ${index} update</title></item>`).join("");
    const result = cleanObservation(`<?xml version="1.0"?><rss><channel>${items}</channel></rss>`);

    it("reads the first and last items like a long JSON list and counts the rest", () => {
      expect(result.text).toContain("urn:berth:0");
      expect(result.text).toContain("urn:berth:1999");
      expect(result.text).toMatch(/… \d+ more rows/);
      expect(result.truncated).toBe(true);
      expect(result.notes.join("\n")).toMatch(/the middle was counted, not read/);
    });
  });

  describe("when the value is an AggregateError", () => {
    it("keeps the message of each of its errors", () => {
      const error = new AggregateError([new Error("primary replica timed out"), new TypeError("fallback replica refused the connection")], "All replicas failed");
      const text = cleanObservation(error).text;
      expect(text).toContain("All replicas failed");
      expect(text).toContain("primary replica timed out");
      expect(text).toContain("fallback replica refused the connection");
    });
  });

  describe("when counting tokens", () => {
    it("estimates by default and says so", () => {
      const result = cleanObservation("The berth is free from 14:00.");
      expect(result.tokensExact).toBe(false);
      expect(result.tokens).toBeGreaterThan(0);
    });

    it("counts exactly with exactTokens", () => {
      const result = cleanObservation("The berth is free from 14:00.", { exactTokens: true });
      expect(result.tokensExact).toBe(true);
      expect(result.tokens).toBe(countTokensCl100k(result.text));
    });

    it("enforces maxTokens exactly when the text comes near it", () => {
      const text = Array.from({ length: 400 }, (_, index) => `Line ${index}: the pilot boat reported fog at the bar.`).join("\n");
      const result = cleanObservation(text, { maxTokens: 300 });
      expect(result.tokensExact).toBe(true);
      expect(result.tokens).toBeLessThanOrEqual(300);
    });
  });
});
