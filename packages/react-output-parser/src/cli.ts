#!/usr/bin/env node
/**
 * `reins-parse`: reads a model output (or a JSONL log of outputs) from a file or stdin and prints
 * what {@link HardenedReActOutputParser} makes of it, as JSON: the action or final answer with the
 * repairs applied, or the rejection reason and the corrective observation the model would get.
 * With `--summary`, ends with counts by outcome and by repair. For triaging production logs.
 *
 * The CLI uses only the parser's public API (`parseDetailed`), so new output shapes the parser
 * learns show up here without changes.
 */
import { readFile } from "node:fs/promises";
import { RescueSummary, runMessageRescue, toolsFromDefinitions } from "./cli-messages";
import { HardenedReActOutputParser } from "./hardened-react-output-parser";
import type { ConflictPolicy } from "./read-react-step";
import type { ParserTool } from "./tool-schema";

/** Where the CLI reads and writes (injectable for tests). */
export interface CliIo {
  readonly stdin: AsyncIterable<string | Uint8Array>;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Reads a file argument; defaults to `fs.readFile(path, "utf8")`. */
  readonly readFile?: (path: string) => Promise<string>;
}

/**
 * One parse, as printed. `thought` is the model's reasoning text with any JSON value or fenced
 * code block taken out (the action itself is in `tool` / `toolInput`, never echoed as a thought).
 */
export type CliResult =
  | { readonly ok: true; readonly type: "action"; readonly tool: string; readonly toolInput: unknown; readonly thought: string; readonly repairs: readonly string[] }
  | { readonly ok: true; readonly type: "finish"; readonly output: unknown; readonly thought: string; readonly repairs: readonly string[] }
  | { readonly ok: false; readonly reason: string; readonly observation: string; readonly repairs: readonly string[] };

const USAGE = `Usage: reins-parse --tools a,b:object,c:none [options] [FILE]

Reads one model output from FILE (or stdin when FILE is absent or "-") and prints the parse result
as JSON. With --jsonl (implied by a FILE ending in .jsonl), reads one JSON value per line: a
string, or an object with a "text", "llm_output" or "output" field, and prints one result per line.

  --tools        registered tool names, comma-separated; ":object" marks a tool taking a JSON
                 object, ":none" a tool taking no arguments (default: string input). Required,
                 unless every JSONL line names its tools in a "tools" field (an array of such
                 specs, or of { "name", "schema" } objects) or a "tool_names" field (a
                 comma-separated string, as in LangChain's ReAct prompt). A line's own field wins.
  --jsonl        read JSON lines, print one JSON result per line
  --summary      at the end, print counts by outcome and by repair to stderr (stdout stays JSON)
  --on-conflict  what to do with an action and a final answer in one output (default: first)
  --fuzzy        match near-miss tool names (edit distance 2)
  --tool-schemas FILE
                 rescue mode: read a JSONL log of assistant messages (OpenAI chat completions,
                 choices[0].message, OpenAI or LangChain messages with content, tool_calls,
                 invalid_tool_calls) and print what the createAgent tool-call rescue makes of
                 each (calls run, repairs, refusals with their corrections), given the agent's
                 OpenAI-style tool definitions in FILE; --summary counts outcomes, repairs, refusals
  --help         print this help

Shapes read (see the package README for each one):
  ReAct labels        Thought / Action / Action Input / Final Answer in any case, markdown,
                      numbered, full-width colons; a partial stop label at the end (Observ) cut
  JSON action blobs   {"action","action_input"}, {"name"|"tool","arguments"|"args"} (object or
                      JSON string), Title Case or spaced keys, one wrapper key ({"tool_call": {...}})
  tool-call tags      <tool_call>{...}</tool_call>, <function=NAME><parameter=KEY>...,
                      <invoke name=...><parameter name=...>, <tool_use>, <tools>, <action><name>...
                      (the first call is taken, the rest reported)
  harmony (gpt-oss)   <|channel|>analysis|commentary|final<|message|>..., to=functions.NAME,
                      fused analysis...assistantfinal...; leftover <|eot_id|>, <|im_end|>, </s> removed
  reasoning blocks    <think>, <thinking>, <reasoning>, <reflection>, ◁think▷: empty, unclosed,
                      closing tag only; a step only inside a block is read when none is outside
  paper style         Search[query], tool(input), Finish[answer], finish(answer="...")
  XML agent           <tool>, <tool_input>, <final_answer> (attributes, any case, unclosed)
  template calls      [TOOL_CALLS], DeepSeek and Kimi call tokens, <|python_tag|>, [tool(arg=..)]
  unlabelled replies  a plain reply, a JSON deliverable after a Thought
Rejected as retries: cut-off inputs (unterminated string, unclosed fence or object), schema
echoes (also Python reprs), labels of a language the parser is not configured for.

Exit code: 0 when every input was read (whatever the parse results), 2 for bad usage, an
unreadable file, or a JSONL line that is not JSON or has no text or no tools.

Examples:
  printf 'Action: search\\nAction Input: weather in Oslo\\n' | reins-parse --tools search
  reins-parse --tools search,lookup:object,clock:none reply.txt
  reins-parse --summary --tools search,calculator outputs.jsonl > results.jsonl
  reins-parse --jsonl --summary < outputs.jsonl      # each line: {"text": "...", "tools": ["search"]}
  jq -c '{text: .llm_output, tool_names}' runs.jsonl | reins-parse --jsonl --summary
  reins-parse --tool-schemas tools.json --summary assistant-messages.jsonl
`;

interface CliOptions {
  /** `undefined`: no --tools; each JSONL line must name its own. */
  readonly tools: readonly ParserTool[] | undefined;
  readonly jsonl: boolean;
  readonly summary: boolean;
  readonly file: string | undefined;
  readonly onConflict: ConflictPolicy;
  readonly fuzzy: boolean;
  /** Rescue mode: the file of OpenAI-style tool definitions. */
  readonly toolSchemas: string | undefined;
}

const CONFLICT_POLICIES: readonly ConflictPolicy[] = ["first", "action", "final", "error"];

function toolFromSpec(spec: string): ParserTool {
  const separator = spec.lastIndexOf(":");
  const kind = separator > 0 ? spec.slice(separator + 1).trim() : "";
  if (kind === "object") return { name: spec.slice(0, separator).trim(), schema: { type: "object", properties: {}, additionalProperties: true } };
  if (kind === "none") return { name: spec.slice(0, separator).trim(), schema: { type: "object", properties: {} } };
  return { name: spec.trim() };
}

function toolsFromList(list: string): ParserTool[] {
  return list.split(",").filter((entry) => entry.trim().length > 0).map(toolFromSpec);
}

/** Reads the command line; returns an error message for bad usage. */
function readArguments(argv: readonly string[]): CliOptions | { readonly help: true } | { readonly error: string } {
  let tools: ParserTool[] | undefined;
  let jsonl = false;
  let summary = false;
  let file: string | undefined;
  let onConflict: ConflictPolicy = "first";
  let fuzzy = false;
  let toolSchemas: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    const [flag, inlineValue] = argument.startsWith("--") && argument.includes("=") ? [argument.slice(0, argument.indexOf("=")), argument.slice(argument.indexOf("=") + 1)] : [argument, undefined];
    const value = (): string | undefined => inlineValue ?? argv[++index];
    switch (flag) {
      case "--help":
      case "-h":
        return { help: true };
      case "--jsonl":
        jsonl = true;
        break;
      case "--summary":
        summary = true;
        break;
      case "--fuzzy":
        fuzzy = true;
        break;
      case "--tools": {
        const list = value();
        if (list === undefined || list.startsWith("--")) return { error: "--tools needs a comma-separated list of tool names" };
        tools = toolsFromList(list);
        if (tools.length === 0) return { error: "--tools names no tool" };
        break;
      }
      case "--tool-schemas": {
        toolSchemas = value();
        if (toolSchemas === undefined || toolSchemas.startsWith("--")) return { error: "--tool-schemas needs a JSON file of tool definitions" };
        break;
      }
      case "--on-conflict": {
        const policy = value();
        if (policy === undefined || !CONFLICT_POLICIES.includes(policy as ConflictPolicy)) return { error: `--on-conflict must be one of ${CONFLICT_POLICIES.join(", ")}` };
        onConflict = policy as ConflictPolicy;
        break;
      }
      default:
        if (argument.startsWith("-") && argument !== "-") return { error: `unknown option '${argument}'` };
        if (file !== undefined) return { error: `one FILE at most (got '${file}' and '${argument}')` };
        file = argument;
    }
  }
  if (file !== undefined && file !== "-" && file.endsWith(".jsonl")) jsonl = true;
  if (tools === undefined && !jsonl && toolSchemas === undefined) return { error: "--tools is required (without it every tool would be unknown); in a JSONL log each line may name its tools instead" };
  return { tools, jsonl, summary, file: file === "-" ? undefined : file, onConflict, fuzzy, toolSchemas };
}

/** End offset (exclusive) of the balanced JSON value starting at `start` (`{` or `[`), or -1. */
function balancedEnd(text: string, start: number): number {
  const closing: string[] = [];
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") closing.push("}");
    else if (char === "[") closing.push("]");
    else if (char === "}" || char === "]") {
      if (closing.pop() !== char) return -1;
      if (closing.length === 0) return index + 1;
    }
  }
  return -1;
}

/**
 * The thought without the JSON the model wrote its action in: fenced code blocks and every
 * balanced `{…}` / `[…]` span that parses as JSON are taken out, then blank runs collapsed.
 */
export function thoughtWithoutJson(thought: string): string {
  let text = thought.replace(/```[^\n`]*\n[\s\S]*?(?:```|$)/g, "");
  let result = "";
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === "{" || char === "[") {
      const end = balancedEnd(text, index);
      if (end !== -1) {
        try {
          JSON.parse(text.slice(index, end));
          index = end - 1;
          continue;
        } catch {
          // not JSON: keep the text as written
        }
      }
    }
    result += char;
  }
  text = result;
  return text.replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}

function toResult(parser: HardenedReActOutputParser, text: string): CliResult {
  const report = parser.parseDetailed(text);
  if (!report.ok) return { ok: false, reason: report.reason, observation: report.observation, repairs: report.repairs };
  const thought = thoughtWithoutJson(report.thought);
  if ("tool" in report.result) return { ok: true, type: "action", tool: report.result.tool, toolInput: report.result.toolInput, thought, repairs: report.repairs };
  return { ok: true, type: "finish", output: report.result.returnValues.output, thought, repairs: report.repairs };
}

function textOfJsonLine(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value !== "object" || value === null) return undefined;
  for (const key of ["text", "llm_output", "output"]) {
    const field = (value as Record<string, unknown>)[key];
    if (typeof field === "string") return field;
  }
  return undefined;
}

/** A JSONL line's own tools: `tools` (specs or `{ name, schema }`) or `tool_names` (string or array); `undefined` when it has neither; a string when the field is malformed. */
function toolsOfJsonLine(value: unknown): readonly ParserTool[] | undefined | string {
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const field = record.tools ?? record.tool_names;
  if (field === undefined) return undefined;
  const name = record.tools !== undefined ? "tools" : "tool_names";
  if (typeof field === "string") return toolsFromList(field);
  if (!Array.isArray(field)) return `"${name}" must be an array or a comma-separated string`;
  const tools: ParserTool[] = [];
  for (const item of field) {
    if (typeof item === "string") tools.push(toolFromSpec(item));
    else if (typeof item === "object" && item !== null && typeof (item as { name?: unknown }).name === "string") tools.push(item as ParserTool);
    else return `"${name}" holds ${JSON.stringify(item)}, neither a tool name nor a { "name" } object`;
  }
  return tools;
}

async function readAll(stdin: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stdin) text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** Counts by outcome (`action`, `finish`, `rejected: <reason>`) and by repair. */
class Summary {
  private readonly outcomes = new Map<string, number>();
  private readonly repairs = new Map<string, number>();
  private inputs = 0;
  private unreadable = 0;

  add(result: CliResult): void {
    this.inputs += 1;
    const outcome = result.ok ? result.type : `rejected: ${result.reason}`;
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
    for (const repair of result.repairs) this.repairs.set(repair, (this.repairs.get(repair) ?? 0) + 1);
  }

  addUnreadable(): void {
    this.unreadable += 1;
  }

  format(): string {
    const rows = (counts: Map<string, number>): string[] =>
      [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([key, count]) => `  ${String(count).padStart(6)}  ${key}`);
    const repaired = [...this.repairs.values()].reduce((total, count) => total + count, 0);
    return [
      `reins-parse summary: ${this.inputs} output(s) parsed${this.unreadable > 0 ? `, ${this.unreadable} line(s) unreadable` : ""}`,
      "by outcome:",
      ...(this.outcomes.size > 0 ? rows(this.outcomes) : ["       -"]),
      `by repair (${repaired} repair(s); an output can have several):`,
      ...(this.repairs.size > 0 ? rows(this.repairs) : ["       -  none"]),
      "",
    ].join("\n");
  }
}

/**
 * Runs the CLI.
 *
 * @param argv - the arguments after the program name
 * @param io - stdin, stdout, stderr and (optionally) the file reader
 * @returns the exit code: 0 when every input was read (whatever the parse results), 2 for bad usage,
 *   an unreadable file, or a JSONL line that is not JSON or has no text or no tools
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const options = readArguments(argv);
  if ("help" in options) {
    io.stdout.write(USAGE);
    return 0;
  }
  if ("error" in options) {
    io.stderr.write(`reins-parse: ${options.error}\n${USAGE}`);
    return 2;
  }
  const read = io.readFile ?? ((path: string) => readFile(path, "utf8"));
  if (options.toolSchemas !== undefined) {
    let tools: ReturnType<typeof toolsFromDefinitions>;
    let input: string;
    try {
      tools = toolsFromDefinitions(JSON.parse(await read(options.toolSchemas)) as unknown);
      input = options.file !== undefined ? await read(options.file) : await readAll(io.stdin);
    } catch (error) {
      io.stderr.write(`reins-parse: cannot read ${options.toolSchemas} or the log: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    if (typeof tools === "string") {
      io.stderr.write(`reins-parse: ${tools}\n`);
      return 2;
    }
    return runMessageRescue(input, tools, io, options.summary ? new RescueSummary() : undefined);
  }
  const parsers = new Map<string, HardenedReActOutputParser>();
  /** One parser per distinct tool list (JSONL lines usually share a few). Throws on bad tools. */
  const parserFor = (tools: readonly ParserTool[]): HardenedReActOutputParser => {
    const key = JSON.stringify(tools);
    let parser = parsers.get(key);
    if (parser === undefined) {
      parser = new HardenedReActOutputParser({ tools, onConflict: options.onConflict, fuzzyToolNames: options.fuzzy });
      parsers.set(key, parser);
    }
    return parser;
  };
  const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));
  if (options.tools !== undefined) {
    try {
      parserFor(options.tools);
    } catch (error) {
      io.stderr.write(`reins-parse: ${message(error)}\n`);
      return 2;
    }
  }
  let input: string;
  if (options.file !== undefined) {
    try {
      input = await read(options.file);
    } catch (error) {
      io.stderr.write(`reins-parse: cannot read ${options.file}: ${message(error)}\n`);
      return 2;
    }
  } else {
    input = await readAll(io.stdin);
  }
  const summary = options.summary ? new Summary() : undefined;
  if (!options.jsonl) {
    const result = toResult(parserFor(options.tools ?? []), input);
    summary?.add(result);
    io.stdout.write(`${JSON.stringify(result)}\n`);
    if (summary) io.stderr.write(summary.format());
    return 0;
  }
  let exitCode = 0;
  const lines = input.split("\n");
  lines.forEach((line, index) => {
    if (line.trim().length === 0) return;
    const unreadable = (why: string): void => {
      io.stderr.write(`reins-parse: line ${index + 1} ${why}\n`);
      summary?.addUnreadable();
      exitCode = 2;
    };
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      unreadable("is not JSON");
      return;
    }
    const text = textOfJsonLine(value);
    if (text === undefined) {
      unreadable('has no string, "text", "llm_output" or "output"');
      return;
    }
    const ownTools = toolsOfJsonLine(value);
    if (typeof ownTools === "string") {
      unreadable(ownTools);
      return;
    }
    const tools = ownTools ?? options.tools;
    if (tools === undefined) {
      unreadable('names no tools: pass --tools, or give the line a "tools" or "tool_names" field');
      return;
    }
    let parser: HardenedReActOutputParser;
    try {
      parser = parserFor(tools);
    } catch (error) {
      unreadable(`has tools the parser rejects: ${message(error)}`);
      return;
    }
    const result = toResult(parser, text);
    summary?.add(result);
    io.stdout.write(`${JSON.stringify({ line: index + 1, ...result })}\n`);
  });
  if (summary) io.stderr.write(summary.format());
  return exitCode;
}

const invokedDirectly = typeof process !== "undefined" && /reins-parse|cli\.(c|m)?js$/.test(process.argv[1] ?? "");
if (invokedDirectly) {
  runCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`reins-parse: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
