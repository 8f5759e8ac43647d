/**
 * Reads one model reply: (canonical fast path) → normalise and read chat-template tokens → strip
 * reasoning blocks → segment labels → decide the step → conflict policy. Each stage lives in its own module.
 */
import { readCanonicalStep } from "./canonical-step";
import { matchReActLabel, normalizeLineBreaks } from "@reins/core";
import { missingInput, toolInputFor } from "./action-input";
import { fromAction, fromFinal } from "./labelled-step";
import { PARSER_MESSAGES } from "./messages";
import { resolveTool } from "./resolve-tool";
import { cutPartialStopLabel, readHarmony, removeLeftoverTokens, type HarmonyReply } from "./special-tokens";
import { fail, finish, RepairLog, type ReActStep, type ReaderConfig, type Work } from "./react-step";
import { stripReasoningBlocks } from "./reasoning-blocks";
import { MAX_LABELLED_LINES, segment, joinSegment, type Segment } from "./segment-labels";
import { trimBlankLines } from "./text-lines";
import { withoutStep } from "./unlabelled-reply";
import { fromWrittenCalls } from "./written-call-step";

export type { ConflictPolicy, ParsedToolInput, ReActStep, ReaderConfig } from "./react-step";
export type { ParserErrorReason } from "./parser-error-reasons";


/**
 * Reads one model reply into an action, a final answer, or a rejection with a corrective message:
 * the canonical fast path ({@link readCanonicalStep}) when it applies, else the full reader.
 * Linear in the length of `text`.
 */
export function readReActStep(text: unknown, config: ReaderConfig): ReActStep {
  if (config.canonicalLabels && typeof text === "string") {
    const canonical = readCanonicalStep(text, config);
    if (canonical !== undefined) return canonical;
  }
  return readFullReActStep(text, config);
}

/** Rejections after which a step written inside a reasoning block is read instead. */
const NO_STEP_OUTSIDE = new Set(["reasoning_only", "empty_output", "missing_action"]);

/** The full reader, every stage, without the fast path (the fast path must agree with it). */
export function readFullReActStep(text: unknown, config: ReaderConfig): ReActStep {
  const work: Work = { config, repairs: new RepairLog(), thought: "", cutContinuation: false };
  if (typeof text !== "string") return fail(work, "not_text", PARSER_MESSAGES.notText(config.messageLabels, config.toolNames));
  let body = normalizeLineBreaks(text);
  if (body.charCodeAt(0) === 0xfeff) body = body.slice(1);
  // Stage 0: chat-template tokens (harmony messages, leftover end tokens, a partial stop label).
  const harmony = readHarmony(body);
  if (harmony !== undefined) {
    const step = fromHarmony(work, harmony);
    if (step !== undefined) return step;
    body = harmony.rest;
  }
  // Stage 0b: calls written with other template tokens (Kimi, DeepSeek, Mistral, Llama, pythonic).
  const written = fromWrittenCalls(work, body);
  if (written !== undefined) return written;
  const leftovers = removeLeftoverTokens(body);
  if (leftovers.removed) {
    work.repairs.add("special_tokens_removed");
    body = leftovers.text;
  }
  const template = skipEchoedTemplate(body);
  if (template !== undefined) {
    work.repairs.add("template_echo_skipped");
    body = template;
  }
  const partial = cutPartialStopLabel(body, config.labels);
  if (partial !== undefined) {
    work.repairs.add("partial_stop_label_cut");
    body = partial;
  }
  // Stage 1: reasoning blocks. A step written only inside one is read when none stands outside.
  const reasoning = stripReasoningBlocks(body);
  if (reasoning.removed || reasoning.unclosed) work.repairs.add("reasoning_block_removed");
  const outside = readBody(work, reasoning.text, reasoning.removed || reasoning.unclosed);
  if (outside.ok || !NO_STEP_OUTSIDE.has(outside.reason) || reasoning.inner.trim().length === 0) return outside;
  const insideWork: Work = { config, repairs: new RepairLog(), thought: "", cutContinuation: false };
  for (const repair of work.repairs.items) insideWork.repairs.add(repair);
  const inside = readBody(insideWork, stripReasoningBlocks(reasoning.inner).text, false);
  // Only a step the model wrote (labelled, a blob, a call) counts, not reasoning prose read as a reply.
  if (!inside.ok || inside.repairs.includes("unlabelled_final_answer")) return outside;
  insideWork.repairs.add("step_read_from_reasoning_block");
  return { ...inside, repairs: insideWork.repairs.items };
}

/** Placeholders of LangChain's ReAct template that only an echo of the format block contains. */
const TEMPLATE_PLACEHOLDERS = ["Action Input: the input to the action", "Action: the action to take", "Final Answer: the final answer to the original input question"];

/**
 * A reply that first echoes the prompt's format block (its placeholders) and then starts the real
 * step at a `Question:` line (or after the template's `Begin!` line): the text from there.
 * `undefined` when there is no such echo.
 */
function skipEchoedTemplate(body: string): string | undefined {
  let last = -1;
  for (const placeholder of TEMPLATE_PLACEHOLDERS) {
    const index = body.lastIndexOf(placeholder);
    if (index > last) last = index;
  }
  if (last < 0) return undefined;
  const question = body.indexOf("\nQuestion:", last);
  if (question >= 0) return body.slice(question + 1);
  // The template's "Begin!" line, then the step without a Question line.
  const begin = body.indexOf("\nBegin!", last);
  if (begin < 0) return undefined;
  const lineEnd = body.indexOf("\n", begin + 1);
  return lineEnd < 0 ? undefined : body.slice(lineEnd + 1);
}

/** Harmony messages: a `to=functions.NAME` call, else the final channel; `undefined` to read `rest` as a reply. */
function fromHarmony(work: Work, harmony: HarmonyReply): ReActStep | undefined {
  work.thought = harmony.analysis;
  if (harmony.call !== undefined) {
    work.repairs.add("harmony_tool_call");
    if (harmony.extraCalls > 0) work.repairs.add("extra_actions_ignored");
    const resolved = resolveTool(work, harmony.call.name, harmony.call.input.length === 0);
    if ("ok" in resolved) return resolved;
    if (harmony.call.input.length === 0) return missingInput(work, resolved.spec);
    return toolInputFor(work, resolved.spec, removeLeftoverTokens(harmony.call.input).text);
  }
  if (harmony.final !== undefined) {
    work.repairs.add("harmony_final");
    const answer = removeLeftoverTokens(harmony.final).text;
    // A final channel written in the ReAct format is read as ReAct text.
    if (!answer.split("\n", 50).some((line) => matchReActLabel(line, work.config.labels) !== undefined)) return finish(work, answer);
    return readBody(work, answer, false);
  }
  if (harmony.rest.trim().length === 0) {
    return harmony.analysis.length > 0 ? fail(work, "reasoning_only", PARSER_MESSAGES.reasoningOnly(work.config.messageLabels, work.config.toolNames)) : undefined;
  }
  return undefined;
}

/** Stages 2–6 on the text outside reasoning blocks: segment the labels, decide the step. */
function readBody(work: Work, text: string, hadReasoning: boolean): ReActStep {
  const config = work.config;
  const body = text;
  if (body.trim().length === 0) {
    if (hadReasoning) return fail(work, "reasoning_only", PARSER_MESSAGES.reasoningOnly(config.messageLabels, config.toolNames));
    return fail(work, "empty_output", PARSER_MESSAGES.emptyOutput(config.messageLabels, config.toolNames));
  }
  let action: Segment | undefined;
  let actionInput: Segment | undefined;
  let final: Segment | undefined;
  const thoughtSegments: Segment[] = [];
  const cut = (repair: string): boolean => {
    work.repairs.add(repair);
    return false;
  };
  // Decides, label by label, what belongs to this step. Returning false ends the reading.
  const visit = (item: Segment): boolean => {
    const stepStarted = action !== undefined || final !== undefined;
    switch (item.label) {
      case "observation":
        if (stepStarted) {
          work.cutContinuation = true;
          return cut("hallucinated_observation_cut");
        }
        work.repairs.add("echoed_observation_ignored");
        return true;
      case "question":
        return stepStarted ? cut("new_question_cut") : true;
      case "thought":
        if (!stepStarted) thoughtSegments.push(item);
        return true;
      case "action":
        if (action === undefined) {
          action = item;
          // A final answer followed by an action: both are known; only "action" (or "first" after a
          // weak "Answer:" label, which the action overrides) still needs the action's input.
          return final === undefined || config.onConflict === "action" || (config.onConflict === "first" && final.weak === true);
        }
        // A second action: the first one is the step (with or without its input).
        return cut("extra_actions_ignored");
      case "action_input":
        if (actionInput === undefined && (action !== undefined || final === undefined)) {
          actionInput = item;
          return true;
        }
        if (action !== undefined && actionInput !== undefined) return cut("extra_actions_ignored");
        return true;
      case "final_answer":
        if (final === undefined) {
          final = item;
          // An action followed by a final answer: only "final" still needs the answer's text.
          return action === undefined || config.onConflict === "final";
        }
        return true;
      default:
        return true;
    }
  };
  const stopAfterInput = config.onConflict === "first" || config.onConflict === "action";
  const { preambleText, segments, overflow } = segment(body, config.labels, work.repairs, visit, stopAfterInput);
  if (overflow) return fail(work, "too_many_labels", PARSER_MESSAGES.tooManyLabels(config.messageLabels, MAX_LABELLED_LINES));
  const thoughtParts: string[] = [preambleText.trim(), ...thoughtSegments.map((item) => joinSegment(item).trim())];
  // Text before the first label is the Thought: LangChain's prompt ends with "Thought:", so a
  // missing label is the normal case, not a repair.
  if (thoughtParts[0].length === 0) thoughtParts.shift();
  work.thought = thoughtParts.filter((part) => part.length > 0).join("\n");

  if (action !== undefined && final !== undefined) {
    const actionFirst = action.index < final.index;
    const policy = config.onConflict;
    if (policy === "error") return fail(work, "action_and_final_answer", PARSER_MESSAGES.actionAndFinalAnswer(config.messageLabels));
    if (policy === "final") {
      work.repairs.add("action_ignored_for_final_answer");
      return fromFinal(work, final);
    }
    if (policy === "first" && !actionFirst) {
      // "Answer: not known yet, so…" followed by an action: the action takes precedence over an
      // "Answer" written by accident; a real "Final Answer:" before an action is a conflict.
      if (final.weak !== true) return fail(work, "final_answer_then_action", PARSER_MESSAGES.finalAnswerThenAction(config.messageLabels));
      work.repairs.add("answer_label_before_action_ignored");
      return fromAction(work, action, actionInput);
    }
    work.repairs.add("final_answer_after_action_ignored");
    return fromAction(work, action, actionInput);
  }
  if (action !== undefined) return fromAction(work, action, actionInput);
  if (final !== undefined) return fromFinal(work, final);
  return withoutStep(work, body, preambleText, segments);
}

