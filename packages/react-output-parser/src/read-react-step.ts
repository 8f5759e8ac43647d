import { ACTION_BLOB_INPUT_KEYS, ACTION_BLOB_NAME_KEYS, FINISH_NAMES, hasNeutralizedMarks, matchReActLabel, XML_AGENT_TAG_NAMES, type ReActLabel, type ReActLabelSet } from "@reins/core";
import { findBalancedEnd, parseLooseJson } from "./json-text";
import { PARSER_MESSAGES, type MessageLabels } from "./messages";
import {
  fenceMarker,
  isBareFence,
  isNoOpAction,
  isPromptEchoAction,
  isPromptEchoInput,
  isSchemaEcho,
  looksLikePlan,
  looksTruncated,
  parseKeywordArguments,
  readInlineCall,
  saysNoToolNeeded,
  stripReasoningBlocks,
  stripWrappingQuotes,
  trimCharacters,
  unwrapCodeFence,
} from "./text-shapes";
import { containsWord, matchToolName, normalizeToolName, suggestToolName } from "./tool-names";
import type { ToolInputSpec } from "./tool-schema";

/** What to do when one reply holds both an action and a final answer. */
export type ConflictPolicy = "first" | "action" | "final" | "error";

/** Why the parser rejected a reply (the `reason` of `parser_error` events; bounded). */
export type ParserErrorReason =
  | "not_text"
  | "empty_output"
  | "reasoning_only"
  | "missing_action"
  | "missing_action_label"
  | "empty_tool_name"
  | "unknown_tool"
  | "ambiguous_tool"
  | "no_op_action"
  | "prompt_echo"
  | "missing_action_input"
  | "final_answer_then_action"
  | "action_and_final_answer"
  | "empty_final_answer"
  | "invalid_json_input"
  | "invalid_tool_input"
  | "schema_echo"
  | "thought_too_short"
  | "thought_too_long"
  | "banned_phrase"
  | "required_pattern"
  | "final_answer_before_observation"
  | "final_answer_rejected"
  | "too_many_labels"
  | "truncated_input";

/** The tool input handed to the executor: a string for string tools, an object otherwise. */
export type ParsedToolInput = string | Record<string, unknown>;

/** The outcome of reading one reply. */
export type ReActStep =
  | {
      readonly ok: true;
      readonly kind: "action";
      readonly tool: string;
      readonly toolInput: ParsedToolInput;
      readonly thought: string;
      readonly repairs: readonly string[];
    }
  | {
      readonly ok: true;
      readonly kind: "finish";
      readonly output: string;
      readonly thought: string;
      readonly repairs: readonly string[];
    }
  | {
      readonly ok: false;
      readonly reason: ParserErrorReason;
      readonly observation: string;
      readonly thought: string;
      readonly repairs: readonly string[];
    };

/** Everything the reader needs, resolved once by the parser. */
export interface ReaderConfig {
  readonly labels: ReActLabelSet;
  readonly messageLabels: MessageLabels;
  readonly tools: ReadonlyMap<string, ToolInputSpec>;
  readonly toolNames: readonly string[];
  readonly onConflict: ConflictPolicy;
  readonly fuzzyMaxDistance: number;
  readonly acceptUnlabelledReply: boolean;
  readonly maxRepairChars: number;
  /** The canonical LangChain labels are in force (no label replaced), so the fast path applies. */
  readonly canonicalLabels: boolean;
}

interface Segment {
  readonly label: ReActLabel;
  readonly value: string;
  readonly lines: string[];
  readonly index: number;
  /** A final answer under a short alias ("Answer:", "AI:", "Response:"), which prose uses by accident too. */
  readonly weak?: boolean;
}

const WEAK_FINAL_WORDS = new Set(["answer", "ai", "response"]);

function isWeakFinalLabel(labelText: string): boolean {
  let word = "";
  for (const character of labelText.toLowerCase()) if (character >= "a" && character <= "z") word += character;
  return WEAK_FINAL_WORDS.has(word);
}

class RepairLog {
  readonly items: string[] = [];
  add(repair: string): void {
    if (!this.items.includes(repair)) this.items.push(repair);
  }
}

interface Work {
  readonly config: ReaderConfig;
  readonly repairs: RepairLog;
  thought: string;
  cutContinuation: boolean;
}

type Finished = ReActStep;

function fail(work: Work, reason: ParserErrorReason, observation: string): Finished {
  const note = work.cutContinuation && reason !== "final_answer_then_action" ? PARSER_MESSAGES.hallucinatedContinuation(work.config.messageLabels) : "";
  return { ok: false, reason, observation: observation + note, thought: work.thought, repairs: work.repairs.items };
}

function finish(work: Work, output: string): Finished {
  if (output.trim().length === 0) return fail(work, "empty_final_answer", PARSER_MESSAGES.emptyFinalAnswer(work.config.messageLabels));
  return { ok: true, kind: "finish", output: output.trim(), thought: work.thought, repairs: work.repairs.items };
}

function act(work: Work, tool: string, toolInput: ParsedToolInput): Finished {
  return { ok: true, kind: "action", tool, toolInput, thought: work.thought, repairs: work.repairs.items };
}

const CANONICAL_LABEL_PREFIXES = ["Thought:", "Action:", "Action Input:", "Observation:", "Final Answer:", "Question:", "Answer:", "AI:", "Response:"];

function noteLabelRepairs(line: string, labelText: string, repairs: RepairLog): void {
  let start = 0;
  while (start < line.length && (line.charCodeAt(start) === 32 || line.charCodeAt(start) === 9)) start += 1;
  for (const prefix of CANONICAL_LABEL_PREFIXES) if (line.startsWith(prefix, start)) return;
  const trimmed = line.slice(start);
  const first = trimmed[0];
  if (first === "*" || first === "#" || first === "_" || first === ">" || first === "`") repairs.add("label_markdown");
  else if (/\d/.test(labelText)) repairs.add("label_numbered");
  else if (trimmed.includes("\uff1a")) repairs.add("label_fullwidth_colon");
  else repairs.add("label_variant");
}

/**
 * A real step has a handful of labelled lines. Past this many (before the step is decided) the reply
 * is degenerate: it is rejected instead of read to its end.
 */
const MAX_LABELLED_LINES = 500;

/**
 * Splits lines into the preamble (before any label) and labelled segments, handing each new segment
 * to `visit` as soon as its label line is read; `visit` returns false to stop reading (the step is
 * decided), so a long hallucinated tail is never scanned.
 */
function segment(
  body: string,
  labels: ReActLabelSet,
  repairs: RepairLog,
  visit: (item: Segment) => boolean,
  stopAfterInput: boolean,
): { preamble: string[]; segments: Segment[]; overflow: boolean } {
  const preamble: string[] = [];
  const segments: Segment[] = [];
  let current: Segment | undefined;
  let inFence = false;
  let blankSoFar = true;
  // The first non-blank character of the current Action Input ("" while none).
  let inputStart = "";
  // Lines are cut one at a time, so a reply decided early never has its long tail split.
  for (let start = 0, end = 0; start <= body.length; start = end + 1) {
    end = body.indexOf("\n", start);
    if (end < 0) end = body.length;
    const line = body.slice(start, end);
    if (current !== undefined && (current.label === "action_input" || current.label === "final_answer")) {
      if (inFence) {
        current.lines.push(line);
        if (fenceMarker(line).isFence) {
          inFence = false;
          // With "first"/"action", nothing after a complete Action Input can change the step.
          if (stopAfterInput && current.label === "action_input" && inputStart === "`") break;
        }
        continue;
      }
      const marker = fenceMarker(line);
      if (marker.isFence && (!isBareFence(line) || (blankSoFar && current.value.trim().length === 0))) {
        inFence = true;
        blankSoFar = false;
        if (inputStart === "") inputStart = "`";
        current.lines.push(line);
        continue;
      }
      if (stopAfterInput && current.label === "action_input" && inputStart !== "" && inputStart !== "{" && inputStart !== "[" && isBlank(line)) break;
    }
    const match = line.length > 0 ? matchReActLabel(line, labels) : undefined;
    if (match === undefined) {
      if (current === undefined) preamble.push(line);
      else {
        current.lines.push(line);
        if (blankSoFar && !isBlank(line)) {
          blankSoFar = false;
          if (inputStart === "") inputStart = line.trim()[0];
        }
      }
      continue;
    }
    if (segments.length >= MAX_LABELLED_LINES) return { preamble, segments, overflow: true };
    noteLabelRepairs(line, match.labelText, repairs);
    current = { label: match.label, value: match.value, lines: [], index: segments.length, weak: match.label === "final_answer" && isWeakFinalLabel(match.labelText) };
    segments.push(current);
    const valueStart = match.value.trim();
    blankSoFar = valueStart.length === 0;
    inputStart = valueStart.length > 0 ? valueStart[0] : "";
    inFence = current.label === "action_input" && fenceMarker(match.value).isFence && !valueStart.slice(3).includes("```");
    if (!visit(current)) break;
  }
  return { preamble, segments, overflow: false };
}

function joinSegment(item: Segment): string {
  return item.lines.length === 0 ? item.value : `${item.value}\n${item.lines.join("\n")}`;
}

/** Drops bare fence lines left over at the end of a value when they close a fence opened outside it. */
function dropDanglingFences(text: string): string {
  if (!text.includes("``") && !text.includes("~~~")) return text;
  const lines = text.split("\n");
  let fenceCount = 0;
  for (const line of lines) if (fenceMarker(line).isFence) fenceCount += 1;
  while (lines.length > 0 && fenceCount % 2 === 1) {
    const last = lines[lines.length - 1];
    if (last.trim().length === 0) {
      lines.pop();
      continue;
    }
    if (!isBareFence(last)) break;
    lines.pop();
    fenceCount -= 1;
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Action Input text

interface InputText {
  readonly text: string;
  readonly fenced: boolean;
  /** The text starts with a bracket that was scanned and never closed (spares a second scan). */
  readonly unclosedJson?: boolean;
}

/**
 * Collects the Action Input value: a fenced block, a bracketed JSON value (anything after it is
 * trailing prose), or a paragraph (up to the first blank line; what follows is trailing prose).
 */
function collectInput(value: string, lines: readonly string[], repairs: RepairLog): InputText {
  const all = [value, ...lines];
  let start = 0;
  while (start < all.length && all[start].trim().length === 0) start += 1;
  if (start >= all.length) return { text: "", fenced: false };
  const firstLine = all[start].trim();
  if (fenceMarker(firstLine).isFence) {
    const marker = fenceMarker(firstLine);
    // A one-line fence: ```code```
    if (marker.rest.includes("```")) return { text: unwrapCodeFence(firstLine) ?? firstLine, fenced: true };
    const body: string[] = [];
    let closed = false;
    let index = start + 1;
    for (; index < all.length; index += 1) {
      if (isBareFence(all[index])) {
        closed = true;
        break;
      }
      body.push(all[index]);
    }
    if (closed && hasText(all, index + 1)) repairs.add("trailing_prose_removed");
    repairs.add("code_fence_removed");
    return { text: trimBlankLines(body), fenced: true };
  }
  let unclosedLength = -1;
  if (firstLine[0] === "{" || firstLine[0] === "[") {
    const rest = all.slice(start).join("\n").trim();
    const end = findBalancedEnd(rest, 0);
    if (end > 0) {
      if (rest.slice(end).trim().length > 0) repairs.add("trailing_prose_removed");
      return { text: rest.slice(0, end), fenced: false };
    }
    unclosedLength = rest.length;
  }
  const paragraph: string[] = [];
  let index = start;
  for (; index < all.length; index += 1) {
    if (all[index].trim().length === 0) break;
    paragraph.push(all[index]);
  }
  if (hasText(all, index)) repairs.add("trailing_prose_removed");
  const text = dropDanglingFences(paragraph.join("\n")).trim();
  // Same text as the one scanned (no blank line or fence cut it): it is known to be unclosed.
  return { text, fenced: false, unclosedJson: text.length === unclosedLength };
}

function hasText(lines: readonly string[], from: number): boolean {
  for (let index = from; index < lines.length; index += 1) if (!isBlank(lines[index])) return true;
  return false;
}

function isBlank(line: string): boolean {
  for (let index = 0; index < line.length; index += 1) {
    const code = line.charCodeAt(index);
    if (code !== 32 && code !== 9 && code !== 13 && code !== 0xa0 && code !== 0x3000) return false;
  }
  return true;
}

function trimBlankLines(lines: readonly string[]): string {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start].trim().length === 0) start += 1;
  while (end > start && lines[end - 1].trim().length === 0) end -= 1;
  return lines.slice(start, end).join("\n");
}

function exampleFor(spec: ToolInputSpec): string {
  if (spec.kind === "none") return "{}";
  if (spec.kind === "string") return `'Action Input: <text for ${spec.name}>'`;
  if (spec.properties.length === 0) return '{"argument": "value"}';
  const fields = spec.properties.slice(0, 8).map((name) => `"${name}": <${spec.propertyTypes[name] ?? "value"}>`);
  return `{${fields.join(", ")}}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringInput(work: Work, spec: ToolInputSpec, raw: InputText | string): Finished {
  const labels = work.config.messageLabels;
  let text = typeof raw === "string" ? raw.trim() : raw.text.trim();
  if (typeof raw !== "string" && !raw.fenced) {
    const unwrapped = unwrapCodeFence(text);
    if (unwrapped !== undefined) {
      text = unwrapped;
      work.repairs.add("code_fence_removed");
    }
  }
  const quoted = stripWrappingQuotes(text);
  if (quoted.repair !== undefined) work.repairs.add(quoted.repair);
  text = quoted.text;
  if (text.length === 0) {
    // A bare empty label may be a cut-off reply, and a tool that takes input needs one (DESIGN:
    // "a tool that needs input may not" be called without). Written quotes ("") say "empty" on purpose.
    if (quoted.repair === undefined) {
      return fail(work, "missing_action_input", PARSER_MESSAGES.emptyStringActionInput(labels, spec.name));
    }
    work.repairs.add("empty_action_input");
    return act(work, spec.name, "");
  }
  if (isPromptEchoInput(text)) return fail(work, "prompt_echo", PARSER_MESSAGES.promptEcho(labels, work.config.toolNames));
  // Only a schema ("type") or a wrapped input ("input") changes what a string tool gets: other JSON
  // is passed through untouched, so it is not parsed at all.
  if (text[0] === "{" && text.length <= work.config.maxRepairChars && (text.includes("type") || text.includes("input"))) {
    const parsed = parseLooseJson(text, work.config.maxRepairChars);
    if (parsed !== undefined && isSchemaEcho(parsed.value)) {
      return fail(work, "schema_echo", PARSER_MESSAGES.schemaEcho(labels, spec.name, `'${labels.actionInput}: <the actual text for ${spec.name}>'`));
    }
    // {"input": "..."} is the structured form of a string tool's input (LangChain's Tool schema, LlamaIndex).
    if (parsed !== undefined && isPlainObject(parsed.value)) {
      const keys = Object.keys(parsed.value);
      const only = parsed.value.input;
      if (keys.length === 1 && keys[0] === "input" && typeof only === "string") {
        work.repairs.add("string_input_unwrapped");
        return act(work, spec.name, only);
      }
    }
  }
  return act(work, spec.name, text);
}

function objectValue(work: Work, spec: ToolInputSpec, value: unknown): Finished {
  const labels = work.config.messageLabels;
  if (!isPlainObject(value)) return fail(work, "invalid_json_input", PARSER_MESSAGES.invalidJsonInput(labels, spec.name, exampleFor(spec)));
  if (isSchemaEcho(value)) return fail(work, "schema_echo", PARSER_MESSAGES.schemaEcho(labels, spec.name, exampleFor(spec)));
  if (spec.kind === "none") {
    if (Object.keys(value).length > 0) work.repairs.add("arguments_dropped_for_no_argument_tool");
    return act(work, spec.name, {});
  }
  const issues = spec.validate?.(value) ?? [];
  if (issues.length > 0) {
    const described = issues.slice(0, 8).map((issue) => (issue.path.length > 0 ? `${issue.path}: ${issue.message}` : issue.message));
    return fail(work, "invalid_tool_input", PARSER_MESSAGES.invalidToolInput(labels, spec.name, described, exampleFor(spec)));
  }
  return act(work, spec.name, value);
}

function objectInput(work: Work, spec: ToolInputSpec, raw: InputText | string): Finished {
  const labels = work.config.messageLabels;
  let text = typeof raw === "string" ? raw.trim() : raw.text.trim();
  const unwrapped = unwrapCodeFence(text);
  if (unwrapped !== undefined) {
    text = unwrapped.trim();
    work.repairs.add("code_fence_removed");
  }
  if (text.length === 0) {
    if (spec.required.length === 0) return act(work, spec.name, {});
    return fail(work, "missing_action_input", PARSER_MESSAGES.emptyActionInput(labels, spec.name, exampleFor(spec)));
  }
  // A JSON string holding the object (double encoding), or quotes around the object.
  if (text[0] === '"' || text[0] === "'") {
    const parsed = parseLooseJson(text, work.config.maxRepairChars);
    if (parsed !== undefined && isPlainObject(parsed.value)) {
      for (const repair of parsed.repairs) work.repairs.add(repair);
      return objectValue(work, spec, parsed.value);
    }
    const quoted = stripWrappingQuotes(text);
    if (quoted.repair !== undefined) text = quoted.text;
  }
  const braceIndex = text.indexOf("{");
  if (braceIndex < 0) {
    if (spec.kind === "none") {
      work.repairs.add("arguments_dropped_for_no_argument_tool");
      return act(work, spec.name, {});
    }
    const keywordArguments = parseKeywordArguments(text);
    if (keywordArguments !== undefined && (spec.properties.length === 0 || Object.keys(keywordArguments).every((key) => spec.properties.includes(key)))) {
      work.repairs.add("keyword_arguments");
      return objectValue(work, spec, keywordArguments);
    }
    const onlyField = spec.properties.length === 1 ? spec.properties[0] : undefined;
    const fieldType = onlyField !== undefined ? spec.propertyTypes[onlyField] : undefined;
    if (onlyField !== undefined && (fieldType === undefined || fieldType === "string") && text[0] !== "[") {
      work.repairs.add("single_argument_wrapped");
      return objectValue(work, spec, { [onlyField]: stripWrappingQuotes(text).text });
    }
    return fail(work, "invalid_json_input", PARSER_MESSAGES.invalidJsonInput(labels, spec.name, exampleFor(spec)));
  }
  let span = text;
  const knownUnclosed = typeof raw !== "string" && raw.unclosedJson === true && braceIndex === 0 && text.length === raw.text.length;
  const end = knownUnclosed ? -1 : findBalancedEnd(text, braceIndex);
  if (braceIndex > 0) {
    span = end > 0 ? text.slice(braceIndex, end) : text.slice(braceIndex);
    work.repairs.add("json_extracted");
  } else if (end > 0 && end < text.length) {
    span = text.slice(0, end);
    work.repairs.add("trailing_prose_removed");
  }
  // Unclosed and stopping inside a string or right after ":"/",": the output was cut off, and
  // closing it would invent a value. Only a missing closing bracket after a complete value is repaired.
  if (end < 0 && endsMidValue(span)) return fail(work, "truncated_input", PARSER_MESSAGES.truncatedInput(labels, spec.name, exampleFor(spec)));
  const parsed = parseLooseJson(span, work.config.maxRepairChars);
  if (parsed === undefined) return fail(work, "invalid_json_input", PARSER_MESSAGES.invalidJsonInput(labels, spec.name, exampleFor(spec)));
  for (const repair of parsed.repairs) work.repairs.add(repair);
  return objectValue(work, spec, parsed.value);
}

/** Whether JSON-like text ends inside a string or right after ":" or "," (a cut-off value). One scan. */
function endsMidValue(text: string): boolean {
  let quote = 0;
  let lastSignificant = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (quote !== 0) {
      if (code === 92) index += 1;
      else if (code === quote) quote = 0;
      continue;
    }
    if (code === 34 || (code === 39 && (lastSignificant === 123 || lastSignificant === 91 || lastSignificant === 44 || lastSignificant === 58))) {
      quote = code;
      lastSignificant = code;
      continue;
    }
    if (code !== 32 && code !== 9 && code !== 10 && code !== 13) lastSignificant = code;
  }
  return quote !== 0 || lastSignificant === 58 || lastSignificant === 44;
}

function toolInputFor(work: Work, spec: ToolInputSpec, raw: InputText | string): Finished {
  return spec.kind === "string" ? stringInput(work, spec, raw) : objectInput(work, spec, raw);
}

function missingInput(work: Work, spec: ToolInputSpec): Finished {
  if (spec.kind === "none") {
    work.repairs.add("no_argument_tool_without_input");
    return act(work, spec.name, {});
  }
  if (spec.kind === "object" && spec.required.length === 0 && spec.properties.length > 0) {
    work.repairs.add("no_argument_tool_without_input");
    return act(work, spec.name, {});
  }
  return fail(work, "missing_action_input", PARSER_MESSAGES.missingActionInput(work.config.messageLabels, spec.name));
}

// ---------------------------------------------------------------------------------------------
// JSON action blobs ({"action": ..., "action_input": ...} and {"name": ..., "args": ...})

interface ActionBlob {
  readonly tool: string;
  readonly input: unknown;
  readonly hasInput: boolean;
}

// The blob keys are the one grammar's (`@reins/core`), which the neutraliser is derived from.
const BLOB_NAME_KEYS = ACTION_BLOB_NAME_KEYS;
const BLOB_INPUT_KEYS = ACTION_BLOB_INPUT_KEYS;

function blobFrom(value: unknown, toolNames: readonly string[]): ActionBlob | undefined {
  if (!isPlainObject(value)) return undefined;
  for (const nameKey of BLOB_NAME_KEYS) {
    const name = value[nameKey];
    if (typeof name !== "string") continue;
    const inputKey = BLOB_INPUT_KEYS.find((key) => key in value);
    // "name" alone is too common in ordinary data: accept it with an arguments key or a known tool.
    if ((nameKey === "name" || nameKey === "function") && inputKey === undefined && !toolNames.includes(name)) continue;
    return { tool: name, input: inputKey !== undefined ? value[inputKey] : undefined, hasInput: inputKey !== undefined };
  }
  return undefined;
}

/** Finds the first JSON action blob in `text`: top-level bracketed spans, scanned once, left to right. */
function findActionBlob(work: Work, text: string): ActionBlob | undefined {
  let from = 0;
  for (;;) {
    const brace = text.indexOf("{", from);
    const bracket = text.indexOf("[", from);
    const start = brace < 0 ? bracket : bracket < 0 ? brace : Math.min(brace, bracket);
    if (start < 0) return undefined;
    const end = findBalancedEnd(text, start);
    if (end < 0) {
      // Unclosed: try the rest once (a missing closing brace), then stop.
      const parsed = text.length - start <= work.config.maxRepairChars ? parseLooseJson(text.slice(start), work.config.maxRepairChars) : undefined;
      const blob = parsed !== undefined ? pickBlob(work, parsed.value) : undefined;
      if (blob !== undefined) work.repairs.add("json_repair");
      return blob;
    }
    const parsed = parseLooseJson(text.slice(start, end), work.config.maxRepairChars);
    if (parsed !== undefined) {
      const blob = pickBlob(work, parsed.value);
      if (blob !== undefined) {
        for (const repair of parsed.repairs) work.repairs.add(repair);
        return blob;
      }
    }
    from = end;
  }
}

function pickBlob(work: Work, value: unknown): ActionBlob | undefined {
  if (Array.isArray(value)) {
    const blobs = value.map((entry) => blobFrom(entry, work.config.toolNames)).filter((entry): entry is ActionBlob => entry !== undefined);
    if (blobs.length > 1) work.repairs.add("first_of_multiple_actions");
    return blobs[0];
  }
  return blobFrom(value, work.config.toolNames);
}

function isFinalAnswerName(name: string): boolean {
  return FINISH_NAMES.includes(normalizeToolName(name).replace(/_/g, ""));
}

function fromBlob(work: Work, blob: ActionBlob): Finished {
  work.repairs.add("json_action_blob");
  if (isFinalAnswerName(blob.tool) && !work.config.toolNames.includes(blob.tool)) {
    const output = typeof blob.input === "string" ? blob.input : blob.input === undefined ? "" : JSON.stringify(blob.input);
    return finish(work, output);
  }
  const resolved = resolveTool(work, blob.tool, !blob.hasInput);
  if ("ok" in resolved) return resolved;
  const spec = resolved.spec;
  if (!blob.hasInput || blob.input === null || blob.input === undefined || blob.input === "") return missingInput(work, spec);
  if (spec.kind === "string") {
    const text = typeof blob.input === "string" ? blob.input : JSON.stringify(blob.input);
    return stringInput(work, spec, text);
  }
  if (typeof blob.input === "string") return objectInput(work, spec, blob.input);
  return objectValue(work, spec, blob.input);
}

// ---------------------------------------------------------------------------------------------
// Tool names

function resolveTool(work: Work, written: string, inputMissing: boolean): { spec: ToolInputSpec } | Finished {
  const { toolNames, messageLabels, fuzzyMaxDistance } = work.config;
  const match = matchToolName(written, toolNames, fuzzyMaxDistance);
  if (match.status === "exact" || match.status === "normalized" || match.status === "fuzzy") {
    if (match.status === "normalized") work.repairs.add(match.repair);
    if (match.status === "fuzzy") work.repairs.add("tool_name_fuzzy");
    const spec = work.config.tools.get(match.name);
    if (spec !== undefined) return { spec };
  }
  if (match.status === "ambiguous") return fail(work, "ambiguous_tool", PARSER_MESSAGES.ambiguousTool(messageLabels, written, match.candidates));
  const suggestion = suggestToolName(written, toolNames);
  return fail(work, "unknown_tool", PARSER_MESSAGES.unknownTool(messageLabels, toolNames, written, suggestion, inputMissing));
}

/** Where an "Action Input:" label may start inside a line (one linear scan; the grammar confirms). */
const INLINE_ACTION_INPUT = /action[ _-]?input/gi;

/** Splits "search Action Input: x" written on one line. */
function splitInlineActionInput(value: string, labels: ReActLabelSet): { name: string; input: string } | undefined {
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
const MAX_ACTION_LINE_CHARS = 2_000;
const BACKTICKS = new Set(["`", " "]);

function fromAction(work: Work, action: Segment, input: Segment | undefined): Finished {
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
  if (bare[0] === "{" || bare[0] === "[" || fenceMarker(nameLine).isFence) {
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
        return finish(work, call.input);
      }
      const resolved = resolveTool(work, call.name, false);
      if ("ok" in resolved) return resolved;
      work.repairs.add(call.style === "bracket" ? "paper_style_action" : "function_call_action");
      if (input !== undefined) return toolInputFor(work, resolved.spec, collectInput(input.value, input.lines, work.repairs));
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
  if (input !== undefined) return toolInputFor(work, resolved.spec, collectInput(input.value, input.lines, work.repairs));
  if (inlineInput !== undefined) return toolInputFor(work, resolved.spec, collectInput(inlineInput, [], work.repairs));
  return missingInput(work, resolved.spec);
}

const ROLE_PREFIXES = ["assistant:", "ai:", "bot:"];

function fromFinal(work: Work, final: Segment): Finished {
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

// ---------------------------------------------------------------------------------------------
// Replies without an action or a final answer

function mentionedTools(text: string, toolNames: readonly string[]): string[] {
  const lower = text.slice(0, 20_000).toLowerCase();
  return toolNames.filter((name) => {
    const identifierLike = /[_\-0-9]|[a-z][A-Z]/.test(name);
    if (identifierLike && containsWord(lower, name)) return true;
    const nameLower = name.toLowerCase();
    return lower.includes(`\`${nameLower}\``) || lower.includes(`${nameLower} tool`);
  });
}

/** Prose for a person: starts with neither markup nor data, and has letters in it. */
function readsAsReply(text: string): boolean {
  const first = text.trimStart()[0];
  if (first === undefined || first === "{" || first === "[" || first === "<" || first === "`") return false;
  return /\p{L}/u.test(text.slice(0, 1_000));
}

/** Reads a tag's content: from after `<tag>` to `</tag>` or the end of the text (a stop sequence may cut it). */
function tagContent(text: string, tag: string): string | undefined {
  const open = text.indexOf(`<${tag}>`);
  if (open < 0) return undefined;
  const start = open + tag.length + 2;
  const close = text.indexOf(`</${tag}>`, start);
  return text.slice(start, close < 0 ? text.length : close);
}

/** LangChain's XML agent format: `<tool>name</tool><tool_input>input` and `<final_answer>answer` (tag names from the one grammar). */
function fromXml(work: Work, body: string): Finished | undefined {
  const { tool, toolInput, finalAnswer } = XML_AGENT_TAG_NAMES;
  if (!body.includes(`<${tool}>`) && !body.includes(`<${finalAnswer}>`)) return undefined;
  const toolIndex = body.indexOf(`<${tool}>`);
  const finalIndex = body.indexOf(`<${finalAnswer}>`);
  if (toolIndex >= 0 && (finalIndex < 0 || toolIndex < finalIndex)) {
    const name = tagContent(body, tool) ?? "";
    work.repairs.add("xml_action");
    const resolved = resolveTool(work, name.trim(), false);
    if ("ok" in resolved) return resolved;
    const input = tagContent(body, toolInput);
    if (input === undefined) return missingInput(work, resolved.spec);
    return toolInputFor(work, resolved.spec, input.trim());
  }
  work.repairs.add("xml_final_answer");
  return finish(work, tagContent(body, finalAnswer) ?? "");
}

/** Label words written capitalised inside prose ("provide a valid Action"): the model is talking about the format. */
const FORMAT_WORDS = ["Action Input", "Action", "Final Answer", "Observation", "Thought"];

function talksAboutFormat(text: string): boolean {
  return FORMAT_WORDS.some((word) => containsWordCaseSensitive(text, word));
}

function containsWordCaseSensitive(text: string, word: string): boolean {
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

function withoutStep(work: Work, body: string, preamble: readonly string[], segments: readonly Segment[]): Finished {
  const { messageLabels, toolNames } = work.config;
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
  const orphanInput = segments.find((item) => item.label === "action_input");
  if (orphanInput !== undefined) return fail(work, "missing_action_label", PARSER_MESSAGES.missingActionLabel(messageLabels, toolNames));
  const thoughts = segments.filter((item) => item.label === "thought");
  // "Do I need to use a tool? No" written without the Thought label, then the reply.
  const preambleText = trimBlankLines(preamble);
  const firstBreak = preambleText.indexOf("\n");
  if (segments.length === 0 && firstBreak > 0 && saysNoToolNeeded(preambleText.slice(0, firstBreak))) {
    const reply = preambleText.slice(firstBreak + 1).trim();
    if (reply.length > 0 && !looksTruncated(reply) && !talksAboutFormat(reply) && !hasNeutralizedMarks(reply)) {
      work.repairs.add("unlabelled_final_answer");
      return finish(work, reply);
    }
  }
  for (const thought of thoughts) {
    const reply = trimBlankLines(thought.lines);
    if (reply.length > 0 && thought.value.trim().length > 0 && saysNoToolNeeded(thought.value) && !looksTruncated(reply) && !hasNeutralizedMarks(reply)) {
      work.repairs.add("unlabelled_final_answer");
      return finish(work, reply);
    }
  }
  const meaningful = segments.filter((item) => item.label !== "observation" && item.label !== "question");
  if (meaningful.length === 0 && segments.length === 0) {
    const text = trimBlankLines(preamble);
    const mentioned = mentionedTools(text, toolNames);
    if (work.config.acceptUnlabelledReply && readsAsReply(text) && mentioned.length === 0 && !looksLikePlan(text) && !looksTruncated(text) && !talksAboutFormat(text) && !hasNeutralizedMarks(text)) {
      work.repairs.add("unlabelled_final_answer");
      return finish(work, text);
    }
    return fail(work, "missing_action", PARSER_MESSAGES.missingAction(messageLabels, toolNames, mentioned, looksTruncated(text)));
  }
  const mentioned = mentionedTools(body, toolNames);
  return fail(work, "missing_action", PARSER_MESSAGES.missingAction(messageLabels, toolNames, mentioned, looksTruncated(body)));
}

// ---------------------------------------------------------------------------------------------
// Fast path: the canonical shapes, read with a few native string searches. Anything unusual
// returns undefined and goes through the full reader, which gives the same result on these shapes
// (a test checks both agree on every corpus and trajectory text).

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
 * CR, tags and code fences out (those replies take the full reader).
 */
const CANONICAL_STEP = /(?:(?:Thought:)?([^\n<`\r]*)\n+)?(?:Action:([^\n<`\r]*)\n+Action Input:([^\n<`\r]*)|(?:Final Answer|Answer|AI):([^\n<`\r]*))/y;

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

function readCanonicalStep(text: string, config: ReaderConfig): ReActStep | undefined {
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
    if (fenced.length === 0 || isQuoteCode(fenced.charCodeAt(0)) || fenced[0] === "{" || isPromptEchoInput(fenced)) return undefined;
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

// ---------------------------------------------------------------------------------------------

/**
 * Reads one model reply into an action, a final answer, or a rejection with a corrective message.
 * Linear in the length of `text`.
 */
export function readReActStep(text: unknown, config: ReaderConfig, allowFastPath = true): ReActStep {
  if (allowFastPath && config.canonicalLabels && typeof text === "string") {
    const canonical = readCanonicalStep(text, config);
    if (canonical !== undefined) return canonical;
  }
  const work: Work = { config, repairs: new RepairLog(), thought: "", cutContinuation: false };
  if (typeof text !== "string") return fail(work, "not_text", PARSER_MESSAGES.notText(config.messageLabels, config.toolNames));
  let body = text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
  if (body.charCodeAt(0) === 0xfeff) body = body.slice(1);
  const reasoning = stripReasoningBlocks(body);
  if (reasoning.removed || reasoning.unclosed) work.repairs.add("reasoning_block_removed");
  body = reasoning.text;
  if (body.trim().length === 0) {
    if (reasoning.unclosed || reasoning.removed) return fail(work, "reasoning_only", PARSER_MESSAGES.reasoningOnly(config.messageLabels, config.toolNames));
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
  const { preamble, segments, overflow } = segment(body, config.labels, work.repairs, visit, stopAfterInput);
  if (overflow) return fail(work, "too_many_labels", PARSER_MESSAGES.tooManyLabels(config.messageLabels, MAX_LABELLED_LINES));
  const thoughtParts: string[] = [trimBlankLines(preamble).trim(), ...thoughtSegments.map((item) => joinSegment(item).trim())];
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
  return withoutStep(work, body, preamble, segments);
}
