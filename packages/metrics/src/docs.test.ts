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

/** Every PromQL expression the docs and the dashboard show. */
function allExpressions(): Array<{ where: string; expression: string }> {
  const markdown = readFileSync(resolve(docsDirectory, "metrics.md"), "utf8");
  const found: Array<{ where: string; expression: string }> = [];
  for (const block of markdown.matchAll(/```promql\n([\s\S]*?)```/g)) {
    // A block holds one expression, or several one-line expressions under `#` comments.
    const lines = block[1].split("\n").filter((line) => line.trim().length > 0);
    if (lines.some((line) => line.startsWith("#"))) {
      for (const line of lines) if (!line.startsWith("#")) found.push({ where: "metrics.md", expression: line });
    } else {
      found.push({ where: "metrics.md", expression: lines.join("\n") });
    }
  }
  for (const block of markdown.matchAll(/```yaml\n([\s\S]*?)```/g)) {
    const lines = block[1].split("\n");
    for (let index = 0; index < lines.length; index += 1) {
      const match = /^(\s*)expr: (.*)$/.exec(lines[index]);
      if (match === null) continue;
      if (match[2].trim() !== "|") {
        found.push({ where: "alert rules", expression: match[2] });
        continue;
      }
      const body: string[] = [];
      for (index += 1; index < lines.length && (lines[index].startsWith(`${match[1]}  `) || lines[index].trim() === ""); index += 1) {
        if (!lines[index].trim().startsWith("#")) body.push(lines[index]);
      }
      index -= 1;
      found.push({ where: "alert rules", expression: body.join("\n") });
    }
  }
  const dashboard = JSON.parse(readFileSync(resolve(docsDirectory, "grafana-dashboard.json"), "utf8")) as {
    panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
  };
  for (const panel of dashboard.panels) {
    for (const target of panel.targets ?? []) found.push({ where: `dashboard: ${panel.title}`, expression: target.expr });
  }
  return found;
}

const FUNCTIONS = new Set(["sum", "max", "min", "avg", "rate", "increase", "histogram_quantile", "clamp_min", "by", "without"]);

/** Problems a PromQL expression has: unbalanced brackets, bad matchers, ranges, functions, labels. */
function promqlProblems(expression: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  const pairs: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
  let inString = false;
  for (const character of expression) {
    if (character === '"') inString = !inString;
    if (inString) continue;
    if ("([{".includes(character)) stack.push(character);
    if (")]}".includes(character) && stack.pop() !== pairs[character]) problems.push(`unbalanced ${character}`);
  }
  if (stack.length > 0 || inString) problems.push("unclosed bracket or string");
  for (const match of expression.matchAll(/\[([^\]]*)\]/g)) {
    if (!/^(\d+[smhdw]|\$__rate_interval|\$__range)$/.test(match[1])) problems.push(`bad range [${match[1]}]`);
  }
  for (const match of expression.matchAll(/([a-z_]+)\s*\(/g)) {
    if (!FUNCTIONS.has(match[1])) problems.push(`unknown function ${match[1]}`);
  }
  const definitions = Object.values(AGENT_METRIC_CATALOG);
  for (const match of expression.matchAll(/react_agent_([a-z_]+)(\{([^}]*)\})?/g)) {
    const base = catalogNames.has(match[1]) ? match[1] : match[1].replace(/_(bucket|sum|count)$/, "");
    const definition = definitions.find((candidate) => candidate.name === base);
    if (definition === undefined) continue;
    const allowedLabels = [...definition.labelNames, ...(match[1].endsWith("_bucket") ? ["le"] : [])];
    for (const matcher of (match[3] ?? "").split(",").filter((part) => part.trim().length > 0)) {
      const parsed = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"([^"]*)"\s*$/.exec(matcher);
      if (parsed === null) {
        problems.push(`bad matcher ${matcher}`);
        continue;
      }
      if (!allowedLabels.includes(parsed[1])) problems.push(`${base} has no label ${parsed[1]}`);
      const values = definition.labelValues[parsed[1]];
      if (values !== undefined) {
        for (const value of parsed[3].split("|")) if (!values.includes(value)) problems.push(`${base}{${parsed[1]}} has no value ${value}`);
      }
    }
  }
  // `by (…)` labels must exist on the metrics the aggregation reads.
  for (const match of expression.matchAll(/by \(([^)]*)\) \(([^()]*(?:\([^()]*\))?[^()]*)\)/g)) {
    const names = metricNamesIn(match[2]);
    const isBucket = /_bucket\b/.test(match[2]);
    for (const label of match[1].split(",").map((part) => part.trim())) {
      for (const name of names) {
        const definition = definitions.find((candidate) => candidate.name === name);
        const allowed = [...(definition?.labelNames ?? []), ...(isBucket ? ["le"] : [])];
        if (!allowed.includes(label)) problems.push(`${name} has no label ${label} (by)`);
      }
    }
  }
  return problems;
}

describe("PromQL in docs/metrics.md and the dashboard", () => {
  it("is well formed: brackets, ranges, functions, matchers and labels of the catalog", () => {
    const expressions = allExpressions();
    expect(expressions.length).toBeGreaterThan(30);
    const problems = expressions.flatMap(({ where, expression }) => promqlProblems(expression).map((problem) => `${where}: ${problem}`));
    expect(problems).toEqual([]);
  });

  it("finds the mistakes it is meant to find", () => {
    expect(promqlProblems('sum(rate(react_agent_runs_total{status="ok"}[5m])')).toEqual(
      expect.arrayContaining(["unclosed bracket or string", "runs_total{status} has no value ok"]),
    );
    expect(promqlProblems("sum by (tool) (rate(react_agent_runs_total[5 m]))")).toEqual(
      expect.arrayContaining(["bad range [5 m]", "runs_total has no label tool (by)"]),
    );
    expect(promqlProblems("avg_over_tme(react_agent_runs_in_progress[5m])")).toEqual(["unknown function avg_over_tme"]);
  });
});
