/** The tool a reply names, matched against the registered tools (exact, normalised, fuzzy). */
import { PARSER_MESSAGES } from "./messages";
import { fail, type Finished, type Work } from "./react-step";
import { matchToolName, suggestToolName } from "./tool-names";
import type { ToolInputSpec } from "./tool-schema";

export function resolveTool(work: Work, written: string, inputMissing: boolean): { spec: ToolInputSpec } | Finished {
  const { toolNames, messageLabels, fuzzyMaxDistance } = work.config;
  const match = matchToolName(written, toolNames, fuzzyMaxDistance);
  if (match.status === "exact" || match.status === "normalized" || match.status === "fuzzy") {
    if (match.status === "normalized") work.repairs.add(match.repair);
    if (match.status === "fuzzy") work.repairs.add("tool_name_fuzzy");
    const spec = work.config.tools.get(match.name);
    if (spec !== undefined) return { spec };
  }
  if (match.status === "ambiguous") return fail(work, "ambiguous_tool", PARSER_MESSAGES.ambiguousTool(messageLabels, written, match.candidates));
  const suggestion = suggestToolName(written, toolNames);
  return fail(work, "unknown_tool", PARSER_MESSAGES.unknownTool(messageLabels, toolNames, written, suggestion, inputMissing));
}

