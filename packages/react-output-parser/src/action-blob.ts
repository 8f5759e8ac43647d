/** Stage 3: JSON action blobs (`{"action": …, "action_input": …}`, `{"name": …, "arguments": …}`). */
import { ACTION_BLOB_INPUT_KEYS, ACTION_BLOB_NAME_KEYS, ACTION_BLOB_WRAPPER_KEYS, FINISH_NAMES } from "@reins/core";
import { missingInput, objectInput, objectValue, stringInput } from "./action-input";
import { findBalancedEnd, missingClosers, parseLooseJson } from "./json-text";
import { PARSER_MESSAGES } from "./messages";
import { fail, finish, type Finished, type Work } from "./react-step";
import { resolveTool } from "./resolve-tool";
import { isPlainObject } from "./text-lines";
import { normalizeToolName } from "./tool-names";

// ---------------------------------------------------------------------------------------------
// JSON action blobs ({"action": ..., "action_input": ...} and {"name": ..., "args": ...})

export interface ActionBlob {
  readonly tool: string;
  readonly input: unknown;
  readonly hasInput: boolean;
  /** The text ends inside the input (an unclosed call tag with unbalanced JSON): never run. */
  readonly truncated?: boolean;
}

// The blob keys are the one grammar's (`@reins/core`), which the neutraliser is derived from.
export const BLOB_NAME_KEYS = ACTION_BLOB_NAME_KEYS;
export const BLOB_INPUT_KEYS = ACTION_BLOB_INPUT_KEYS;

/** A key as the grammar spells it: lower case, spaces and hyphens as `_` (`"Action Input"` → `action_input`). */
function grammarKey(key: string): string {
  return key.trim().toLowerCase().replace(/[\s-]+/g, "_");
}

/** The object with its keys in the grammar's spelling, or itself when they already are. */
function withGrammarKeys(value: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(value);
  if (keys.every((key) => grammarKey(key) === key)) return value;
  const result: Record<string, unknown> = {};
  for (const key of keys) {
    const spelled = grammarKey(key);
    if (!(spelled in result)) result[spelled] = value[key];
  }
  return result;
}

/** Keys of a call object that are never arguments (the OpenAI shape's `type`, a call's `id`). */
const CALL_META_KEYS: readonly string[] = ["type", "id", "call_id", "tool_call_id", "index"];

/** The keys of a flat call other than its name key (and call metadata), or `undefined` when there are none. */
function flatArguments(value: Record<string, unknown>, nameKey: string): Record<string, unknown> | undefined {
  const rest = Object.entries(value).filter(([key]) => grammarKey(key) !== nameKey && !CALL_META_KEYS.includes(grammarKey(key)));
  return rest.length === 0 ? undefined : Object.fromEntries(rest);
}

/**
 * Reads one blob: a name key ({@link BLOB_NAME_KEYS}, any case or spacing: `"Action"`,
 * `"Action Input"`) next to an input key, or one wrapper key (`ACTION_BLOB_WRAPPER_KEYS`:
 * `{"tool_call": {…}}`) around such a blob. The OpenAI shape `{"function": {"name", "arguments"}}`
 * is a wrapper too.
 */
export function blobFrom(value: unknown, toolNames: readonly string[], depth = 0): ActionBlob | undefined {
  if (!isPlainObject(value)) return undefined;
  const keyed = withGrammarKeys(value);
  for (const nameKey of BLOB_NAME_KEYS) {
    const name = keyed[nameKey];
    if (typeof name !== "string") continue;
    const inputKey = BLOB_INPUT_KEYS.find((key) => key in keyed);
    // "name" alone is too common in ordinary data: accept it with an arguments key or a known tool.
    if ((nameKey === "name" || nameKey === "function") && inputKey === undefined && !toolNames.includes(name)) continue;
    if (inputKey === undefined && toolNames.includes(name)) {
      // A flat call (gpt-oss, small models): `{"name": "get_weather", "city": "Oslo"}`, the other keys are the arguments.
      const flat = flatArguments(value, nameKey);
      if (flat !== undefined) return { tool: name, input: flat, hasInput: true };
    }
    return { tool: name, input: inputKey !== undefined ? keyed[inputKey] : undefined, hasInput: inputKey !== undefined };
  }
  if (depth > 2) return undefined;
  const keys = Object.keys(keyed);
  const wrapper = keys.length === 1 ? keys[0] : keys.find((key) => key === "function" && isPlainObject(keyed[key]));
  if (wrapper !== undefined && (ACTION_BLOB_WRAPPER_KEYS.includes(wrapper) || wrapper === "function")) {
    const inner = keyed[wrapper];
    const entry = Array.isArray(inner) ? inner[0] : inner;
    return blobFrom(entry, toolNames, depth + 1);
  }
  return undefined;
}

/** Finds the first JSON action blob in `text`: top-level bracketed spans, scanned once, left to right. */
export function findActionBlob(work: Work, text: string): ActionBlob | undefined {
  let from = 0;
  // Next "{" and "[" positions, searched again only once passed (two searches of the text in all).
  let brace = -2;
  let bracket = -2;
  let colon = -2;
  /** Cheap test before a parse: the span has a colon and a blob key word (spans are disjoint, so this stays linear). */
  const mayHoldBlob = (start: number, end: number): boolean => {
    if (colon !== -1 && colon < start) colon = text.indexOf(":", start);
    if (colon < 0 || colon >= end) return false;
    return BLOB_KEY_WORD.test(end - start > 4_096 ? text.slice(start, start + 4_096) : text.slice(start, end));
  };
  for (;;) {
    if (brace !== -1 && brace < from) brace = text.indexOf("{", from);
    if (bracket !== -1 && bracket < from) bracket = text.indexOf("[", from);
    const start = brace < 0 ? bracket : bracket < 0 ? brace : Math.min(brace, bracket);
    if (start < 0) return undefined;
    const end = findBalancedEnd(text, start);
    if (end < 0) {
      // Unclosed: complete but for its last brace(s) (a slip) it is closed; otherwise it was cut
      // off, and a blob read from it is never run (the rescue's rule: `missingClosers`).
      const closers = missingClosers(text.trimEnd(), start);
      const rest = closers === undefined ? text.slice(start) : text.slice(start).trimEnd() + closers;
      const parsed = rest.length <= work.config.maxRepairChars && mayHoldBlob(start, text.length) ? parseLooseJson(rest, work.config.maxRepairChars) : undefined;
      const blob = parsed !== undefined ? pickBlob(work, parsed.value) : undefined;
      if (blob === undefined) return undefined;
      work.repairs.add(closers === undefined ? "json_repair" : "closing_brace_added");
      return closers === undefined ? { ...blob, truncated: true } : blob;
    }
    const parsed = mayHoldBlob(start, end) ? parseLooseJson(text.slice(start, end), work.config.maxRepairChars) : undefined;
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

/** Words every blob key holds (name, wrapper and finish keys): spans without one are not parsed. */
const BLOB_KEY_WORD = /action|tool|name|function/i;

export function pickBlob(work: Work, value: unknown): ActionBlob | undefined {
  if (Array.isArray(value)) {
    const blobs = value.map((entry) => blobFrom(entry, work.config.toolNames)).filter((entry): entry is ActionBlob => entry !== undefined);
    if (blobs.length > 1) work.repairs.add("first_of_multiple_actions");
    return blobs[0];
  }
  return blobFrom(value, work.config.toolNames);
}

export function isFinalAnswerName(name: string): boolean {
  return FINISH_NAMES.includes(normalizeToolName(name).replace(/_/g, ""));
}

export function fromBlob(work: Work, blob: ActionBlob): Finished {
  work.repairs.add("json_action_blob");
  if (isFinalAnswerName(blob.tool) && !work.config.toolNames.includes(blob.tool)) {
    const output = typeof blob.input === "string" ? blob.input : blob.input === undefined ? "" : JSON.stringify(blob.input);
    return finish(work, output);
  }
  const resolved = resolveTool(work, blob.tool, !blob.hasInput);
  if ("ok" in resolved) return resolved;
  const spec = resolved.spec;
  if (blob.truncated === true) {
    const labels = work.config.messageLabels;
    return fail(work, "truncated_input", PARSER_MESSAGES.truncatedInput(labels, spec.name, `'${labels.actionInput}: <the complete input for ${spec.name}>'`));
  }
  if (!blob.hasInput || blob.input === null || blob.input === undefined || blob.input === "") return missingInput(work, spec);
  if (spec.kind === "string") {
    const text = typeof blob.input === "string" ? blob.input : JSON.stringify(blob.input);
    return stringInput(work, spec, text);
  }
  if (typeof blob.input === "string") return objectInput(work, spec, blob.input);
  return objectValue(work, spec, blob.input);
}
