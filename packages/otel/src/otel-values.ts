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

/** The low-cardinality `error.type` of a failed call: the typed error's name, else the outcome. */
export function errorTypeOf(event: ToolCallEvent): string {
  const name = event.error?.name;
  if (typeof name === "string" && /^[A-Za-z_][A-Za-z0-9_.]{0,63}$/.test(name) && name !== "Error") return name;
  return event.outcome === "fallback" || event.outcome === "error" ? ERROR_TYPE_OTHER : event.outcome;
}
