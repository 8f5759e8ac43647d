// Keeps docs/guides honest: every option with a documented default (the keys of each package's
// frozen DEFAULT_X_OPTIONS) must appear in that piece's guide, and every guide the getting-started
// page links to must exist. A new option without docs fails here.
import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { DEFAULT_LOOP_FINISH_OPTIONS } from "@reins/core";
import { DEFAULT_LOOP_CONTROL_OPTIONS } from "@reins/loop-control";
import { DEFAULT_AGENT_METRICS_OPTIONS } from "@reins/metrics";
import { DEFAULT_CLEAN_OBSERVATION_OPTIONS } from "@reins/observation-cleaner";
import { DEFAULT_REACT_AGENT_OPTIONS } from "@reins/react-agent";
import { DEFAULT_HARDENED_REACT_OUTPUT_PARSER_OPTIONS } from "@reins/react-output-parser";
import { DEFAULT_TOOL_EXECUTOR_OPTIONS, DEFAULT_TOOL_POLICY } from "@reins/tool-executor";

const docsDir = path.resolve(__dirname, "../../../docs");
const guide = (name: string): string => readFileSync(path.join(docsDir, "guides", `${name}.md`), "utf8");

// An internal constant in DEFAULT_REACT_AGENT_OPTIONS (LangChain's prompt contract, not an option).
const NOT_OPTIONS = new Set<string>([]);

const CASES: ReadonlyArray<{ guide: string; defaults: object; name: string }> = [
  { guide: "react-output-parser", defaults: DEFAULT_HARDENED_REACT_OUTPUT_PARSER_OPTIONS, name: "DEFAULT_HARDENED_REACT_OUTPUT_PARSER_OPTIONS" },
  { guide: "tool-executor", defaults: DEFAULT_TOOL_EXECUTOR_OPTIONS, name: "DEFAULT_TOOL_EXECUTOR_OPTIONS" },
  { guide: "tool-executor", defaults: DEFAULT_TOOL_POLICY, name: "DEFAULT_TOOL_POLICY" },
  { guide: "observation-cleaner", defaults: DEFAULT_CLEAN_OBSERVATION_OPTIONS, name: "DEFAULT_CLEAN_OBSERVATION_OPTIONS" },
  { guide: "loop-control", defaults: DEFAULT_LOOP_CONTROL_OPTIONS, name: "DEFAULT_LOOP_CONTROL_OPTIONS" },
  { guide: "metrics", defaults: DEFAULT_AGENT_METRICS_OPTIONS, name: "DEFAULT_AGENT_METRICS_OPTIONS" },
  { guide: "react-agent", defaults: DEFAULT_REACT_AGENT_OPTIONS, name: "DEFAULT_REACT_AGENT_OPTIONS" },
  { guide: "core", defaults: DEFAULT_LOOP_FINISH_OPTIONS, name: "DEFAULT_LOOP_FINISH_OPTIONS" },
];

describe("docs/guides", () => {
  describe.each(CASES)("$guide.md", ({ guide: guideName, defaults, name }) => {
    it(`documents every option of ${name}`, () => {
      const text = guide(guideName);
      const missing = Object.keys(defaults).filter(
        (key) => !NOT_OPTIONS.has(key) && !text.includes(`\`${key}\``) && !text.includes(`\`${key}.`),
      );
      expect(missing).toEqual([]);
    });
  });

  describe("getting-started.md", () => {
    it("links only to guides and docs that exist", () => {
      const text = readFileSync(path.join(docsDir, "getting-started.md"), "utf8");
      const links = [...text.matchAll(/\]\(([^)#]+\.(?:md|json))\)/g)].map((match) => match[1] as string);
      expect(links.length).toBeGreaterThan(5);
      expect(links.filter((link) => !existsSync(path.join(docsDir, link)))).toEqual([]);
    });
  });
});
