import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import { OutputParserException } from "@langchain/core/output_parsers";
import { DynamicTool, tool } from "@langchain/core/tools";
import { REACT_LABEL_LANGUAGE_SETS } from "@reins/core";
import { z } from "zod";
import { HardenedReActOutputParser } from "../hardened-react-output-parser";

/**
 * The comparison rules of `shared/corpus/README.md`, shared by the corpus test and the variant-case
 * test: strings trimmed, one wrapping pair of quotes removed, objects deep-equal (or a JSON string of
 * the same value), "" and {} alike, exact registered tool names, final answers compared with
 * whitespace collapsed, retry/error as an `OutputParserException` with `sendToLLM` and an
 * observation (no URL).
 */

export interface Expected {
  readonly kind: "action" | "finish" | "retry" | "error";
  readonly tool?: string;
  readonly input?: unknown;
  readonly output?: string;
}

export interface CorpusCase {
  readonly defect?: string;
  readonly dialect?: string;
  /** Variant cases only: words the corrective observation must contain. */
  readonly mentions?: readonly string[];
  readonly id: string;
  readonly tools: readonly string[];
  readonly tool_specs?: Readonly<Record<string, "none" | "object">>;
  /** Variant cases only: a language set of `REACT_LABEL_LANGUAGE_SETS` the parser is given as `labels`. */
  readonly label_language?: string;
  readonly text: string;
  readonly expected: Expected;
  readonly alt_expected?: Expected;
}

export function toolsFor(testCase: CorpusCase) {
  return testCase.tools.map((name) => {
    const spec = testCase.tool_specs?.[name];
    if (spec === "none") return tool(async () => "ok", { name, description: `${name} (no arguments)`, schema: z.object({}) });
    if (spec === "object") return tool(async () => "ok", { name, description: `${name} (object)`, schema: z.object({}).passthrough() });
    return new DynamicTool({ name, description: `${name} (text)`, func: async () => "ok" });
  });
}

export function normalizeString(value: string): string {
  const trimmed = value.trim();
  for (const quoteCharacter of ['"', "'"]) {
    if (trimmed.length >= 2 && trimmed.startsWith(quoteCharacter) && trimmed.endsWith(quoteCharacter)) return trimmed.slice(1, -1).trim();
  }
  return trimmed;
}

export function isEmptyInput(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === "string") return value.trim().length === 0;
  return typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;
}

export function inputsMatch(actual: unknown, expected: unknown): boolean {
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

export function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export type Outcome = { kind: "action"; action: AgentAction } | { kind: "finish"; finish: AgentFinish } | { kind: "thrown"; error: unknown };

export async function run(testCase: CorpusCase): Promise<Outcome> {
  const labels = testCase.label_language !== undefined ? REACT_LABEL_LANGUAGE_SETS[testCase.label_language] : undefined;
  if (testCase.label_language !== undefined && labels === undefined) throw new Error(`${testCase.id}: unknown label_language ${testCase.label_language}`);
  const parser = new HardenedReActOutputParser({ tools: toolsFor(testCase), ...(labels !== undefined ? { labels } : {}) });
  try {
    const result = await parser.parse(testCase.text);
    return "tool" in result ? { kind: "action", action: result } : { kind: "finish", finish: result };
  } catch (error) {
    return { kind: "thrown", error };
  }
}

export function matches(outcome: Outcome, expected: Expected): boolean {
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

export function describeOutcome(outcome: Outcome): string {
  if (outcome.kind === "action") return JSON.stringify({ tool: outcome.action.tool, toolInput: outcome.action.toolInput });
  if (outcome.kind === "finish") return JSON.stringify({ output: outcome.finish.returnValues.output });
  const error = outcome.error as OutputParserException;
  return `threw: ${error.observation ?? String(error)}`;
}

