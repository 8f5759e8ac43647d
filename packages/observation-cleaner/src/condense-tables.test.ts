import { cleanObservation } from "./clean-observation";

const page = (name: string, extract: string) => ({
  title: name.replace(/ /g, "_"),
  titles: { canonical: name.replace(/ /g, "_"), normalized: name },
  urls: {
    page: `https://en.wikipedia.org/wiki/${name.replace(/ /g, "_")}`,
    history: `https://en.wikipedia.org/wiki/${name.replace(/ /g, "_")}?action=history`,
    mobile: `https://en.m.wikipedia.org/wiki/${name.replace(/ /g, "_")}`,
  },
  extract,
});

const LONG_EXTRACT =
  "The analytical engine was a proposed digital mechanical general-purpose computer designed by English mathematician and computer pioneer Charles Babbage. It was first described in 1837 as the successor to Babbage's difference engine.";

describe("cleanObservation", () => {
  describe("when a list of records becomes a table", () => {
    const pages = [page("Charles Babbage", "Charles Babbage was an English polymath."), page("Analytical engine", LONG_EXTRACT), page("Lord Byron", "George Gordon Byron was an English poet.")];
    const { text } = cleanObservation({ pages });

    it("drops a column that repeats another column row for row", () => {
      expect(text).not.toContain("titles.canonical");
      expect(text).toContain("titles.normalized");
    });

    it("drops URL columns that point at the same page as another URL column (history, mobile)", () => {
      expect(text).toContain("https://en.wikipedia.org/wiki/Analytical_engine");
      expect(text).not.toContain("?action=history");
      expect(text).not.toContain("en.m.wikipedia.org");
    });

    it("keeps a 230-character cell whole when the budget allows", () => {
      expect(text).toContain(LONG_EXTRACT);
    });

    it("keeps columns that differ in some row", () => {
      const rows = [
        { name: "a", label: "a", url: "https://example.com/a", source: "https://other.example/a" },
        { name: "b", label: "B", url: "https://example.com/b", source: "https://other.example/b" },
      ];
      const cleaned = cleanObservation(rows).text;
      expect(cleaned).toContain("label");
      expect(cleaned).toContain("https://other.example/b");
    });
  });
});
