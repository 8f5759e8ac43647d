import { describeToolInput, matchToolName, parseLooseJson, type ToolInputSpec } from "@reins/react-output-parser";
import { MIDDLEWARE_MESSAGES } from "./messages";

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
}

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
      /** Why the call cannot run: `unknown_tool`, `ambiguous_tool` or `unreadable_arguments`. */
      readonly reason: "unknown_tool" | "ambiguous_tool" | "unreadable_arguments";
      /** The corrective text for the model (what was wrong, the fields or the valid tools). */
      readonly correction: string;
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function resolveName(
  written: string,
  toolNames: readonly string[],
): { name: string; repairs: string[] } | { reason: "unknown_tool" | "ambiguous_tool"; correction: string } {
  if (toolNames.includes(written)) return { name: written, repairs: [] };
  const repairs: string[] = [];
  let candidate = written.trim();
  const lower = candidate.toLowerCase();
  const prefix = NAME_PREFIXES.find((item) => lower.startsWith(item));
  if (prefix !== undefined) {
    candidate = candidate.slice(prefix.length);
    repairs.push("tool_name_prefix");
    if (toolNames.includes(candidate)) return { name: candidate, repairs };
  }
  const match = matchToolName(candidate, toolNames, 0);
  if (match.status === "exact") return { name: match.name, repairs };
  if (match.status === "normalized") return { name: match.name, repairs: [...repairs, match.repair] };
  if (match.status === "ambiguous") {
    return { reason: "ambiguous_tool", correction: MIDDLEWARE_MESSAGES.ambiguousTool(written, match.candidates) };
  }
  return { reason: "unknown_tool", correction: MIDDLEWARE_MESSAGES.unknownTool(written, toolNames) };
}

/** The one declared field a bare value belongs to, for a tool with exactly one field. */
function soleField(spec: ToolInputSpec): string | undefined {
  return spec.kind === "object" && spec.properties.length === 1 ? spec.properties[0] : undefined;
}

/**
 * Repairs a tool call the way local models garble them, before it runs: a tool name in a
 * different case, with other separators or with `functions.` in front (accepted only when
 * exactly one registered tool matches, the parser's rule); arguments given as a JSON string, with
 * smart quotes, single quotes, trailing commas, comments or a missing bracket (the parser's JSON
 * repair, `parseLooseJson`); an object whose only value is the real arguments as a JSON string
 * (double encoding); a bare value for a tool with a single field. Field checks against the schema
 * are left to the ToolExecutor, which names the fields at fault.
 *
 * What cannot be repaired gets a corrective text naming the valid tools or the fields, as Vercel
 * AI's `repairToolCall` / `NoSuchToolError` do.
 *
 * @param call - the call as written (`args` an object or a JSON-like string)
 * @param tools - the agent's tools
 * @returns the repaired call, or why it cannot run and the text for the model
 */
export function repairToolCall(
  call: WrittenToolCall,
  tools: readonly RepairableTool[],
  options: ToolCallRepairOptions = {},
): ToolCallRepairResult {
  const maxRepairChars = options.maxRepairChars ?? DEFAULT_TOOL_CALL_REPAIR_OPTIONS.maxRepairChars;
  const toolNames = tools.map((tool) => tool.name);
  const named = resolveName(typeof call.name === "string" ? call.name : "", toolNames);
  if ("reason" in named) return { ok: false, reason: named.reason, correction: named.correction };
  const tool = tools.find((item) => item.name === named.name) as RepairableTool;
  const spec = describeToolInput(tool);
  const repairs = [...named.repairs];

  let args: unknown = call.args;
  if (typeof args === "string") {
    const trimmed = args.trim();
    const parsed = trimmed.length === 0 ? { value: {}, repairs: [] } : parseLooseJson(trimmed, maxRepairChars);
    if (parsed === undefined) {
      const field = soleField(spec);
      // A plain word for a single-field tool ("Paris" for { city }) is that field's value.
      if (field !== undefined && !/^[[{]/.test(trimmed)) return { ok: true, name: named.name, args: { [field]: trimmed }, repairs: [...repairs, "bare_value"] };
      return { ok: false, reason: "unreadable_arguments", correction: MIDDLEWARE_MESSAGES.unreadableArguments(named.name, spec.properties) };
    }
    args = parsed.value;
    repairs.push("arguments_string", ...parsed.repairs);
  }
  if (args === undefined || args === null) args = {};
  if (!isRecord(args)) {
    const field = soleField(spec);
    if (field !== undefined) return { ok: true, name: named.name, args: { [field]: args }, repairs: [...repairs, "bare_value"] };
    if (spec.kind === "string") return { ok: true, name: named.name, args: { input: args }, repairs };
    return { ok: false, reason: "unreadable_arguments", correction: MIDDLEWARE_MESSAGES.unreadableArguments(named.name, spec.properties) };
  }
  // {"input": "{\"query\": …}"}: the real arguments, encoded once more, under a key the schema does not declare.
  const entries = Object.entries(args);
  if (spec.kind === "object" && entries.length === 1 && !spec.properties.includes(entries[0][0]) && typeof entries[0][1] === "string") {
    const inner = parseLooseJson(entries[0][1].trim(), maxRepairChars);
    if (inner !== undefined && isRecord(inner.value)) {
      return { ok: true, name: named.name, args: inner.value, repairs: [...repairs, "json_double_encoded", ...inner.repairs] };
    }
  }
  return { ok: true, name: named.name, args, repairs };
}
