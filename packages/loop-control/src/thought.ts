import { matchReActLabel } from "@reins/core";

/**
 * The Thought text of a step: the action's log up to its first Action/Final Answer label, on one
 * line. The stall detector compares these.
 *
 * @param log - an `AgentAction.log` (the model's reply for the step)
 * @returns the thought, whitespace collapsed; `""` when the reply has none
 */
export function thoughtOf(log: string): string {
  const lines: string[] = [];
  for (const line of log.split("\n")) {
    const match = matchReActLabel(line);
    if (match !== undefined && match.label !== "thought") break;
    lines.push(match?.label === "thought" ? match.value : line);
  }
  return lines.join(" ").replace(/\s+/g, " ").trim();
}
