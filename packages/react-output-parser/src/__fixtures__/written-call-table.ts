import { readFileSync } from "node:fs";
import path from "node:path";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { parseLooseJson } from "../json-text";

/**
 * The one table of written tool calls both readers are checked on: the ReAct parser
 * (`written-tool-calls.test.ts`) and the createAgent rescue (agent-middleware's
 * `tool-call-rescue.test.ts`). Every family of the issue, each with several variants.
 */
export interface WrittenCallCase {
  readonly id: string;
  readonly kind: string;
  readonly text: string;
  readonly finish_reason?: string;
  readonly expected:
    | { readonly calls: ReadonlyArray<{ readonly name: string; readonly args: Record<string, unknown> }> }
    | { readonly refused: string }
    | { readonly answer: string };
}

export const WRITTEN_CALL_CASES = JSON.parse(readFileSync(path.join(__dirname, "written-tool-calls.json"), "utf8")) as WrittenCallCase[];

/** The tools of the table: what each case's calls are checked against. */
export function writtenCallTools(run: (name: string, input: unknown) => string = (name) => `ran ${name}`) {
  return [
    tool(async (input) => run("search", input), { name: "search", description: "Searches the web.", schema: z.object({ query: z.string() }) }),
    tool(async (input) => run("get_weather", input), { name: "get_weather", description: "Weather of a city.", schema: z.object({ city: z.string(), unit: z.string().optional(), metric: z.boolean().optional() }) }),
    tool(async (input) => run("write_file", input), { name: "write_file", description: "Writes a file.", schema: z.object({ path: z.string(), content: z.string() }) }),
  ];
}

/**
 * Where to split a call's text over two tool results: near the middle, where neither half is a
 * whole JSON value, also after JSON repair (the cleaner renders a JSON result as records, so the
 * model would not see it as written).
 */
export function splitOutsideJson(text: string): number {
  const isJson = (part: string): boolean => {
    const parsed = parseLooseJson(part, 20_000);
    return parsed !== undefined && typeof parsed.value === "object" && parsed.value !== null;
  };
  const middle = Math.floor(text.length / 2);
  for (let offset = 0; offset < text.length; offset += 1) {
    for (const at of [middle + offset, middle - offset]) if (at > 0 && at < text.length && !isJson(text.slice(at).trim())) return at;
  }
  return middle;
}
