/**
 * Every string of `@reins/tool-executor` that the model reads, in one place so they can be
 * reviewed together. Each says what happened, whether trying again can help, and what to do.
 * They never include a stack trace, `undefined`, `[object Object]` or an empty string.
 */

import { UNICODE_LINE_BREAKS } from "@reins/core";

const MAX_DETAIL_CHARS = 500;

/** Texts that carry no information for the model (a stringified `undefined`, object, …). */
const PLACEHOLDER_DETAILS = new Set(["undefined", "null", "nan", "[object object]", "error", "error: undefined", "error: [object object]"]);

/**
 * An error message for quoting to the model: every non-blank line kept (split on every Unicode
 * line break the parser reads: CR, LF, VT, FF, NEL, LS, PS), joined with ` / ` (a
 * message cannot start a line of the observation), bounded to 500 characters with the cut
 * marked. A detail that is only a stringified placeholder (`"undefined"`, `"[object Object]"`, …)
 * becomes `"no details"`, and an embedded `[object Object]` becomes `(an object)`. The executor
 * neutralises the whole observation afterwards (`neutralizeUntrustedText` of `@reins/core`).
 */
export function briefDetail(text: string): string {
  const bounded = text.length > MAX_DETAIL_CHARS * 4 ? text.slice(0, MAX_DETAIL_CHARS * 4) : text;
  const lines = bounded.split(UNICODE_LINE_BREAKS).map((line) => line.trim()).filter((line) => line !== "");
  const joined = lines.join(" / ");
  if (PLACEHOLDER_DETAILS.has(joined.slice(0, 40).replace(/[.\s]+$/, "").toLowerCase())) return "no details";
  const detail = joined.replace(/\[object Object\]/g, "(an object)");
  // Clip before stripping trailing full stops, so the regex only ever sees a bounded string.
  const omitted = text.length - bounded.length + Math.max(0, detail.length - MAX_DETAIL_CHARS);
  const clipped = detail.length > MAX_DETAIL_CHARS || omitted > 0 ? `${detail.slice(0, MAX_DETAIL_CHARS)}… (${omitted} more characters)` : detail.replace(/[.\s]+$/, "");
  return clipped === "" ? "no details" : clipped;
}

function seconds(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const value = ms / 1000;
  return `${Number.isInteger(value) ? value : value.toFixed(1)} s`;
}

/** A wait rounded up to whole seconds (at least 1 s), as the model reads it. */
function wholeSeconds(ms: number): string {
  return seconds(Math.max(1, Math.ceil(ms / 1000)) * 1000);
}

function attemptsText(attempts: number): string {
  return attempts > 1 ? ` (tried ${attempts} times)` : "";
}

/** The model-facing strings, as functions of the facts they mention. */
export const MODEL_MESSAGES = Object.freeze({
  timeout: (toolName: string, timeoutMs: number, attempts: number): string =>
    `Tool "${toolName}" did not answer within ${seconds(timeoutMs)}${attemptsText(attempts)}. ` +
    `The service may be slow or down right now: do not call it again with the same input; use another tool or answer with what you already know.`,

  retryableError: (toolName: string, detail: string, attempts: number): string =>
    `Tool "${toolName}" failed with a temporary error${attemptsText(attempts)}: ${briefDetail(detail)}. ` +
    `Trying again right away is unlikely to help: use another tool or answer with what you already know.`,

  permanentError: (toolName: string, detail: string): string =>
    `Tool "${toolName}" failed: ${briefDetail(detail)}. ` +
    `Retrying the same input will fail the same way: change the input, use another tool, or answer with what you already know.`,

  clientError: (toolName: string, status: number, detail: string): string =>
    `Tool "${toolName}" rejected the request (HTTP ${status}): ${briefDetail(detail)}. ` +
    `Retrying the same input will fail the same way: fix the input or use another tool.`,

  circuitOpen: (toolName: string, retryAfterMs: number): string =>
    `Tool "${toolName}" is unavailable right now (it failed repeatedly, so calls are paused for about ${seconds(retryAfterMs)}). ` +
    `Do not call it again now: use another tool, or answer with what you already know and say this source was unavailable.`,

  rateLimited: (toolName: string, retryAfterMs: number): string =>
    `Tool "${toolName}" was not called: its request quota is used up right now (a slot frees in about ${wholeSeconds(retryAfterMs)}). ` +
    `Do not call it again before then: use another tool, or answer with what you already know.`,

  retryAfter: (toolName: string, retryAfterMs: number, attempts: number): string =>
    `Tool "${toolName}" is overloaded${attemptsText(attempts)}: the service asked to wait about ${wholeSeconds(retryAfterMs)} before trying again. ` +
    `Do not call it again before then: use another tool, or answer with what you already know.`,

  bulkheadRejected: (toolName: string, maxConcurrent: number): string =>
    `Tool "${toolName}" is busy (${maxConcurrent} calls already running and its queue is full), so this call was not made. ` +
    `Wait for the results you already requested, or use another tool.`,

  callLimit: (toolName: string, maxCallsPerRun: number): string =>
    `Tool "${toolName}" was already called ${maxCallsPerRun} times in this task, its limit, so this call was not made. ` +
    `Use the results you already have to answer, or use another tool.`,

  invalidInput: (toolName: string, issues: readonly { path: string; message: string }[], expected?: string): string =>
    `Invalid input for tool "${toolName}": ${issues
      .slice(0, 8)
      .map((issue) => (issue.path ? `${issue.path}: ${briefDetail(issue.message)}` : briefDetail(issue.message)))
      .join("; ")}.` +
    (expected === undefined ? "" : ` Expected: ${expected}.`) +
    ` Fix the input and call the tool again.`,

  notJson: (toolName: string, expected: string): string =>
    `Invalid input for tool "${toolName}": the input must be a JSON object (${expected}). Write it as JSON and call the tool again.`,

  resultCheckFailed: (toolName: string, label: string, detail: string, retryable: boolean): string =>
    `Tool "${toolName}" answered, but the result reports a failure (${label}: ${briefDetail(detail)}). ` +
    (retryable
      ? `The service seems to be having a temporary problem: use another tool or answer with what you already know.`
      : `The data cannot be used as is: change the input or use another tool.`),

  dryRunObject: (toolName: string, inputText: string, token: string): string =>
    `DRY RUN: tool "${toolName}" has side effects and was NOT executed. It would run with input ${inputText}. ` +
    `If this action is really intended, call "${toolName}" again with the same input plus "confirm": "${token}" (the confirmation token of this dry run).`,

  dryRunString: (toolName: string, inputText: string, token: string): string =>
    `DRY RUN: tool "${toolName}" has side effects and was NOT executed. It would run with input ${inputText}. ` +
    `If this action is really intended, call "${toolName}" again with the input {"input": ${inputText}, "confirm": "${token}"} (the confirmation token of this dry run).`,

  /**
   * The call's run is unknown (no run id, no bound run), so no confirmation token can be bound to
   * it and none is accepted: only the app's `approve` hook can run it.
   */
  dryRunUnbound: (toolName: string, inputText: string): string =>
    `DRY RUN: tool "${toolName}" has side effects and was NOT executed. It would run with input ${inputText}. ` + MODEL_MESSAGES.unboundHint(toolName),

  /** Appended to a user's own dry-run preview when the call's run is unknown. */
  unboundHint: (toolName: string): string =>
    `This call cannot be confirmed from here: it needs the application's approval (an approve hook) or a run that can be identified ` +
    `(the application passes callbacks to the agent executor, or uses Reins' createReactAgent). Do not call "${toolName}" again; ` +
    `tell the user what you wanted to do and that it needs their approval.`,

  /**
   * The input is longer than the dry run can show whole (`maxConfirmableInputChars`): no token is
   * issued, so nothing unseen is confirmed; only the application's `approve` hook can run it.
   */
  dryRunTooLong: (toolName: string, inputText: string, maxChars: number): string =>
    `DRY RUN: tool "${toolName}" has side effects and was NOT executed. It would run with input ${inputText}. ` + MODEL_MESSAGES.tooLongHint(toolName, maxChars),

  /** Appended to a user's own dry-run preview when the input is too long to confirm. */
  tooLongHint: (toolName: string, maxChars: number): string =>
    `This input is longer than the ${maxChars} characters a dry run shows whole, so it cannot be confirmed with a token: ` +
    `it needs the application's approval (an approve hook). Do not call "${toolName}" again with this input; ` +
    `tell the user what you wanted to do and that it needs their approval, or use a shorter input.`,

  /** Appended to a user's own dry-run preview, so the model still learns the token. */
  confirmationHint: (toolName: string, token: string): string =>
    `To really run "${toolName}", call it again with the same input and the confirmation "confirm": "${token}".`,

  /** A user's confirmWhen decides: the hint names no token. */
  dryRunConfirmWhen: (toolName: string, inputText: string): string =>
    `DRY RUN: tool "${toolName}" has side effects and was NOT executed. It would run with input ${inputText}. ` +
    `If this action is really intended, call "${toolName}" again with the same input and an explicit confirmation.`,

  inDoubt: (toolName: string): string =>
    `Tool "${toolName}" was NOT run again: an earlier attempt of this exact call started but its result was never recorded, ` +
    `so the action MAY ALREADY HAVE HAPPENED. Do not call it again. Tell the user that the outcome is unknown and that they or an operator must check and decide.`,

  ledgerUnavailable: (toolName: string): string =>
    `Tool "${toolName}" was not run: the record that keeps this action from running twice could not be reached. ` +
    `Do not retry right now; tell the user the action did not run and can be tried later.`,

  notApproved: (toolName: string): string =>
    `Tool "${toolName}" was not run: this action was not approved. Do not call it again with the same input; ` +
    `tell the user what you wanted to do, or use another way.`,

  duplicate: (toolName: string, previousObservation: string | undefined): string =>
    `Tool "${toolName}" was already run with this input in this task, so it was not run again (to avoid doing the same action twice).` +
    (previousObservation === undefined ? "" : ` Earlier result: ${previousObservation}`),

  noData: (toolName: string): string => `Tool "${toolName}" returned no data.`,

  unreadable: (toolName: string): string =>
    `Tool "${toolName}" returned a value that could not be turned into text. Try a different input or another tool.`,

  fallbackToolFailed: (toolName: string, backupToolName: string): string =>
    `Tool "${toolName}" failed and its backup "${backupToolName}" failed too. Use another tool or answer with what you already know.`,

  fallbackUsed: (toolName: string, backupToolName: string, observation: string): string =>
    `(Tool "${toolName}" was unavailable; this answer comes from "${backupToolName}".) ${observation}`,

  runStopping: (toolName: string): string =>
    `Tool "${toolName}" was not called: this task is being stopped (too many steps or repeated actions). ` +
    `Do not call more tools; give your final answer now with what you already know.`,

  truncated: (omittedChars: number): string => `\n… [output truncated: ${omittedChars} more characters not shown]`,

  cancelled: (toolName: string): string => `Tool "${toolName}" was cancelled before it finished.`,

  runTimeUp: (toolName: string): string =>
    `Tool "${toolName}" was stopped: the time allowed for this task has run out. ` +
    `Do not call more tools; give your final answer now with what you already know.`,
});

