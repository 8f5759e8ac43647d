import { PARSER_MESSAGES, type MessageLabels } from "./messages";
import type { ParserValidators } from "./options";
import type { ParserErrorReason, ReActStep } from "./read-react-step";
import { containsWord } from "./tool-names";

/** What the caller knows about the run beyond the model's reply. */
export interface ParseContext {
  /** How many observations (tool results) the run has seen so far. */
  readonly observationCount?: number;
  /** The top-level run the reply belongs to; copied onto the `parser_repair` and `parser_error` events. */
  readonly runId?: string;
}

/** A validator's rejection. */
export interface ValidatorFailure {
  readonly reason: ParserErrorReason;
  readonly observation: string;
}

/**
 * Runs the opt-in validators on a reply the parser could read.
 *
 * @returns the first failure, or `undefined` when every enabled check passes
 */
export function runValidators(
  step: Extract<ReActStep, { ok: true }>,
  replyText: string,
  validators: ParserValidators,
  labels: MessageLabels,
  toolNames: readonly string[],
  context: ParseContext | undefined,
): ValidatorFailure | undefined {
  const thought = step.thought.trim();
  const { minThoughtChars, maxThoughtChars, bannedPhrases, requiredPatterns, requireObservationBeforeFinalAnswer, finalAnswerPredicate } = validators;
  if (minThoughtChars !== undefined && minThoughtChars > 0 && thought.length < minThoughtChars) {
    return { reason: "thought_too_short", observation: PARSER_MESSAGES.thoughtTooShort(labels, minThoughtChars) };
  }
  if (maxThoughtChars !== undefined && thought.length > maxThoughtChars) {
    return { reason: "thought_too_long", observation: PARSER_MESSAGES.thoughtTooLong(labels, maxThoughtChars) };
  }
  if (bannedPhrases !== undefined && bannedPhrases.length > 0) {
    const checked = `${thought}\n${step.kind === "finish" ? step.output : ""}`.toLowerCase();
    const found = bannedPhrases.find((phrase) => containsWord(checked, phrase.trim()));
    if (found !== undefined) return { reason: "banned_phrase", observation: PARSER_MESSAGES.bannedPhrase(found) };
  }
  for (const required of requiredPatterns ?? []) {
    const appliesTo = required.appliesTo ?? "reply";
    if (appliesTo === "final_answer" && step.kind !== "finish") continue;
    const subject = appliesTo === "reply" ? replyText : appliesTo === "thought" ? thought : step.kind === "finish" ? step.output : "";
    required.pattern.lastIndex = 0;
    if (!required.pattern.test(subject)) return { reason: "required_pattern", observation: PARSER_MESSAGES.requiredPattern(required.description) };
  }
  if (step.kind === "finish") {
    if (requireObservationBeforeFinalAnswer === true && context?.observationCount === 0) {
      return { reason: "final_answer_before_observation", observation: PARSER_MESSAGES.finalAnswerBeforeObservation(labels, toolNames) };
    }
    if (finalAnswerPredicate !== undefined) {
      const verdict = finalAnswerPredicate(step.output, { thought, ...(context?.observationCount !== undefined ? { observationCount: context.observationCount } : {}) });
      if (verdict !== true) {
        const reason = typeof verdict === "string" && verdict.trim().length > 0 ? verdict.trim() : "it does not meet the answer requirements";
        return { reason: "final_answer_rejected", observation: PARSER_MESSAGES.finalAnswerRejected(labels, reason) };
      }
    }
  }
  return undefined;
}
