/** Stage 6: replies with no labelled step — blobs, XML, bare calls, unlabelled answers, or a retry. */
import { createReActGrammar, hasNeutralizedMarks, matchReActLabel, type ReActLabelSet } from "@reins/core";
import { findBalancedEnd, parseLooseJson } from "./json-text";
import { findActionBlob, fromBlob, isFinalAnswerName } from "./action-blob";
import { readInlineCall } from "./inline-call";
import { fromAction, BACKTICKS, MAX_ACTION_LINE_CHARS } from "./labelled-step";
import { PARSER_MESSAGES } from "./messages";
import { fail, finish, type Finished, type Work } from "./react-step";
import { looksLikePlan, looksTruncated, saysNoToolNeeded } from "./reply-heuristics";
import type { Segment } from "./segment-labels";
import { trimBlankLines, trimCharacters } from "./text-lines";
import { containsWord, matchToolName } from "./tool-names";
import { findToolCallTag } from "./tool-call-tags";
import { fromXml } from "./xml-step";


export function mentionedTools(text: string, toolNames: readonly string[]): string[] {
  const lower = text.slice(0, 20_000).toLowerCase();
  return toolNames.filter((name) => {
    const identifierLike = /[_\-0-9]|[a-z][A-Z]/.test(name);
    if (identifierLike && containsWord(lower, name)) return true;
    const nameLower = name.toLowerCase();
    return lower.includes(`\`${nameLower}\``) || lower.includes(`${nameLower} tool`);
  });
}

/** Prose for a person: starts with neither markup nor data, and has letters in it. */
export function readsAsReply(text: string): boolean {
  const first = text.trimStart()[0];
  if (first === undefined || first === "{" || first === "[" || first === "<" || first === "`") return false;
  return /\p{L}/u.test(text.slice(0, 1_000));
}


/** Label words written capitalised inside prose ("provide a valid Action"): the model is talking about the format. */
export const FORMAT_WORDS = ["Action Input", "Action", "Final Answer", "Observation", "Thought"];

export function talksAboutFormat(text: string): boolean {
  return FORMAT_WORDS.some((word) => containsWordCaseSensitive(text, word));
}

export function containsWordCaseSensitive(text: string, word: string): boolean {
  let from = 0;
  for (;;) {
    const index = text.indexOf(word, from);
    if (index < 0) return false;
    const before = text[index - 1];
    const after = text[index + word.length];
    if ((before === undefined || !/[\p{L}\p{N}_]/u.test(before)) && (after === undefined || !/[\p{L}\p{N}_]/u.test(after))) return true;
    from = index + 1;
  }
}

/** Lines read as labels only in another language's set (`思考：`, `最终答案：`) the parser is not configured for. */
function foreignLabels(body: string, labels: ReActLabelSet): string[] {
  const all = createReActGrammar({ labels }).neutralizedLabels;
  const found: string[] = [];
  let start = 0;
  for (let line = 0; line < 200 && start < body.length; line += 1) {
    let end = body.indexOf("\n", start);
    if (end < 0) end = body.length;
    const text = body.slice(start, end);
    start = end + 1;
    if (text.trim().length === 0) continue;
    const match = matchReActLabel(text, all);
    if (match !== undefined && matchReActLabel(text, labels) === undefined && !found.includes(match.labelText.trim())) found.push(match.labelText.trim());
  }
  return found;
}

/** How many line-start brackets are tried as the start of a JSON deliverable. */
const MAX_DELIVERABLE_STARTS = 20;

/**
 * A JSON value ending the reply after a Thought, with no action or tool key (the blob reader found
 * none): the deliverable the user asked for, written without the Final Answer label.
 */
function jsonDeliverable(work: Work, body: string): string | undefined {
  let trimmed = body.trimEnd();
  // In a code fence: the fence lines go, the JSON inside is the answer.
  if (trimmed.endsWith("```")) {
    const closing = trimmed.lastIndexOf("\n```");
    const opening = closing > 0 ? trimmed.lastIndexOf("\n```", closing - 1) : -1;
    if (opening < 0 || closing - opening > work.config.maxRepairChars) return undefined;
    const fenceLineEnd = trimmed.indexOf("\n", opening + 1);
    if (fenceLineEnd < 0 || fenceLineEnd >= closing) return undefined;
    trimmed = `${trimmed.slice(0, opening)}\n${trimmed.slice(fenceLineEnd + 1, closing).trim()}`;
  }
  const last = trimmed[trimmed.length - 1];
  if (last !== "}" && last !== "]") return undefined;
  let from = 0;
  for (let tries = 0; tries < MAX_DELIVERABLE_STARTS; tries += 1) {
    const brace = trimmed.indexOf("\n{", from);
    const bracket = trimmed.indexOf("\n[", from);
    const start = brace < 0 ? bracket : bracket < 0 ? brace : Math.min(brace, bracket);
    if (start < 0) return undefined;
    from = start + 1;
    if (findBalancedEnd(trimmed, start + 1) !== trimmed.length) continue;
    const json = trimmed.slice(start + 1);
    const before = trimmed.slice(0, start).trim();
    if (before.length === 0 || looksLikePlan(before) || looksTruncated(before) || hasNeutralizedMarks(trimmed)) return undefined;
    return parseLooseJson(json, work.config.maxRepairChars) !== undefined ? json : undefined;
  }
  return undefined;
}

/**
 * Decides a reply with no labelled step. `preambleText` is the text before the first label, blank
 * lines trimmed (computed once by the caller).
 */
export function withoutStep(work: Work, body: string, preambleText: string, segments: readonly Segment[]): Finished {
  const { messageLabels, toolNames } = work.config;
  const tagged = findToolCallTag(work, body);
  if (tagged !== undefined) return fromBlob(work, tagged);
  const blob = findActionBlob(work, body);
  if (blob !== undefined) return fromBlob(work, blob);
  const xml = fromXml(work, body);
  if (xml !== undefined) return xml;
  // A bare one-line call, as the WebShop prompt (ending in "Action:") makes models write: search[query].
  // Also as the last line after the Thought ("Thought 1: …\nSearch[query]", the paper's few-shot
  // layout without the "Action:" label).
  const trimmedBody = body.trim();
  const lastBreak = trimmedBody.lastIndexOf("\n");
  const lastLine = trimmedBody.slice(lastBreak + 1).trim();
  if (lastLine.length <= MAX_ACTION_LINE_CHARS && (segments.length === 0 ? lastBreak < 0 : segments.every((item) => item.label === "thought"))) {
    const call = readInlineCall(trimCharacters(lastLine, BACKTICKS));
    if (call !== undefined && (isFinalAnswerName(call.name) || matchToolName(call.name, toolNames, 0).status !== "unknown")) {
      const bareAction: Segment = { label: "action", value: lastLine, lines: [], index: 0 };
      return fromAction(work, bareAction, undefined);
    }
  }
  const foreign = foreignLabels(body, work.config.labels);
  if (foreign.length > 0) return fail(work, "missing_action", PARSER_MESSAGES.untranslatedLabels(messageLabels, toolNames, foreign));
  const orphanInput = segments.find((item) => item.label === "action_input");
  if (orphanInput !== undefined) return fail(work, "missing_action_label", PARSER_MESSAGES.missingActionLabel(messageLabels, toolNames));
  const thoughts = segments.filter((item) => item.label === "thought");
  // "Do I need to use a tool? No" written without the Thought label, then the reply.
  const firstBreak = preambleText.indexOf("\n");
  if (segments.length === 0 && firstBreak > 0 && saysNoToolNeeded(preambleText.slice(0, firstBreak))) {
    const reply = preambleText.slice(firstBreak + 1).trim();
    if (reply.length > 0 && !looksTruncated(reply) && !talksAboutFormat(reply) && !hasNeutralizedMarks(reply)) {
      work.repairs.add("unlabelled_final_answer");
      return finish(work, reply);
    }
  }
  for (const thought of thoughts) {
    if (thought.value.trim().length === 0 || !saysNoToolNeeded(thought.value)) continue;
    const reply = trimBlankLines(thought.lines);
    if (reply.length > 0 && !looksTruncated(reply) && !hasNeutralizedMarks(reply)) {
      work.repairs.add("unlabelled_final_answer");
      return finish(work, reply);
    }
  }
  const deliverable = segments.every((item) => item.label === "thought") ? jsonDeliverable(work, body) : undefined;
  if (deliverable !== undefined) {
    work.repairs.add("json_final_answer");
    return finish(work, deliverable);
  }
  const meaningful = segments.filter((item) => item.label !== "observation" && item.label !== "question");
  if (meaningful.length === 0 && segments.length === 0) {
    const text = preambleText;
    const mentioned = mentionedTools(text, toolNames);
    // After a closed reasoning block, a short line of digits or symbols ("4", "42 °C") is the answer too.
    const afterReasoning = work.repairs.items.includes("reasoning_block_removed") && /^[^\n{}[\]<>`]{1,80}$/.test(text.trim()) && /[\p{N}\p{S}]/u.test(text);
    if (work.config.acceptUnlabelledReply && (readsAsReply(text) || afterReasoning) && mentioned.length === 0 && !looksLikePlan(text) && !looksTruncated(text) && !talksAboutFormat(text) && !hasNeutralizedMarks(text)) {
      work.repairs.add("unlabelled_final_answer");
      return finish(work, text);
    }
    return fail(work, "missing_action", PARSER_MESSAGES.missingAction(messageLabels, toolNames, mentioned, looksTruncated(text)));
  }
  const mentioned = mentionedTools(body, toolNames);
  return fail(work, "missing_action", PARSER_MESSAGES.missingAction(messageLabels, toolNames, mentioned, looksTruncated(body)));
}
