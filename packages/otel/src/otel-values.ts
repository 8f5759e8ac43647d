import type { ToolCallEvent, ToolCallOutcome } from "@reins/core";
import { ERROR_TYPE_OTHER } from "./gen-ai-names";

/** Attribute values the recorder derives from Reins events. */

/** Outcomes of a tool call that ended in an error (the fallback filled in for one). */
export const FAILED_OUTCOMES: ReadonlySet<ToolCallOutcome> = new Set<ToolCallOutcome>([
  "error",
  "timeout",
  "circuit_open",
  "rejected",
  "invalid_input",
  "fallback",
  "in_doubt",
]);

/** A finite number ≥ 0, else `undefined`. */
export function nonNegative(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Tool arguments as the conventions want them: a JSON string (a plain string stays as it is). */
export function argumentsText(toolInput: unknown): string {
  if (typeof toolInput === "string") return toolInput;
  try {
    return JSON.stringify(toolInput) ?? String(toolInput);
  } catch {
    return String(toolInput);
  }
}

/** A string as it is, anything else as JSON. */
export function textOf(value: unknown): string {
  return typeof value === "string" ? value : argumentsText(value);
}

/** A class name fit for `error.type`: an identifier, and more specific than the bare `Error`. */
function typedName(error: unknown): string | undefined {
  const name = (error as { name?: unknown } | null | undefined)?.name;
  return typeof name === "string" && /^[A-Za-z_][A-Za-z0-9_.]{0,63}$/.test(name) && name !== "Error" ? name : undefined;
}

/** The ToolExecutor's wrapper around whatever the tool's own code threw (its `cause`). */
const TOOL_EXECUTION_ERROR = "ToolExecutionError";

/**
 * The low-cardinality `error.type` of a failed call: the typed error's class name, else the
 * outcome. For the ToolExecutor's `ToolExecutionError` wrapper, the class of the error the tool
 * threw (its `cause`) when that has one, since the wrapper's name is the same for every tool failure.
 */
export function errorTypeOf(event: ToolCallEvent): string {
  const name = typedName(event.error);
  if (name === TOOL_EXECUTION_ERROR) return typedName(event.error?.cause) ?? name;
  if (name !== undefined) return name;
  return event.outcome === "fallback" || event.outcome === "error" ? ERROR_TYPE_OTHER : event.outcome;
}
