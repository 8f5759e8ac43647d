/**
 * The fast path: the canonical LangChain shapes (`Thought/Action/Action Input` and `Final Answer`),
 * read with a few native string searches. Anything unusual returns `undefined` and goes through the
 * full reader ({@link readFullReActStep}), which gives the same result on these shapes (a test
 * checks both agree on every corpus and trajectory text).
 */
import { matchReActLabel, type ReActLabelSet } from "@reins/core";
import { isPromptEchoInput, isSchemaEcho } from "./echo-detection";
import { findBalancedEnd, parseLooseJson } from "./json-text";
import { stripWrappingQuotes } from "./quotes";
import type { ReActStep, ReaderConfig } from "./react-step";
import { isPlainObject } from "./text-lines";
import type { ToolInputSpec } from "./tool-schema";

const NO_REPAIRS: readonly string[] = Object.freeze([]);
const UNWRAPPED_INPUT_REPAIRS: readonly string[] = Object.freeze(["string_input_unwrapped"]);
const FENCE_REPAIRS: readonly string[] = Object.freeze(["code_fence_removed"]);
/** An opening fence line right after "Action Input:": ``` and an optional language tag. */
const OPENING_FENCE = /\n```[A-Za-z0-9_+.-]*\n/y;

/**
 * The content of a fenced Action Input that ends the reply ("Action Input:\n```lang\n…\n```"),
 * trimmed; `undefined` when the shape differs in any way (the full reader then decides).
 */
function fencedInput(text: string, from: number): string | undefined {
  OPENING_FENCE.lastIndex = from;
  if (OPENING_FENCE.exec(text) === null) return undefined;
  const contentStart = OPENING_FENCE.lastIndex;
  let end = text.length;
  while (end > contentStart && isBlankCode(text.charCodeAt(end - 1))) end -= 1;
  if (end - contentStart < 4 || !text.startsWith("\n```", end - 4)) return undefined;
  const closing = end - 4;
  // No other fence line inside, no reasoning tag or CR anywhere in it.
  if (text.indexOf("\n```", contentStart) !== closing) return undefined;
  const content = text.slice(contentStart, closing);
  if (content.includes("<") || content.includes("\r") || content.startsWith("```")) return undefined;
  return content.trim();
}

function isBlankCode(code: number): boolean {
  return code === 32 || code === 10 || code === 9;
}

function isBlankFrom(text: string, from: number): boolean {
  for (let index = from; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code !== 32 && code !== 10 && code !== 9 && code !== 13) return false;
  }
  return true;
}

/**
 * The canonical shapes, matched from the first non-blank character (sticky, no `$`): one Thought
 * line (label optional), then `Action:` and `Action Input:` lines, or a `Final Answer:` line. Each
 * `[^\n…]*` is followed by a newline it cannot match, so the match is linear; the classes also keep
 * CR and the other Unicode line breaks, tags and code fences out (those replies take the full reader).
 */
const CANONICAL_STEP = /(?:(?:Thought:)?([^\n<`\r\v\f\u0085\u2028\u2029]*)\n+)?(?:Action:([^\n<`\r\v\f\u0085\u2028\u2029]*)\n+Action Input:([^\n<`\r\v\f\u0085\u2028\u2029]*)|(?:Final Answer|Answer|AI):([^\n<`\r\v\f\u0085\u2028\u2029]*))/y;

function isQuoteCode(code: number): boolean {
  return code === 34 || code === 39 || code === 96 || code === 0x201c || code === 0x2018;
}

/** The Thought line is no other label (only a line with a colon can be one). */
function plainThought(line: string, labels: ReActLabelSet): boolean {
  if (!line.includes(":") && !line.includes("\uff1a")) return true;
  return matchReActLabel(line, labels) === undefined;
}

/** The tool named on a canonical Action line (" Search"): compared in place, no string built. */
function canonicalTool(written: string, config: ReaderConfig): ToolInputSpec | undefined {
  if (written.charCodeAt(0) === 32) {
    for (const name of config.toolNames) {
      if (written.length === name.length + 1 && written.endsWith(name)) return config.tools.get(name);
    }
  }
  return config.tools.get(written.trim());
}

const QUOTE_REPAIRS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  wrapping_quotes_removed: Object.freeze(["wrapping_quotes_removed"]),
  unbalanced_quote_removed: Object.freeze(["unbalanced_quote_removed"]),
});

export function readCanonicalStep(text: string, config: ReaderConfig): ReActStep | undefined {
  if (text.length > 4_096) return undefined;
  let start = 0;
  while (start < text.length && (text.charCodeAt(start) === 10 || text.charCodeAt(start) === 32)) start += 1;
  // The Action line's text after "Action:" and the Action Input line's text (an action), or the
  // Final Answer line's text (an answer); strings are only cut once the shape is known.
  let nameText: string | undefined;
  let inputLine: string | undefined;
  let thoughtLine = "";
  let finalLine: string | undefined;
  let matchEnd = 0;
  // The commonest shape — one Thought line, then "Action:" or "Final Answer:" right below it — is
  // found with native searches; the pattern below only scans the step's own lines.
  const firstBreak = text.indexOf("\n", start);
  if (firstBreak > start && !text.includes("<") && !text.includes("`") && !text.includes("\r")) {
    if (text.startsWith("Action:", firstBreak + 1)) {
      const nameEnd = text.indexOf("\n", firstBreak + 8);
      if (nameEnd > 0 && text.startsWith("Action Input:", nameEnd + 1)) {
        const inputEnd = text.indexOf("\n", nameEnd + 14);
        matchEnd = inputEnd < 0 ? text.length : inputEnd;
        nameText = text.slice(firstBreak + 8, nameEnd);
        inputLine = text.slice(nameEnd + 14, matchEnd).trim();
      }
    } else if (text.startsWith("Final Answer:", firstBreak + 1)) {
      const lineEnd = text.indexOf("\n", firstBreak + 14);
      finalLine = text.slice(firstBreak + 14, lineEnd < 0 ? text.length : lineEnd);
      matchEnd = lineEnd < 0 ? text.length : lineEnd;
    }
    if (nameText !== undefined || finalLine !== undefined) thoughtLine = text.slice(text.startsWith("Thought:", start) ? start + 8 : start, firstBreak);
  }
  if (nameText === undefined && finalLine === undefined) {
    CANONICAL_STEP.lastIndex = start;
    const step = CANONICAL_STEP.exec(text);
    if (step === null) return undefined;
    thoughtLine = step[1] ?? "";
    finalLine = step[4];
    matchEnd = CANONICAL_STEP.lastIndex;
    if (step[4] === undefined) {
      nameText = step[2];
      inputLine = step[3].trim();
    }
  }
  if (finalLine !== undefined) {
    if (!isBlankFrom(text, matchEnd) || !plainThought(thoughtLine, config.labels)) return undefined;
    const output = finalLine.trim();
    if (output.length === 0) return undefined;
    return { ok: true, kind: "finish", output, thought: thoughtLine.trim(), repairs: NO_REPAIRS };
  }
  if (nameText === undefined || inputLine === undefined) return undefined;
  const fenced = inputLine.length === 0 ? fencedInput(text, matchEnd) : undefined;
  if ((fenced === undefined && !isBlankFrom(text, matchEnd)) || !plainThought(thoughtLine, config.labels)) return undefined;
  const spec = canonicalTool(nameText, config);
  if (spec === undefined || spec.kind !== "string") return undefined;
  const thought = thoughtLine.trim();
  if (fenced !== undefined) {
    if (fenced.length === 0 || isQuoteCode(fenced.charCodeAt(0)) || isPromptEchoInput(fenced)) return undefined;
    // Fenced JSON for a string tool passes through whole unless it may be a schema echo or a
    // wrapped {input}, or is cut off (the full reader words those).
    if (fenced[0] === "{" && (findBalancedEnd(fenced, 0) !== fenced.length || fenced.includes("type") || fenced.includes("input"))) return undefined;
    return { ok: true, kind: "action", tool: spec.name, toolInput: fenced, thought, repairs: FENCE_REPAIRS };
  }
  const rawInput = inputLine;
  // An empty input is a correction (missing_action_input): the full reader writes it.
  if (rawInput.length === 0) return undefined;
  if (rawInput[0] === "{") {
    if (findBalancedEnd(rawInput, 0) !== rawInput.length) return undefined;
    // As stringInput: JSON passes through unless it is a schema echo (the full reader words the
    // rejection) or a wrapped {input}.
    if (rawInput.includes("type") || rawInput.includes("input")) {
      const parsed = parseLooseJson(rawInput, config.maxRepairChars);
      if (parsed !== undefined && isSchemaEcho(parsed.value)) return undefined;
      const only = parsed !== undefined && isPlainObject(parsed.value) && Object.keys(parsed.value).length === 1 ? parsed.value.input : undefined;
      if (typeof only === "string") return { ok: true, kind: "action", tool: spec.name, toolInput: only, thought, repairs: UNWRAPPED_INPUT_REPAIRS };
    }
    return { ok: true, kind: "action", tool: spec.name, toolInput: rawInput, thought, repairs: NO_REPAIRS };
  }
  if (isPromptEchoInput(rawInput)) return undefined;
  if (!isQuoteCode(rawInput.charCodeAt(0))) return { ok: true, kind: "action", tool: spec.name, toolInput: rawInput, thought, repairs: NO_REPAIRS };
  const quoted = stripWrappingQuotes(rawInput);
  if (quoted.text.length === 0 || quoted.text[0] === "{") return undefined;
  const repairs = quoted.repair !== undefined ? (QUOTE_REPAIRS[quoted.repair] ?? [quoted.repair]) : NO_REPAIRS;
  return { ok: true, kind: "action", tool: spec.name, toolInput: quoted.text, thought, repairs };
}
