/**
 * The kinds of headings a scraped Markdown page names its parts with, each kept when the page is
 * cut: `#` headings, setext headings (turndown's default for h1/h2), and lines in bold alone (a
 * pricing card's plan name).
 */
import { cleanObservation } from "./clean-observation";

const prose = (topic: string, count: number): string =>
  Array.from({ length: count }, (_, index) => `${topic} paragraph ${index}: harbour teams plan berths, pilots and tide windows together, share updates with agents and terminals, and never keep a spreadsheet again.`).join("\n\n");

const plans = [
  ["Starter", "$19 / month", "For a single terminal."],
  ["Team", "$49 / month", "For a port authority with up to 20 planners."],
  ["Port", "$189 / month", "For a whole port and its agents."],
  ["Enterprise", "Custom", "For groups of ports, with a named engineer."],
];

describe("cleanObservation", () => {
  describe("with a Markdown pricing page cut to the budget", () => {
    it.each([
      ["setext headings", (name: string) => `${name}\n${"-".repeat(name.length)}`],
      ["plan names in bold alone", (name: string) => `**${name}**`],
      ["#### headings", (name: string) => `#### ${name}`],
    ])("keeps every plan name and price written as %s", (_kind, heading) => {
      const cards = plans.map(([name, price, audience]) => `${heading(name as string)}\n${price}\n${audience}\n\n${prose(name as string, 10)}`).join("\n\n");
      const page = `Pricing that grows with your harbour\n====================================\n\n${prose("Intro", 40)}\n\nPlans\n-----\n\n${cards}\n\nFAQ\n---\n\n${prose("FAQ", 50)}`;
      const cleaned = cleanObservation(page);
      expect(page.length).toBeGreaterThan(20_000);
      expect(cleaned.truncated).toBe(true);
      expect(cleaned.text).toContain("Pricing that grows with your harbour");
      for (const [name, price] of plans) {
        expect(cleaned.text).toContain(name as string);
        expect(cleaned.text).toContain(price as string);
      }
      expect(cleaned.text).toContain("FAQ");
    });
  });
});
