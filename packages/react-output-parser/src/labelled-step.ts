/** Stage 4: a labelled step — the `Action:` line (with its Action Input) or the `Final Answer:`. */
import { matchReActLabel, type ReActLabelSet } from "@reins/core";
import { collectInput, missingInput, stringInput, toolInputFor } from "./action-input";
import { findActionBlob, fromBlob, isFinalAnswerName } from "./action-blob";
import { fenceMarker } from "./code-fences";
import { isNoOpAction, isPromptEchoAction } from "./echo-detection";
import { parseKeywordArguments, readInlineCall } from "./inline-call";
import { PARSER_MESSAGES } from "./messages";
import { stripWrappingQuotes } from "./quotes";
import { fail, finish, type Finished, type Work } from "./react-step";
import { resolveTool } from "./resolve-tool";
import { dropDanglingFences, joinSegment, type Segment } from "./segment-labels";
import { trimCharacters } from "./text-lines";
import { matchToolName, suggestToolName } from "./tool-names";

/** Where an "Action Input:" label may start inside a line (one linear scan; the grammar confirms). */
export const INLINE_ACTION_INPUT = /action[ _-]?input/gi;

/** Splits "search Action Input: x" written on one line. */
export function splitInlineActionInput(value: string, labels: ReActLabelSet): { name: string; input: string } | undefined {
  INLINE_ACTION_INPUT.lastIndex = 0;
  for (;;) {
    const found = INLINE_ACTION_INPUT.exec(value);
    if (found === null) return undefined;
    const index = found.index;
    const before = value[index - 1];
    if (index > 0 && (before === " " || before === "\t" || before === "*")) {
      const match = matchReActLabel(value.slice(index), labels);
      if (match !== undefined && match.label === "action_input") return { name: value.slice(0, index), input: match.value };
    }
  }
}

/** An Action line longer than this cannot be a tool name (nor a tool call written inline). */
export const MAX_ACTION_LINE_CHARS = 2_000;
export const BACKTICKS = new Set(["`", " "]);

export function fromAction(work: Work, action: Segment, input: Segment | undefined): Finished {
  const { messageLabels, toolNames, labels } = work.config;
  let nameLine = action.value.trim();
  let bodyLines = action.lines;
  if (nameLine.length === 0) {
    const firstIndex = action.lines.findIndex((line) => line.trim().length > 0);
    if (firstIndex >= 0) {
      nameLine = action.lines[firstIndex].trim();
      bodyLines = action.lines.slice(firstIndex + 1);
      work.repairs.add("action_on_next_line");
    }
  }
  if (nameLine.length === 0) return fail(work, "empty_tool_name", PARSER_MESSAGES.emptyToolName(messageLabels, toolNames));
  const bare = trimCharacters(nameLine, BACKTICKS).trim();
  // A stray fence word on the Action line ("json", the rest of a ```json fence) before the blob.
  if (bare[0] === "{" || bare[0] === "[" || fenceMarker(nameLine).isFence || /^(?:json5?|jsonc)$/i.test(bare)) {
    const blob = findActionBlob(work, [nameLine, ...bodyLines].join("\n"));
    if (blob !== undefined) return fromBlob(work, blob);
  }
  if (isPromptEchoAction(nameLine)) return fail(work, "prompt_echo", PARSER_MESSAGES.promptEcho(messageLabels, toolNames));
  if (isNoOpAction(nameLine)) return fail(work, "no_op_action", PARSER_MESSAGES.noOpAction(messageLabels, toolNames, work.thought, nameLine));
  let inlineInput: string | undefined;
  if (input === undefined) {
    const split = splitInlineActionInput(nameLine, labels);
    if (split !== undefined) {
      nameLine = split.name.trim();
      inlineInput = split.input;
      work.repairs.add("action_input_on_action_line");
    }
  }
  if (nameLine.length > MAX_ACTION_LINE_CHARS) {
    return fail(work, "unknown_tool", PARSER_MESSAGES.unknownTool(messageLabels, toolNames, nameLine, suggestToolName(nameLine, toolNames), input === undefined && inlineInput === undefined));
  }
  const match = matchToolName(nameLine, toolNames, work.config.fuzzyMaxDistance);
  if (match.status === "unknown") {
    const call = readInlineCall(bare);
    if (call !== undefined) {
      if (isFinalAnswerName(call.name) && !toolNames.includes(call.name)) {
        work.repairs.add("paper_style_finish");
        return finish(work, finishArgument(call.input));
      }
      const resolved = resolveTool(work, call.name, false);
      if ("ok" in resolved) return resolved;
      work.repairs.add(call.style === "bracket" ? "paper_style_action" : "function_call_action");
      if (input !== undefined) return toolInputFor(work, resolved.spec, collectInput(input.value, inputLines(input), work.repairs));
      if (call.input.length === 0) return missingInput(work, resolved.spec);
      if (resolved.spec.kind === "string") {
        // search(query="x"): one keyword argument holding the text.
        const keywordArguments = parseKeywordArguments(call.input);
        const values = keywordArguments !== undefined ? Object.values(keywordArguments) : [];
        if (values.length === 1 && typeof values[0] === "string") {
          work.repairs.add("keyword_arguments");
          return stringInput(work, resolved.spec, values[0]);
        }
      }
      return toolInputFor(work, resolved.spec, call.input);
    }
  }
  const resolved = resolveTool(work, nameLine, input === undefined && inlineInput === undefined);
  if ("ok" in resolved) return resolved;
  if (bodyLines.some((line) => line.trim().length > 0) && input !== undefined) work.repairs.add("stray_text_after_action_ignored");
  if (input !== undefined) return toolInputFor(work, resolved.spec, collectInput(input.value, inputLines(input), work.repairs));
  if (inlineInput !== undefined) return toolInputFor(work, resolved.spec, collectInput(inlineInput, [], work.repairs));
  return missingInput(work, resolved.spec);
}

export /**
 * An Action Input's lines. When the reply ended inside a fence its first line opened, only the
 * first lines are cut out: the input is rejected as cut off (`truncated_input`) whatever follows.
 */
function inputLines(input: Segment): readonly string[] {
  return input.endedInOpenFence === true && input.firstLines !== undefined ? input.firstLines(UNCLOSED_FENCE_LINES_READ) : input.lines;
}

/** Lines of an unclosed fence read (more than `collectInput` keeps). */
const UNCLOSED_FENCE_LINES_READ = 256;

/**
 * The answer inside `finish(…)`/`Finish[…]`: one keyword argument (`answer="…"`), or the text with
 * one pair of wrapping quotes removed.
 */
function finishArgument(input: string): string {
  const keywordArguments = parseKeywordArguments(input);
  const values = keywordArguments !== undefined ? Object.values(keywordArguments) : [];
  if (values.length === 1 && typeof values[0] === "string") return values[0];
  return stripWrappingQuotes(input).text;
}

const ROLE_PREFIXES = ["assistant:", "ai:", "bot:"];

export function fromFinal(work: Work, final: Segment): Finished {
  let text = dropDanglingFences(joinSegment(final)).trim();
  // "AI: \nAssistant: ```json {...}```": a role prefix, then a JSON blob instead of plain text.
  const lower = text.slice(0, 20).toLowerCase();
  const prefix = ROLE_PREFIXES.find((role) => lower.startsWith(role));
  if (prefix !== undefined) {
    text = text.slice(prefix.length).trim();
    work.repairs.add("role_prefix_removed");
  }
  if (text[0] === "{" || text[0] === "[" || fenceMarker(text.slice(0, 12)).isFence) {
    const blob = findActionBlob(work, text);
    if (blob !== undefined) return fromBlob(work, blob);
  }
  return finish(work, text);
}
