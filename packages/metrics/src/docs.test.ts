import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { AGENT_METRIC_CATALOG } from "./index";

const docsDirectory = resolve(__dirname, "../../../docs");
const catalogNames = new Set(Object.values(AGENT_METRIC_CATALOG).map((definition) => definition.name));

/** Metric names (without prefix and histogram suffixes) a PromQL expression reads. */
function metricNamesIn(expression: string): string[] {
  return [...expression.matchAll(/react_agent_([a-z_]+)/g)].map((match) =>
    catalogNames.has(match[1]) ? match[1] : match[1].replace(/_(bucket|sum|count)$/, ""),
  );
}

describe("docs/metrics.md", () => {
  const markdown = readFileSync(resolve(docsDirectory, "metrics.md"), "utf8");

  describe("catalog table", () => {
    it("has one row per catalog metric with its type and every label", () => {
      for (const definition of Object.values(AGENT_METRIC_CATALOG)) {
        const row = markdown.split("\n").find((line) => line.startsWith(`| \`${definition.name}\` |`));
        expect(row).toBeDefined();
        expect(row?.split("|")[2].trim()).toBe(definition.type);
        for (const label of definition.labelNames) expect(row).toContain(`\`${label}\``);
        for (const values of Object.values(definition.labelValues)) {
          for (const value of values) expect(row).toContain(value);
        }
      }
    });
  });

  describe("PromQL", () => {
    it("reads only metrics of the catalog", () => {
      const names = metricNamesIn(markdown);
      expect(names.length).toBeGreaterThan(10);
      for (const name of names) expect(catalogNames).toContain(name);
    });
  });
});

describe("docs/grafana-dashboard.json", () => {
  const dashboard = JSON.parse(readFileSync(resolve(docsDirectory, "grafana-dashboard.json"), "utf8")) as {
    title: string;
    uid: string;
    schemaVersion: number;
    panels: Array<{ id: number; type: string; title: string; targets?: Array<{ expr: string; refId: string }> }>;
  };

  describe("structure", () => {
    it("is a Grafana dashboard with unique panel ids and a query in every non-row panel", () => {
      expect(typeof dashboard.title).toBe("string");
      expect(typeof dashboard.uid).toBe("string");
      expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
      const ids = dashboard.panels.map((panel) => panel.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const panel of dashboard.panels.filter((candidate) => candidate.type !== "row")) {
        expect(panel.targets?.length).toBeGreaterThan(0);
      }
    });
  });

  describe("queries", () => {
    it("read only catalog metrics and show the three health ratios", () => {
      const expressions = dashboard.panels.flatMap((panel) => panel.targets ?? []).map((target) => target.expr);
      for (const expression of expressions) {
        const names = metricNamesIn(expression);
        expect(names.length).toBeGreaterThan(0);
        for (const name of names) expect(catalogNames).toContain(name);
      }
      const titles = dashboard.panels.map((panel) => panel.title);
      expect(titles).toEqual(expect.arrayContaining(["Thought/action gap", "Observation validity rate", "Mean cycle time"]));
    });
  });
});
