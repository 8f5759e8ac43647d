/**
 * A second set of tool outputs, written for this package (not the shared dev fixtures the cleaner
 * was tuned on): GitHub pulls list, OpenWeatherMap One Call, Open-Meteo hourly, Brave and Tavily
 * search, Wikipedia REST related pages, Shopify orders list, UPS JSON and USPS XML tracking, a
 * node-postgres result, Apollo GraphQL and Stripe error bodies, a Docusaurus docs page with
 * cookie banner, a blog post without <main>, and a Cloudflare 502 page. Shapes follow the public
 * APIs' documented responses; values are invented.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { cleanObservation } from "./clean-observation";

interface HoldoutEntry {
  readonly id: string;
  readonly file: string;
  readonly kind: string;
  readonly key_facts: ReadonlyArray<string | number>;
}

const HOLDOUT_DIR = path.resolve(__dirname, "__fixtures__/holdout");
const index = JSON.parse(readFileSync(path.join(HOLDOUT_DIR, "index.json"), "utf8")) as HoldoutEntry[];

function normalizeForFacts(text: string): string {
  return text.normalize("NFC").replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"').replace(/\s+/g, " ").toLowerCase();
}

const results = index.map((entry) => {
  const raw = readFileSync(path.join(HOLDOUT_DIR, entry.file), "utf8");
  return { entry, raw, cleaned: cleanObservation(raw) };
});

describe("cleanObservation", () => {
  describe("over the package's own held-back tool outputs with the default options", () => {
    it("reads all 15 payloads", () => {
      expect(results).toHaveLength(15);
    });

    it.each(results.map((result) => [result.entry.id, result] as const))("keeps every key fact of %s", (_id, { entry, cleaned }) => {
      const haystack = normalizeForFacts(cleaned.text);
      expect(entry.key_facts.map(String).filter((fact) => !haystack.includes(normalizeForFacts(fact)))).toEqual([]);
    });

    it.each(results.map((result) => [result.entry.id, result] as const))("stays within the default budget for %s", (_id, { cleaned }) => {
      expect(cleaned.text.trim().length).toBeGreaterThan(0);
      expect(cleaned.text.length).toBeLessThanOrEqual(6000);
    });

    it("cuts the median observation size by at least 70 %", () => {
      const cuts = results.map(({ cleaned }) => 1 - cleaned.cleanChars / cleaned.rawChars).sort((left, right) => left - right);
      expect(cuts[Math.floor(cuts.length / 2)]).toBeGreaterThanOrEqual(0.7);
    });

    it("never rewrites the digits of a value (prices, 17-digit ids, weights as written)", () => {
      const text = (id: string): string => results.find(({ entry }) => entry.id === id)?.cleaned.text ?? "";
      expect(text("sql-postgres-node-pg-top-orders")).toContain("9007199254740993");
      expect(text("sql-postgres-node-pg-top-orders")).toContain("980.00");
      expect(text("ecommerce-shopify-orders-list")).toContain("199.00");
      expect(text("tracking-ups-delivered-9-events")).toContain("4.20");
    });

    it("drops the boilerplate of the HTML pages (cookie banners, menus, footers)", () => {
      const text = (id: string): string => results.find(({ entry }) => entry.id === id)?.cleaned.text ?? "";
      expect(text("html-docs-rate-limits-docusaurus")).not.toMatch(/Accept all cookies|Copyright © 2025 Acme|Installation/);
      expect(text("html-blog-read-replicas")).not.toMatch(/This site uses cookies|Related posts|Subscribe/);
    });
  });
});
