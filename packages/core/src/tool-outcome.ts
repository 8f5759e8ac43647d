import { TOOL_CALL_OUTCOMES, type ToolCallOutcome } from "./events";

/**
 * The key under which the `ToolExecutor` writes a call's typed outcome on the `ToolMessage` it
 * returns (`message.metadata.reinsOutcome`), so a reader of the saved messages (the `createAgent`
 * middleware after a resume, an audit) gets the outcome without parsing the model-facing text.
 */
export const TOOL_OUTCOME_METADATA_KEY = "reinsOutcome";

/**
 * The typed outcome a `ToolMessage` carries in `metadata.reinsOutcome`, or `undefined` when it
 * carries none (a message not written by the `ToolExecutor`) or an unknown value.
 * @param message - a `ToolMessage`-like object (anything with an optional `metadata` record)
 */
export function toolOutcomeOf(message: unknown): ToolCallOutcome | undefined {
  if (message === null || typeof message !== "object") return undefined;
  const metadata = (message as { metadata?: unknown }).metadata;
  if (metadata === null || typeof metadata !== "object") return undefined;
  const outcome = (metadata as Record<string, unknown>)[TOOL_OUTCOME_METADATA_KEY];
  return typeof outcome === "string" && (TOOL_CALL_OUTCOMES as readonly string[]).includes(outcome) ? (outcome as ToolCallOutcome) : undefined;
}

/**
 * Whether a call with this outcome counts against `maxCallsPerRun`: it passed the call cap (the
 * tool ran, or was tried: `success`, `error`, `timeout`, `circuit_open`, `fallback`). A cached,
 * dry-run, invalid or rejected call never reached the cap.
 */
export function countsAgainstCallCap(outcome: ToolCallOutcome): boolean {
  return outcome === "success" || outcome === "error" || outcome === "timeout" || outcome === "circuit_open" || outcome === "fallback";
}

/**
 * The `status` of the `ToolMessage` a call with this outcome answers with: `"success"` for a result
 * the model can use or a dry-run preview (`success`, `cached`, `fallback`, `dry_run`), `"error"` for
 * every failed or refused call (`error`, `timeout`, `circuit_open`, `rejected`, `invalid_input`).
 * The audit trails of every path mark the same calls failed.
 */
export function toolMessageStatusOf(outcome: ToolCallOutcome): "success" | "error" {
  return outcome === "success" || outcome === "cached" || outcome === "fallback" || outcome === "dry_run" ? "success" : "error";
}
