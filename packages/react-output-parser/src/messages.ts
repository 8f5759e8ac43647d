/**
 * Every string the parser sends to the model, kept together so they can be reviewed as one. Each
 * corrective observation says what was wrong, what to write instead, and (where relevant) the valid
 * tool names. None carries a URL.
 */

import { fieldList } from "./tool-call-messages";

/** Label words the messages use (the first configured word of each label, in its display form). */
export interface MessageLabels {
  readonly thought: string;
  readonly action: string;
  readonly actionInput: string;
  readonly observation: string;
  readonly finalAnswer: string;
}

/** The labels LangChain's ReAct prompt uses. */
export const DEFAULT_MESSAGE_LABELS: MessageLabels = Object.freeze({
  thought: "Thought",
  action: "Action",
  actionInput: "Action Input",
  observation: "Observation",
  finalAnswer: "Final Answer",
});

const MAX_QUOTED_CHARS = 120;

/** Quotes a piece of model text for a message, shortened to a bounded length. */
export function quote(text: string): string {
  const singleLine = text.slice(0, MAX_QUOTED_CHARS * 4).replace(/\s+/g, " ").trim();
  const shortened = singleLine.length > MAX_QUOTED_CHARS ? `${singleLine.slice(0, MAX_QUOTED_CHARS)}…` : singleLine;
  return `'${shortened}'`;
}

/** The list of valid tool names, as written in messages. */
export function toolList(toolNames: readonly string[]): string {
  if (toolNames.length === 0) return "(no tools are available)";
  return toolNames.join(", ");
}

/** The format reminder appended to most corrective observations. */
export function formatReminder(labels: MessageLabels, toolNames: readonly string[]): string {
  const action = toolNames.length > 0
    ? `${labels.action}: <exactly one of: ${toolList(toolNames)}>\n${labels.actionInput}: <the input for the tool>\n(then stop and wait for the ${labels.observation})`
    : "(no tools are available, so answer directly)";
  return `Reply in this format:\n${labels.thought}: <your reasoning>\n${action}\nor, when you can answer:\n${labels.thought}: I now know the final answer\n${labels.finalAnswer}: <the answer>`;
}

/** Model-facing explanations, one per rejection reason. */
export const PARSER_MESSAGES = {
  notText: (labels: MessageLabels, toolNames: readonly string[]): string =>
    `Your reply could not be read as text. ${formatReminder(labels, toolNames)}`,
  emptyOutput: (labels: MessageLabels, toolNames: readonly string[]): string =>
    `Your reply was empty. ${formatReminder(labels, toolNames)}`,
  reasoningOnly: (labels: MessageLabels, toolNames: readonly string[]): string =>
    `Your reply contained only reasoning inside <think> tags (never acted on) and no ${labels.action} or ${labels.finalAnswer}. Close the reasoning and then write the next step. ${formatReminder(labels, toolNames)}`,
  missingAction: (labels: MessageLabels, toolNames: readonly string[], mentioned: readonly string[], truncated: boolean): string => {
    const stopped = truncated ? "Your reply stopped mid-sentence. " : "";
    const hint = mentioned.length > 0
      ? ` You mentioned ${mentioned.map((name) => `'${name}'`).join(", ")}: to use a tool, write '${labels.action}: ${mentioned[0]}' on its own line, then '${labels.actionInput}: <input>' on the next.`
      : "";
    return `${stopped}Your reply has no '${labels.action}:' line and no '${labels.finalAnswer}:'.${hint} If you are done, put the reply for the user after '${labels.finalAnswer}:'. ${formatReminder(labels, toolNames)}`;
  },
  missingActionLabel: (labels: MessageLabels, toolNames: readonly string[]): string =>
    `You wrote '${labels.actionInput}:' without an '${labels.action}:' line before it. Write '${labels.action}: <tool name>' (exactly one of: ${toolList(toolNames)}) and then '${labels.actionInput}: <input>'.`,
  emptyToolName: (labels: MessageLabels, toolNames: readonly string[]): string =>
    `The '${labels.action}:' line is empty. Write the tool name after '${labels.action}:' - exactly one of: ${toolList(toolNames)} - and its input after '${labels.actionInput}:'.`,
  unknownTool: (labels: MessageLabels, toolNames: readonly string[], written: string, suggestion: string | undefined, missingInput: boolean): string => {
    const did = suggestion !== undefined ? ` Did you mean '${suggestion}'? Write '${labels.action}: ${suggestion}' with nothing else on that line.` : "";
    const input = missingInput ? ` Then write '${labels.actionInput}: <the input for the tool>' on the next line.` : "";
    return `${quote(written)} is not a valid tool. The ${labels.action} must be exactly one of: ${toolList(toolNames)} (the tool name alone, nothing else on the line).${did}${input}`;
  },
  ambiguousTool: (labels: MessageLabels, written: string, candidates: readonly string[]): string =>
    `${quote(written)} could mean several tools: ${candidates.join(", ")}. Write '${labels.action}:' with the exact tool name.`,
  noOpAction: (labels: MessageLabels, toolNames: readonly string[], thought: string, written: string): string => {
    const reuse = thought.length > 0 ? " If your reply to the user is ready, write it there." : "";
    return `'${labels.action}: ${quote(written).slice(1, -1)}' is not an action. To reply without using a tool, write '${labels.finalAnswer}: <your reply>'.${reuse} To use a tool, write '${labels.action}:' with exactly one of: ${toolList(toolNames)}.`;
  },
  promptEcho: (labels: MessageLabels, toolNames: readonly string[]): string =>
    `You repeated the format instructions instead of following them. Write one actual step: '${labels.action}: <exactly one of: ${toolList(toolNames)}>' and '${labels.actionInput}: <the real input>', or '${labels.finalAnswer}: <the answer>'.`,
  missingActionInput: (labels: MessageLabels, tool: string): string =>
    `'${labels.action}: ${tool}' needs an input, but there is no '${labels.actionInput}:' line. Write '${labels.actionInput}: <the input for ${tool}>' on the line after '${labels.action}: ${tool}'.`,
  emptyStringActionInput: (labels: MessageLabels, tool: string): string =>
    `The '${labels.actionInput}:' for ${tool} is empty, but ${tool} takes an input. Write it after '${labels.actionInput}:' on the same line (write '${labels.actionInput}: ""' only if ${tool} should get an empty input).`,
  emptyActionInput: (labels: MessageLabels, tool: string, example: string): string =>
    `The '${labels.actionInput}:' for ${tool} is empty, but ${tool} needs an input. Write it after '${labels.actionInput}:', for example: ${example}`,
  finalAnswerThenAction: (labels: MessageLabels): string =>
    `Your reply has a '${labels.finalAnswer}:' followed by an '${labels.action}:'. Give either an ${labels.action}/${labels.actionInput} (and wait for its ${labels.observation}) or a ${labels.finalAnswer}, not both. If the answer depends on the action's result, write only the action now.`,
  actionAndFinalAnswer: (labels: MessageLabels): string =>
    `Your reply has both an '${labels.action}:' and a '${labels.finalAnswer}:'. Give either an ${labels.action}/${labels.actionInput} and wait for the real ${labels.observation}, or a ${labels.finalAnswer}, not both.`,
  emptyFinalAnswer: (labels: MessageLabels): string =>
    `The '${labels.finalAnswer}:' is empty. Write the answer for the user after '${labels.finalAnswer}:'.`,
  invalidJsonInput: (labels: MessageLabels, tool: string, example: string): string =>
    `The ${labels.actionInput} for ${tool} must be one JSON object with the tool's arguments, for example: ${example}. What you wrote could not be read as JSON.`,
  truncatedInput: (labels: MessageLabels, tool: string, example: string): string =>
    `The ${labels.actionInput} for ${tool} was cut off before it was complete (the reply ended inside a value), so ${tool} was not run. Write the ${labels.actionInput} again, complete and shorter, for example: ${example}`,
  untranslatedLabels: (labels: MessageLabels, toolNames: readonly string[], written: readonly string[]): string =>
    `Your reply uses the labels ${written.slice(0, 6).map((word) => `'${word}'`).join(", ")}, which this agent does not read. Write the labels exactly as in the instructions. ${formatReminder(labels, toolNames)}`,
  invalidToolInput: (labels: MessageLabels, tool: string, issues: readonly string[], example: string): string =>
    `The ${labels.actionInput} for ${tool} does not fit the tool's arguments: ${issues.join("; ")}. Write a JSON object like: ${example}`,
  /** Argument names the tool does not take (`city_name` for `city`): named, with the ones it takes. */
  unknownArguments: (labels: MessageLabels, tool: string, wrong: readonly string[], fields: readonly string[], required: readonly string[], example: string): string =>
    `The ${labels.actionInput} for ${tool} uses ${wrong.length === 1 ? "the argument" : "the arguments"} ${wrong.slice(0, 8).map((name) => JSON.stringify(name)).join(", ")}, which ${tool} does not take, so it was not run. ` +
    `Its arguments are: ${fieldList(fields, required)}. Write a JSON object like: ${example}`,
  schemaEcho: (labels: MessageLabels, tool: string, example: string): string =>
    `The ${labels.actionInput} for ${tool} is the argument schema (types and descriptions), not argument values. Write the actual values instead, for example: ${example}`,
  hallucinatedContinuation: (labels: MessageLabels): string =>
    ` Stop after the '${labels.actionInput}:' line and wait: the real ${labels.observation} will be given to you. Never write '${labels.observation}:' yourself.`,
  thoughtTooShort: (labels: MessageLabels, minChars: number): string =>
    `Write your reasoning after '${labels.thought}:' (at least ${minChars} characters) before the ${labels.action} or ${labels.finalAnswer}.`,
  thoughtTooLong: (labels: MessageLabels, maxChars: number): string =>
    `Your '${labels.thought}:' is too long (limit ${maxChars} characters). Keep the reasoning short and write the next ${labels.action} or the ${labels.finalAnswer}.`,
  bannedPhrase: (phrase: string): string =>
    `Your reply uses the phrase '${phrase}', which is not allowed here. State what you know plainly, or use a tool to find out.`,
  requiredPattern: (description: string): string =>
    `Your reply is missing something required: ${description}. Write the step again with it.`,
  finalAnswerBeforeObservation: (labels: MessageLabels, toolNames: readonly string[]): string =>
    `Do not give a ${labels.finalAnswer} before you have used a tool and read its ${labels.observation}. Write '${labels.action}: <exactly one of: ${toolList(toolNames)}>' and '${labels.actionInput}: <input>' first.`,
  tooManyLabels: (labels: MessageLabels, maxLabels: number): string =>
    `Your reply has more than ${maxLabels} '${labels.thought}:'/'${labels.action}:'/'${labels.finalAnswer}:' lines. Write one step only: a short ${labels.thought}, then either one ${labels.action} with its ${labels.actionInput}, or the ${labels.finalAnswer}.`,
  finalAnswerRejected: (labels: MessageLabels, reason: string): string =>
    `Your ${labels.finalAnswer} was not accepted: ${reason}. Write a corrected step.`,
} as const;
