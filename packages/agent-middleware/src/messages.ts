/**
 * Every text `@reins/agent-middleware` writes for the model, in one place so they can be reviewed
 * together. Short, specific, and they say what to do instead (the corrective style of Vercel AI's
 * `repairToolCall` errors: what happened and what is available).
 */
export const MIDDLEWARE_MESSAGES = Object.freeze({
  /** A tool call names no tool of the agent. */
  unknownTool: (written: string, toolNames: readonly string[]): string =>
    `Model tried to call unavailable tool '${written}'. Available tools: ${toolNames.join(", ") || "none"}. Call one of these by its exact name.`,
  /** A tool call names a tool ambiguously (several tools match after normalisation). */
  ambiguousTool: (written: string, candidates: readonly string[]): string =>
    `Tool name '${written}' matches several tools (${candidates.join(", ")}). Call one of them by its exact name.`,
  /** A tool call's arguments are not JSON, even after repair. */
  unreadableArguments: (toolName: string, fields: readonly string[]): string =>
    `The arguments of your call to ${toolName} are not valid JSON, even after repair. Call ${toolName} again with a JSON object` +
    (fields.length > 0 ? ` with the fields: ${fields.join(", ")}.` : "."),
  /** A tool call left unanswered because loop control ended the run. */
  notRunStopped: (toolName: string): string => `${toolName} was not called: the run was stopped.`,
});
