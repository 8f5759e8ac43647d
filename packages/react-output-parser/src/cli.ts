#!/usr/bin/env node
/**
 * `reins-parse`: reads a model output (or a JSONL log of outputs) on stdin and prints what
 * {@link HardenedReActOutputParser} makes of it, as JSON: the action or final answer with the
 * repairs applied, or the rejection reason and the corrective observation the model would get.
 * For triaging production logs.
 */
import { HardenedReActOutputParser } from "./hardened-react-output-parser";
import type { ConflictPolicy } from "./read-react-step";
import type { ParserTool } from "./tool-schema";

/** Where the CLI reads and writes (injectable for tests). */
export interface CliIo {
  readonly stdin: AsyncIterable<string | Uint8Array>;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

/** One parse, as printed. */
export type CliResult =
  | { readonly ok: true; readonly type: "action"; readonly tool: string; readonly toolInput: unknown; readonly thought: string; readonly repairs: readonly string[] }
  | { readonly ok: true; readonly type: "finish"; readonly output: unknown; readonly thought: string; readonly repairs: readonly string[] }
  | { readonly ok: false; readonly reason: string; readonly observation: string; readonly repairs: readonly string[] };

const USAGE = `Usage: reins-parse [--tools a,b:object,c:none] [--jsonl] [--on-conflict first|action|final|error] [--fuzzy]

Reads one model output from stdin (or, with --jsonl, one JSON value per line: a string, or an
object with a "text", "llm_output" or "output" field) and prints the parse result as JSON.

  --tools        registered tool names, comma-separated; ":object" marks a tool taking a JSON
                 object, ":none" a tool taking no arguments (default: string input)
  --jsonl        read JSON lines, print one JSON result per line
  --on-conflict  what to do with an action and a final answer in one output (default: first)
  --fuzzy        match near-miss tool names (edit distance 2)
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
  XML agent           <tool>, <tool_input>, <final_answer>
  unlabelled replies  a plain reply, a JSON deliverable after a Thought
Rejected as retries: cut-off inputs (unterminated string, unclosed fence or object), schema
echoes (also Python reprs), labels of a language the parser is not configured for.
`;

interface CliOptions {
  readonly tools: readonly ParserTool[];
  readonly jsonl: boolean;
  readonly onConflict: ConflictPolicy;
  readonly fuzzy: boolean;
}

const CONFLICT_POLICIES: readonly ConflictPolicy[] = ["first", "action", "final", "error"];

function toolFromSpec(spec: string): ParserTool {
  const separator = spec.lastIndexOf(":");
  const kind = separator > 0 ? spec.slice(separator + 1).trim() : "";
  if (kind === "object") return { name: spec.slice(0, separator).trim(), schema: { type: "object", properties: {}, additionalProperties: true } };
  if (kind === "none") return { name: spec.slice(0, separator).trim(), schema: { type: "object", properties: {} } };
  return { name: spec.trim() };
}

/** Reads the command line; returns an error message for bad usage. */
function readArguments(argv: readonly string[]): CliOptions | { readonly help: true } | { readonly error: string } {
  let tools: ParserTool[] = [];
  let jsonl = false;
  let onConflict: ConflictPolicy = "first";
  let fuzzy = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    const [flag, inlineValue] = argument.includes("=") ? [argument.slice(0, argument.indexOf("=")), argument.slice(argument.indexOf("=") + 1)] : [argument, undefined];
    const value = (): string | undefined => inlineValue ?? argv[++index];
    switch (flag) {
      case "--help":
      case "-h":
        return { help: true };
      case "--jsonl":
        jsonl = true;
        break;
      case "--fuzzy":
        fuzzy = true;
        break;
      case "--tools": {
        const list = value();
        if (list === undefined) return { error: "--tools needs a comma-separated list of tool names" };
        tools = list.split(",").filter((entry) => entry.trim().length > 0).map(toolFromSpec);
        break;
      }
      case "--on-conflict": {
        const policy = value();
        if (policy === undefined || !CONFLICT_POLICIES.includes(policy as ConflictPolicy)) return { error: `--on-conflict must be one of ${CONFLICT_POLICIES.join(", ")}` };
        onConflict = policy as ConflictPolicy;
        break;
      }
      default:
        return { error: `unknown argument '${argument}'` };
    }
  }
  return { tools, jsonl, onConflict, fuzzy };
}

function toResult(parser: HardenedReActOutputParser, text: string): CliResult {
  const report = parser.parseDetailed(text);
  if (!report.ok) return { ok: false, reason: report.reason, observation: report.observation, repairs: report.repairs };
  if ("tool" in report.result) return { ok: true, type: "action", tool: report.result.tool, toolInput: report.result.toolInput, thought: report.thought, repairs: report.repairs };
  return { ok: true, type: "finish", output: report.result.returnValues.output, thought: report.thought, repairs: report.repairs };
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

async function readAll(stdin: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stdin) text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/**
 * Runs the CLI.
 *
 * @param argv - the arguments after the program name
 * @param io - stdin, stdout and stderr
 * @returns the exit code: 0 when every input was read (whatever the parse results), 2 for bad usage
 *   or an unreadable JSONL line
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
  let parser: HardenedReActOutputParser;
  try {
    parser = new HardenedReActOutputParser({ tools: options.tools, onConflict: options.onConflict, fuzzyToolNames: options.fuzzy });
  } catch (error) {
    io.stderr.write(`reins-parse: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const input = await readAll(io.stdin);
  if (!options.jsonl) {
    io.stdout.write(`${JSON.stringify(toResult(parser, input))}\n`);
    return 0;
  }
  let exitCode = 0;
  const lines = input.split("\n");
  lines.forEach((line, index) => {
    if (line.trim().length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      io.stderr.write(`reins-parse: line ${index + 1} is not JSON\n`);
      exitCode = 2;
      return;
    }
    const text = textOfJsonLine(value);
    if (text === undefined) {
      io.stderr.write(`reins-parse: line ${index + 1} has no string, "text", "llm_output" or "output"\n`);
      exitCode = 2;
      return;
    }
    io.stdout.write(`${JSON.stringify({ line: index + 1, ...toResult(parser, text) })}\n`);
  });
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
