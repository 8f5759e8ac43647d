/**
 * `repairToolCall`: one tool call as a model wrote it (a native call, an `invalid_tool_calls`
 * entry, or a call read from the text) checked and repaired before it runs, never by guessing:
 * a repair may fix how a name or the JSON is written, but never invent a field or complete a call
 * that was cut off. Shared by the `createAgent` middleware and `reins-parse`.
 */
import { isRecord, stripControlTokens } from "@reins/core";
import { findBalancedEnd, missingClosers, parseLooseJson } from "./json-text";
import { TOOL_CALL_MESSAGES } from "./tool-call-messages";
import { describeToolInput, unknownArgumentNames, type ToolInputSpec } from "./tool-schema";
import { matchToolName } from "./tool-names";

/** A tool as the repair sees it: a name and (optionally) an input schema (zod or JSON schema). */
export interface RepairableTool {
  readonly name: string;
  readonly schema?: unknown;
}

/** A tool call as a model wrote it: `args` may be a JSON string (LangChain's `invalid_tool_calls`). */
export interface WrittenToolCall {
  readonly name: string;
  readonly args: unknown;
  readonly id?: string;
  /** The arguments were cut off (the text ends inside them, or the reply stopped for length). @default false */
  readonly truncated?: boolean;
}

/** Why a call cannot run (bounded: the `reason` of its correction). */
export type ToolCallRefusal =
  | "unknown_tool"
  | "ambiguous_tool"
  | "unreadable_arguments"
  | "truncated_arguments"
  | "unknown_fields"
  | "bare_value"
  | "no_readable_call"
  | "echoed_tool_output"
  | "untrusted_call";

/** The result of {@link repairToolCall}. */
export type ToolCallRepairResult =
  | {
      readonly ok: true;
      /** The registered tool name. */
      readonly name: string;
      /** The arguments as an object the tool's schema can check. */
      readonly args: Record<string, unknown>;
      /** Repairs applied, as bounded identifiers (`tool_name_prefix`, `tool_name_normalized`, `json_repair`, …). */
      readonly repairs: readonly string[];
    }
  | {
      readonly ok: false;
      readonly reason: ToolCallRefusal;
      /** The corrective text for the model (what was wrong, the quoted fields or tool names). */
      readonly correction: string;
      /** The registered tool the call was meant for, when its name was read. */
      readonly name?: string;
    };

/** Options of {@link repairToolCall}. */
export interface ToolCallRepairOptions {
  /**
   * Longest argument text handed to the JSON repair library (longer text is only parsed strictly).
   * @default 20000
   */
  readonly maxRepairChars?: number;
}

/** Defaults of {@link ToolCallRepairOptions}. */
export const DEFAULT_TOOL_CALL_REPAIR_OPTIONS = Object.freeze({ maxRepairChars: 20_000 });

/** Namespaces some models put in front of a tool name (`functions.search`, OpenAI's internal form). */
const NAME_PREFIXES = ["functions.", "function.", "tools.", "tool."];

type Named = { name: string; repairs: string[] } | { reason: "unknown_tool" | "ambiguous_tool"; correction: string };

function resolveName(written: string, toolNames: readonly string[]): Named {
  if (toolNames.includes(written)) return { name: written, repairs: [] };
  const repairs: string[] = [];
  let candidate = written.trim();
  const stripped = stripControlTokens(candidate);
  if (stripped.removed) {
    candidate = stripped.text.trim();
    repairs.push("control_token_removed");
  }
  const prefix = NAME_PREFIXES.find((item) => candidate.toLowerCase().startsWith(item));
  if (prefix !== undefined) {
    candidate = candidate.slice(prefix.length);
    repairs.push("tool_name_prefix");
  }
  // Kimi's call index (`functions.search:0`).
  const index = /:\d{1,4}$/.exec(candidate);
  if (index !== null) {
    candidate = candidate.slice(0, index.index);
    repairs.push("tool_name_index");
  }
  if (toolNames.includes(candidate)) return { name: candidate, repairs };
  const match = matchToolName(candidate, toolNames, 0);
  if (match.status === "exact") return { name: match.name, repairs };
  if (match.status === "normalized") return { name: match.name, repairs: [...repairs, match.repair] };
  if (match.status === "ambiguous") return { reason: "ambiguous_tool", correction: TOOL_CALL_MESSAGES.ambiguousTool(written, match.candidates) };
  return { reason: "unknown_tool", correction: TOOL_CALL_MESSAGES.unknownTool(written, toolNames) };
}

function kindOfValue(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value;
}

/** The one required field a bare value fits: the schema has exactly one required field, of the value's type. */
function fieldForValue(spec: ToolInputSpec, value: unknown): string | undefined {
  if (spec.kind !== "object" || spec.required.length !== 1) return undefined;
  const field = spec.required[0] as string;
  const type = spec.propertyTypes[field];
  const kind = kindOfValue(value);
  if (type === undefined) return undefined;
  if (type === kind || (type === "integer" && kind === "number" && Number.isInteger(value))) return field;
  return undefined;
}

/** A `json` (or `jsonc`, `javascript`) word or a code fence left before the object, and a closing fence after it. */
function withoutFenceWord(text: string): { text: string; removed: boolean } {
  const match = /^(?:```\s*)?(?:json5?|jsonc|javascript|js)?\s*(?=[[{])/i.exec(text);
  if (match === null || match[0].length === 0) return { text, removed: false };
  let rest = text.slice(match[0].length);
  if (rest.trimEnd().endsWith("```")) rest = rest.trimEnd().slice(0, -3);
  return { text: rest.trim(), removed: true };
}

function refuse(reason: ToolCallRefusal, correction: string, name?: string): ToolCallRepairResult {
  return { ok: false, reason, correction, ...(name !== undefined ? { name } : {}) };
}

/**
 * Checks the argument names of an object for an object-schema tool ({@link unknownArgumentNames}):
 * a name the tool does not take refuses the call with the names it does take (a schema would
 * drop it silently, and a misspelt required field would go missing).
 */
function checkFields(name: string, spec: ToolInputSpec, args: Record<string, unknown>, repairs: string[]): ToolCallRepairResult {
  const wrong = unknownArgumentNames(spec, args);
  if (wrong.length > 0) return refuse("unknown_fields", TOOL_CALL_MESSAGES.unknownFields(name, wrong, spec.properties, spec.required), name);
  return { ok: true, name, args, repairs };
}

/**
 * Repairs a tool call the way local models garble them, before it runs: a tool name in a
 * different case, with other separators, with `functions.` in front, Kimi's `:0` index after it
 * or a control token glued to it (`search<|eot_id|>`), accepted only when exactly one registered
 * tool matches (the parser's rule); arguments given as a JSON string, with a `json` fence word
 * before them, smart quotes, single quotes, trailing commas or comments (the parser's JSON repair,
 * `parseLooseJson`); an object whose only value is the real arguments as a JSON string (double
 * encoding); a bare value when the schema has exactly one required field of that value's type.
 * The `ToolExecutor`'s dry-run `confirm` field passes besides the schema's fields.
 *
 * Never guessed, answered with a correction instead: arguments cut off (unbalanced at the end, or
 * `truncated`), a bare value that fits no single field, argument names the tool does not take
 * (`city_name` for `city`; unless its schema accepts undeclared names: zod `.passthrough()`,
 * JSON schema `additionalProperties: true`), also where the schema would strip them silently
 * (the correction names the wrong ones and quotes the expected fields), an unknown tool (the
 * correction lists the tools).
 *
 * @param call - the call as written (`args` an object or a JSON-like string)
 * @param tools - the agent's tools
 * @param options - the JSON repair limit
 * @returns the repaired call, or why it cannot run and the text for the model
 */
export function repairToolCall(call: WrittenToolCall, tools: readonly RepairableTool[], options: ToolCallRepairOptions = {}): ToolCallRepairResult {
  const maxRepairChars = options.maxRepairChars ?? DEFAULT_TOOL_CALL_REPAIR_OPTIONS.maxRepairChars;
  const toolNames = tools.map((tool) => tool.name);
  const named = resolveName(typeof call.name === "string" ? call.name : "", toolNames);
  if ("reason" in named) return refuse(named.reason, named.correction);
  const tool = tools.find((item) => item.name === named.name) as RepairableTool;
  const spec = describeToolInput(tool);
  const repairs = [...named.repairs];
  const name = named.name;
  if (call.truncated === true) return refuse("truncated_arguments", TOOL_CALL_MESSAGES.truncatedArguments(name, spec.properties), name);

  let args: unknown = call.args;
  if (typeof args === "string") {
    let trimmed = args.trim();
    const fence = withoutFenceWord(trimmed);
    if (fence.removed) {
      trimmed = fence.text;
      repairs.push("fence_word_removed");
    }
    if ((trimmed[0] === "{" || trimmed[0] === "[") && findBalancedEnd(trimmed, 0) < 0) {
      // Complete but for its last brace(s): a slip, closed; anything else was cut off.
      const closers = missingClosers(trimmed, 0);
      if (closers === undefined) return refuse("truncated_arguments", TOOL_CALL_MESSAGES.truncatedArguments(name, spec.properties), name);
      trimmed += closers;
      repairs.push("closing_brace_added");
    }
    const parsed = trimmed.length === 0 ? { value: {}, repairs: [] } : parseLooseJson(trimmed, maxRepairChars);
    if (parsed === undefined) {
      if (/^[[{]/.test(trimmed)) return refuse("unreadable_arguments", TOOL_CALL_MESSAGES.unreadableArguments(name, spec.properties), name);
      // A plain word ("Paris"): a bare string value.
      args = trimmed;
    } else {
      args = parsed.value;
      repairs.push("arguments_string", ...parsed.repairs);
    }
  }
  if (args === undefined || args === null) args = {};
  if (!isRecord(args)) {
    if (spec.kind === "string" && typeof args === "string") return { ok: true, name, args: { input: args }, repairs };
    const field = fieldForValue(spec, args);
    if (field !== undefined) return { ok: true, name, args: { [field]: args }, repairs: [...repairs, "bare_value"] };
    return refuse("bare_value", TOOL_CALL_MESSAGES.bareValue(name, kindOfValue(args), spec.properties, spec.required), name);
  }
  // {"input": "{\"query\": …}"}: the real arguments, encoded once more, under a key the schema does not declare.
  const entries = Object.entries(args);
  if (spec.kind === "object" && entries.length === 1 && !spec.properties.includes(entries[0][0]) && typeof entries[0][1] === "string") {
    const inner = parseLooseJson(withoutFenceWord(entries[0][1].trim()).text, maxRepairChars);
    if (inner !== undefined && isRecord(inner.value)) return checkFields(name, spec, inner.value, [...repairs, "json_double_encoded", ...inner.repairs]);
  }
  return checkFields(name, spec, args, repairs);
}
