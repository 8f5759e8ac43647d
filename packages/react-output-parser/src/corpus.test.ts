import { readFileSync } from "node:fs";
import path from "node:path";
import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import { OutputParserException } from "@langchain/core/output_parsers";
import { DynamicTool, tool } from "@langchain/core/tools";
import { z } from "zod";
import { HardenedReActOutputParser } from "./hardened-react-output-parser";

/**
 * Table-driven over the shared parser corpus (`shared/corpus/*.json`), compared as the corpus
 * README says: strings trimmed, one wrapping pair of quotes removed, objects deep-equal (or a JSON
 * string of the same value), "" and {} alike, exact registered tool names, final answers compared
 * with whitespace collapsed, retry/error as an `OutputParserException` with `sendToLLM` and an
 * observation.
 */

interface Expected {
  readonly kind: "action" | "finish" | "retry" | "error";
  readonly tool?: string;
  readonly input?: unknown;
  readonly output?: string;
}

interface CorpusCase {
  readonly id: string;
  readonly tools: readonly string[];
  readonly tool_specs?: Readonly<Record<string, "none" | "object">>;
  readonly text: string;
  readonly expected: Expected;
  readonly alt_expected?: Expected;
}

const CORPUS_DIR = path.resolve(__dirname, "../../../../shared/corpus");

function loadCorpus(file: string): CorpusCase[] {
  return JSON.parse(readFileSync(path.join(CORPUS_DIR, file), "utf8")) as CorpusCase[];
}

/**
 * Cases that still fail after honest effort, each with the reason. Kept tiny; a case that contradicts
 * DESIGN.md is resolved in favour of DESIGN.md.
 */
const KNOWN_FAILURES: Readonly<Record<string, string>> = {};

function toolsFor(testCase: CorpusCase) {
  return testCase.tools.map((name) => {
    const spec = testCase.tool_specs?.[name];
    if (spec === "none") return tool(async () => "ok", { name, description: `${name} (no arguments)`, schema: z.object({}) });
    if (spec === "object") return tool(async () => "ok", { name, description: `${name} (object)`, schema: z.object({}).passthrough() });
    return new DynamicTool({ name, description: `${name} (text)`, func: async () => "ok" });
  });
}

function normalizeString(value: string): string {
  const trimmed = value.trim();
  for (const quoteCharacter of ['"', "'"]) {
    if (trimmed.length >= 2 && trimmed.startsWith(quoteCharacter) && trimmed.endsWith(quoteCharacter)) return trimmed.slice(1, -1).trim();
  }
  return trimmed;
}

function isEmptyInput(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === "string") return value.trim().length === 0;
  return typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;
}

function inputsMatch(actual: unknown, expected: unknown): boolean {
  if (isEmptyInput(actual) && isEmptyInput(expected)) return true;
  if (typeof expected === "string") {
    if (typeof actual === "string") return normalizeString(actual) === normalizeString(expected);
    try {
      return JSON.stringify(actual) === JSON.stringify(JSON.parse(expected));
    } catch {
      return false;
    }
  }
  let candidate = actual;
  if (typeof actual === "string") {
    try {
      candidate = JSON.parse(actual);
    } catch {
      return false;
    }
  }
  try {
    expect(candidate).toEqual(expected);
    return true;
  } catch {
    return false;
  }
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

type Outcome = { kind: "action"; action: AgentAction } | { kind: "finish"; finish: AgentFinish } | { kind: "thrown"; error: unknown };

async function run(testCase: CorpusCase): Promise<Outcome> {
  const parser = new HardenedReActOutputParser({ tools: toolsFor(testCase) });
  try {
    const result = await parser.parse(testCase.text);
    return "tool" in result ? { kind: "action", action: result } : { kind: "finish", finish: result };
  } catch (error) {
    return { kind: "thrown", error };
  }
}

function matches(outcome: Outcome, expected: Expected): boolean {
  switch (expected.kind) {
    case "action":
      return outcome.kind === "action" && outcome.action.tool === expected.tool && inputsMatch(outcome.action.toolInput, expected.input);
    case "finish":
      return outcome.kind === "finish" && collapse(String(outcome.finish.returnValues.output)) === collapse(expected.output ?? "");
    default:
      return (
        outcome.kind === "thrown" &&
        outcome.error instanceof OutputParserException &&
        outcome.error.sendToLLM &&
        typeof outcome.error.observation === "string" &&
        outcome.error.observation.length > 20 &&
        !/https?:\/\//.test(outcome.error.observation)
      );
  }
}

function describeOutcome(outcome: Outcome): string {
  if (outcome.kind === "action") return JSON.stringify({ tool: outcome.action.tool, toolInput: outcome.action.toolInput });
  if (outcome.kind === "finish") return JSON.stringify({ output: outcome.finish.returnValues.output });
  const error = outcome.error as OutputParserException;
  return `threw: ${error.observation ?? String(error)}`;
}

describe("HardenedReActOutputParser", () => {
  for (const file of ["realworld-dev.json", "peer-dev.json"]) {
    describe(`on the shared corpus ${file}`, () => {
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
