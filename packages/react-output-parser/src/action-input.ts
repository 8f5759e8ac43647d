/**
 * Stage 2: the Action Input value — collected (fence, bracketed JSON or paragraph) and coerced to
 * what the tool takes (a string, or an object checked against its schema).
 */
import { findBalancedEnd, parseLooseJson } from "./json-text";
import { PARSER_MESSAGES } from "./messages";
import { act, fail, type Finished, type RepairLog, type Work } from "./react-step";
import { fenceMarker, isBareFence, unwrapCodeFence } from "./code-fences";
import { isPromptEchoInput, isPythonSchemaRepr, isSchemaEcho } from "./echo-detection";
import { parseKeywordArguments } from "./inline-call";
import { stripWrappingQuotes } from "./quotes";
import { dropDanglingFences } from "./segment-labels";
import { hasText, isPlainObject, trimBlankLines } from "./text-lines";
import { unknownArgumentNames, type ToolInputSpec } from "./tool-schema";

// ---------------------------------------------------------------------------------------------
// Action Input text

export interface InputText {
  readonly text: string;
  readonly fenced: boolean;
  /** The text starts with a bracket that was scanned and never closed (spares a second scan). */
  readonly unclosedJson?: boolean;
  /** A code fence was opened and never closed: the reply was cut off inside the input (`text` then holds its first lines only). */
  readonly unclosedFence?: boolean;
}

/** Lines of an unclosed fence kept in {@link InputText.text} (the input is rejected, never run). */
const UNCLOSED_FENCE_LINES_KEPT = 200;

/** A fence's language tag written alone on a line, without the backticks (`json`, then `{…}`). */
const BARE_LANGUAGE_TAG = /^(?:json|json5|jsonc|yaml|yml)$/i;
/** Markdown emphasis left before a bracketed input (`** {…}`). */
const MARKDOWN_BEFORE_BRACKET = /^(?:\*{1,3}|_{1,3})\s*(?=[{[])/;

/**
 * Collects the Action Input value: a fenced block, a bracketed JSON value (anything after it is
 * trailing prose), or a paragraph (up to the first blank line; what follows is trailing prose).
 */
export function collectInput(value: string, lines: readonly string[], repairs: RepairLog): InputText {
  const all = [value, ...lines];
  let start = 0;
  while (start < all.length && all[start].trim().length === 0) start += 1;
  if (start >= all.length) return { text: "", fenced: false };
  if (BARE_LANGUAGE_TAG.test(all[start].trim())) {
    let next = start + 1;
    while (next < all.length && all[next].trim().length === 0) next += 1;
    const first = all[next]?.trim()[0];
    if (first === "{" || first === "[") {
      repairs.add("fence_language_tag_removed");
      start = next;
    }
  }
  const marked = MARKDOWN_BEFORE_BRACKET.exec(all[start].trim());
  if (marked !== null) {
    all[start] = all[start].trim().slice(marked[0].length);
    repairs.add("markdown_marker_removed");
  }
  const firstLine = all[start].trim();
  if (fenceMarker(firstLine).isFence) {
    const marker = fenceMarker(firstLine);
    // A one-line fence: ```code```
    if (marker.rest.includes("```")) return { text: unwrapCodeFence(firstLine) ?? firstLine, fenced: true };
    let closed = false;
    let glued: string | undefined;
    const fence = firstLine.startsWith("~~~") ? "~~~" : firstLine.startsWith("```") ? "```" : "``";
    let index = start + 1;
    for (; index < all.length; index += 1) {
      if (isBareFence(all[index])) {
        closed = true;
        break;
      }
      // The closing fence glued to the last line of the input (`{"query": "x"}```): closed there.
      const line = all[index].trimEnd();
      if (line.endsWith(fence) && !fenceMarker(line).isFence) {
        closed = true;
        glued = line.slice(0, -fence.length);
        repairs.add("glued_fence_closed");
        break;
      }
    }
    if (closed && hasText(all, index + 1)) repairs.add("trailing_prose_removed");
    repairs.add("code_fence_removed");
    // Unclosed, the input is rejected as cut off: only its first lines are kept for the check.
    const body = all.slice(start + 1, closed ? index : Math.min(index, start + 1 + UNCLOSED_FENCE_LINES_KEPT));
    return { text: trimBlankLines(glued === undefined ? body : [...body, glued]), fenced: true, unclosedFence: !closed };
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


export function exampleFor(spec: ToolInputSpec): string {
  if (spec.kind === "none") return "{}";
  if (spec.kind === "string") return `'Action Input: <text for ${spec.name}>'`;
  if (spec.properties.length === 0) return '{"argument": "value"}';
  const fields = spec.properties.slice(0, 8).map((name) => `"${name}": <${spec.propertyTypes[name] ?? "value"}>`);
  return `{${fields.join(", ")}}`;
}


export function stringInput(work: Work, spec: ToolInputSpec, raw: InputText | string): Finished {
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
  // Cut off inside a JSON value ({"query": "history of the): never run half-written.
  if ((text[0] === "{" || text[0] === "[") && (typeof raw !== "string" && raw.unclosedJson === true ? true : findBalancedEnd(text, 0) < 0) && endsMidValue(text)) {
    return fail(work, "truncated_input", PARSER_MESSAGES.truncatedInput(labels, spec.name, `'${labels.actionInput}: <the text for ${spec.name}>'`));
  }
  const repr = unwrapPythonRepr(text);
  if (repr !== undefined) {
    const parsed = parseLooseJson(repr, work.config.maxRepairChars);
    if (parsed !== undefined && isSchemaEcho(parsed.value)) {
      return fail(work, "schema_echo", PARSER_MESSAGES.schemaEcho(labels, spec.name, `'${labels.actionInput}: <the actual text for ${spec.name}>'`));
    }
  }
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

export function objectValue(work: Work, spec: ToolInputSpec, value: unknown): Finished {
  const labels = work.config.messageLabels;
  if (!isPlainObject(value)) return fail(work, "invalid_json_input", PARSER_MESSAGES.invalidJsonInput(labels, spec.name, exampleFor(spec)));
  if (isSchemaEcho(value)) return fail(work, "schema_echo", PARSER_MESSAGES.schemaEcho(labels, spec.name, exampleFor(spec)));
  if (spec.kind === "none") {
    if (Object.keys(value).length > 0) work.repairs.add("arguments_dropped_for_no_argument_tool");
    return act(work, spec.name, {});
  }
  // A name the tool does not take is named first: the schema would drop it (or miss the field it stands for).
  const unknown = unknownArgumentNames(spec, value);
  if (unknown.length > 0) return fail(work, "invalid_tool_input", PARSER_MESSAGES.unknownArguments(labels, spec.name, unknown, spec.properties, spec.required, exampleFor(spec)));
  const issues = spec.validate?.(value) ?? [];
  if (issues.length > 0) {
    const described = issues.slice(0, 8).map((issue) => (issue.path.length > 0 ? `${issue.path}: ${issue.message}` : issue.message));
    return fail(work, "invalid_tool_input", PARSER_MESSAGES.invalidToolInput(labels, spec.name, described, exampleFor(spec)));
  }
  return act(work, spec.name, value);
}

export function objectInput(work: Work, spec: ToolInputSpec, raw: InputText | string): Finished {
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
  // A Python repr of the tool's schema (`query: str`, `FieldInfo(…)`, `<class 'str'>`): a correction, never run.
  if (isPythonSchemaRepr(text, spec.properties)) return fail(work, "schema_echo", PARSER_MESSAGES.schemaEcho(labels, spec.name, exampleFor(spec)));
  const repr = unwrapPythonRepr(text);
  if (repr !== undefined) {
    text = repr;
    work.repairs.add("python_repr_unwrapped");
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
    // A bare list (`["a", "b"]`, also with prose around it) for a tool with exactly one required
    // list field: that field's value (the rescue's `bare_value` rule).
    const bracket = text.indexOf("[");
    const listField = spec.required.length === 1 && spec.propertyTypes[spec.required[0] as string] === "array" ? (spec.required[0] as string) : undefined;
    if (bracket >= 0 && listField !== undefined) {
      const end = findBalancedEnd(text, bracket);
      const list = end > 0 ? parseLooseJson(text.slice(bracket, end), work.config.maxRepairChars) : undefined;
      if (list !== undefined && Array.isArray(list.value)) {
        work.repairs.add("bare_value");
        if (bracket > 0 || text.slice(end).trim().length > 0) work.repairs.add("json_extracted");
        return objectValue(work, spec, { [listField]: list.value });
      }
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

/** A Python repr around a value (`AttributedDict({…})`, `Args({…})`): the value inside, else `undefined`. */
export function unwrapPythonRepr(text: string): string | undefined {
  const match = /^[A-Z][A-Za-z0-9_]{0,40}\(\s*(?=[{[])/.exec(text);
  if (match === null || !text.endsWith(")")) return undefined;
  return text.slice(match[0].length, text.length - 1).trim();
}

/** Whether JSON-like text ends inside a string, right after ":" or ",", or with an inner bracket open (a cut-off value). One scan. */
export function endsMidValue(text: string): boolean {
  let quote = 0;
  let lastSignificant = 0;
  // Brackets still open at the end: more than the outermost one means a value inside was cut.
  let depth = 0;
  let sawColon = false;
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
    if (code === 58) sawColon = true;
    if (code === 123 || code === 91) depth += 1;
    else if ((code === 125 || code === 93) && depth > 0) depth -= 1;
    if (code !== 32 && code !== 9 && code !== 10 && code !== 13) lastSignificant = code;
  }
  return quote !== 0 || lastSignificant === 58 || lastSignificant === 44 || (depth > 1 && sawColon);
}

export function toolInputFor(work: Work, spec: ToolInputSpec, raw: InputText | string): Finished {
  // Cut off inside a fence: never run half-written (a stop sequence or max_tokens ended the reply).
  if (typeof raw !== "string" && raw.unclosedFence === true && raw.text.trim().length > 0) {
    return fail(work, "truncated_input", PARSER_MESSAGES.truncatedInput(work.config.messageLabels, spec.name, exampleFor(spec)));
  }
  return spec.kind === "string" ? stringInput(work, spec, raw) : objectInput(work, spec, raw);
}

export function missingInput(work: Work, spec: ToolInputSpec): Finished {
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
