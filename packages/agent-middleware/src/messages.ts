import { TOOL_CALL_MESSAGES } from "@reins/react-output-parser";

/**
 * Every text `@reins/agent-middleware` writes for the model, in one place so they can be reviewed
 * together. Short, specific, and they say what to do instead (the corrective style of Vercel AI's
 * `repairToolCall` errors: what happened and what is available). The tool-call corrections are the
 * parser package's `TOOL_CALL_MESSAGES`, shared with `reins-parse`.
 */
export const MIDDLEWARE_MESSAGES = Object.freeze({
  ...TOOL_CALL_MESSAGES,
  /** A tool call left unanswered because loop control ended the run. */
  notRunStopped: (toolName: string): string => `${toolName} was not called: the run was stopped.`,
  /** A tool call left unanswered because the run's saved state was refused. */
  notRunTampered: (toolName: string): string => `${toolName} was not called: this run's saved state was changed outside the agent, so the run was stopped.`,
  /** The note appended when the model is asked again after its server could not parse its tool call. */
  serverParseFailure: (toolNames: readonly string[]): string =>
    `The model server could not read your last reply as a tool call, so nothing was run. ` +
    `To call a tool, call exactly one of ${toolNames.map((name) => JSON.stringify(name)).join(", ")} by its exact name, with its arguments as one valid JSON object ` +
    `(double-quoted keys and strings, no comments, nothing after the object). To answer instead, reply with text only.`,
});

/**
 * Texts for operators (events, the stop message in `reinsRun.stop`, the logger) about the run's
 * saved state, in one place. They name what was found, never message content.
 */
export const STATE_MESSAGES = Object.freeze({
  unsignedStateWarning:
    "Reins: no state key is set (stateKey option or REINS_STATE_KEY), so the run state Reins saves in graph state is not signed: call caps, budgets and loop history of a resumed run are only as strong as the checkpoint store's access control (and whoever can pass a Command update).",
  stateTampered: (reason: string): string => `The run's saved state was refused: ${reason}.`,
  recordRemoved: "the run record was removed from a thread whose messages carry Reins signatures",
  recordUnsigned: "the run record carries no signature in a thread whose messages carry Reins signatures",
  inputRecord: "Reins' state keys (reinsRun, reinsRunId, stopReason) were set by the run's input, or the thread's run record does not verify (set by a state update, or changed in the store)",
  runIdChanged: "the state's reinsRunId is not the signed record's run id (set by a state update, or changed in the store)",
  callAdded: (toolCallId: string | undefined): string => `tool call ${toolCallId ?? "(no id)"} is in no model reply Reins signed (added to a saved reply)`,
  legacyAdopted: (modelCalls: number, toolCalls: number): string =>
    `a thread saved without a Reins run record was adopted with counts rebuilt from its messages (${modelCalls} model calls, ${toolCalls} tool calls against caps)`,
});
