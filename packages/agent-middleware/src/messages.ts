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
  /** The note appended when the model is asked again after its server could not parse its tool call. */
  serverParseFailure: (toolNames: readonly string[]): string =>
    `The model server could not read your last reply as a tool call, so nothing was run. ` +
    `To call a tool, call exactly one of ${toolNames.map((name) => JSON.stringify(name)).join(", ")} by its exact name, with its arguments as one valid JSON object ` +
    `(double-quoted keys and strings, no comments, nothing after the object). To answer instead, reply with text only.`,
});
