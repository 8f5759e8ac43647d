/**
 * Every text `LoopControlHandler` writes for the model, in one place so they can be reviewed
 * together. Notes are appended to the next observation by the wrapped tool (`@reins/tool-executor`
 * drains `RunContext.loop.pendingNotes`), so they are short, specific and say what to do instead.
 */

import { LOOP_NOTE_PREFIXES } from "@reins/core";

/** First words of a loop note: `@reins/core`'s `stripLoopNotes` recognises them. */
const LOOP_NOTICE = LOOP_NOTE_PREFIXES[0];
/** First words of a budget note. */
const BUDGET_NOTICE = LOOP_NOTE_PREFIXES[1];

/** What a note may mention. */
export interface NoteFacts {
  readonly toolName: string;
  /** Earlier identical calls (repeat: the same result in a row, by default) or near-duplicate thoughts (stall). */
  readonly count: number;
  /** A short preview of what the earlier identical call returned, when known. */
  readonly previousObservation?: string;
  /** Tool names of one cycle period, oldest first (cycle). */
  readonly cycleTools?: readonly string[];
}

/** The tool name AgentExecutor uses for a parse-error step. */
export const EXCEPTION_TOOL_NAME = "_Exception";

/** Note for a repeated action. */
export function repeatNote(facts: NoteFacts): string {
  if (facts.toolName === EXCEPTION_TOOL_NAME) {
    return `${LOOP_NOTICE} You made the same format mistake ${facts.count} times. Write exactly "Action:" and "Action Input:" lines, or "Final Answer:" if you can answer.`;
  }
  const result =
    facts.previousObservation === undefined
      ? "Calling it again will not give a new result."
      : `It returned: ${facts.previousObservation}`;
  const times = facts.count === 1 ? "once" : facts.count === 2 ? "twice" : `${facts.count} times`;
  return `${LOOP_NOTICE} You already called ${facts.toolName} with this input ${times}. ${result} Use that result, try a different action, or give your Final Answer.`;
}

/** Note for a cycle of actions. */
export function cycleNote(facts: NoteFacts): string {
  const path = (facts.cycleTools ?? [facts.toolName]).join(" → ");
  return `${LOOP_NOTICE} You are going in circles (${path}, repeated). These steps will not give new results: use what you found, try something different, or give your Final Answer.`;
}

/** Note for stalled (near-duplicate) thoughts. */
export function stallNote(facts: NoteFacts): string {
  return `${LOOP_NOTICE} Your last ${facts.count} thoughts say nearly the same thing, so you are not making progress. Use what you found, try a different approach, or give your Final Answer.`;
}

/** Note when a budget is almost used up. */
export function budgetNote(kind: "max_steps" | "time_budget" | "token_budget" | "cost_budget", remaining: string): string {
  switch (kind) {
    case "max_steps":
      return `${BUDGET_NOTICE} Only ${remaining} steps left. Give your Final Answer soon with what you have.`;
    case "time_budget":
      return `${BUDGET_NOTICE} Time is almost up (${remaining} left). Give your Final Answer soon with what you have.`;
    case "token_budget":
    case "cost_budget":
      return `${BUDGET_NOTICE} The usage budget is almost spent. Give your Final Answer soon with what you have.`;
  }
}

/** Shortens an observation to `maxChars` for a note, on one line. */
export function previewObservation(observation: string, maxChars: number): string {
  const oneLine = observation.replace(/\s+/g, " ").trim();
  if (oneLine.length === 0) return "(an empty result)";
  return oneLine.length <= maxChars ? oneLine : `${oneLine.slice(0, Math.max(0, maxChars - 1))}…`;
}

/**
 * The model-facing text of a typed loop note (see `LoopNote` in loop-detection.ts): the one place
 * a note becomes words, at the edge that shows it to the model.
 */
export function renderLoopNote(note: import("./loop-detection").LoopNote): string {
  switch (note.kind) {
    case "repeat":
      return repeatNote(note);
    case "cycle":
      return cycleNote(note);
    case "stall":
      return stallNote(note);
    case "budget":
      return budgetNote(note.budget, note.remaining);
  }
}
