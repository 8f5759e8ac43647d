/**
 * Provenance: the tool calls that stand in text from outside the model (tool results, failure
 * texts, fallbacks, the system prompt, human messages, summaries, artifacts read back), read as
 * that text enters a run, so that a call the model later writes as text is refused when it only
 * repeats one of them. Tool output is data, never an action.
 *
 * The untrusted text is read by the same readers that read the model's reply
 * ({@link readWrittenToolCalls}; on the classic path also the ReAct step reader) on `@reins/core`'s
 * decoded view (HTML entities and `\uXXXX` escapes decoded, NFKC, confusable skeletons, invisible
 * and format characters removed) and on the text as written, each piece alone and all pieces
 * joined in order with nothing between them, and with a line break between them (a call split over
 * two tool results is found, also when the edges of a piece were trimmed). JSON
 * values are also walked: a call inside a string or a nested object of a JSON tool result counts.
 *
 * A call is recorded by value ({@link untrustedCallKeys}): its tool name (compacted as tool names
 * are matched) and its arguments parsed, keys sorted, every scalar as folded lower-case text with
 * blanks collapsed and one wrapping quote pair removed, so the wrapper it was written in (a tag, a
 * fence, a pythonic list, harmony tokens), its key order and its quoting do not matter. A
 * one-field argument object is also recorded as its bare value. A key is the SHA-256 of that form
 * (24 hex digits), so a run record that keeps the keys stays small and holds no tool input.
 */
import { createHash } from "node:crypto";
import { compactCallName, decodeUntrustedText, foldText, normalizeLineBreaks, stripControlTokens, withoutNeutralizedMarks } from "@reins/core";
import { findBalancedEnd, parseLooseJson } from "./json-text";
import { isPlainObject } from "./text-lines";
import { blobFrom } from "./action-blob";
import { stripReasoningBlocks } from "./reasoning-blocks";
import { MAX_WRITTEN_CALLS } from "./written-call-tokens";
import { readWrittenToolCalls } from "./written-tool-calls";

/** A call as read from text: a name and its arguments (a value, or the text as written). */
export interface UntrustedCallCandidate {
  readonly name: string;
  readonly args: unknown;
}

/** Options of {@link readUntrustedCalls}. */
export interface UntrustedCallReadOptions {
  /** The agent's tool names: bare JSON and pythonic calls count only when they name one. */
  readonly toolNames: readonly string[];
  /**
   * More readers of a text (the classic path adds the ReAct step reader: an `Action:` step in an
   * observation). Each returns the calls it reads.
   * @default none
   */
  readonly extraReaders?: ReadonlyArray<(text: string) => readonly UntrustedCallCandidate[]>;
  /** Longest JSON text handed to the repair library. @default 20000 */
  readonly maxRepairChars?: number;
}

/** How deep JSON values are walked for calls (a string holding JSON holding a call is depth 2). */
const MAX_WALK_DEPTH = 6;
/** JSON values walked per text at most (keeps hostile text linear). */
const MAX_WALKED_VALUES = 20_000;
/** The first window read after a reading that took its 64 groups (grown ×4 up to {@link READ_WINDOW_CHARS}). */
const FIRST_WINDOW_CHARS = 4_096;
/** The window untrusted text is read on in when it holds more calls than one reading takes. */
const READ_WINDOW_CHARS = 131_072;
/** How much consecutive windows overlap: a call up to this long that crosses a window's end is read whole in the next. */
const READ_WINDOW_OVERLAP_CHARS = 32_768;
/** Characters of the joined text kept from earlier pieces when reading new ones incrementally. */
export const UNTRUSTED_JOIN_TAIL_CHARS = 16_384;

function unquote(text: string): string {
  if (text.length >= 2) {
    const first = text[0];
    const last = text[text.length - 1];
    if ((first === '"' || first === "'" || first === "`") && first === last) return text.slice(1, -1).trim();
  }
  return text;
}

/** A scalar as it is compared: decoded, folded, lower case, blanks collapsed, one quote pair removed. */
function canonicalScalar(value: string): string {
  const folded = decodeUntrustedText(value).toLowerCase().replace(/\s+/g, " ").trim();
  return unquote(folded);
}

function canonicalValue(value: unknown, depth: number): unknown {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (depth < 3 && (trimmed.startsWith("{") || trimmed.startsWith("[")) && trimmed.length <= 100_000) {
      const parsed = parseLooseJson(trimmed, 20_000);
      if (parsed !== undefined && typeof parsed.value === "object" && parsed.value !== null) return canonicalValue(parsed.value, depth + 1);
    }
    return canonicalScalar(value);
  }
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value).toLowerCase();
  if (Array.isArray(value)) return value.map((item) => canonicalValue(item, depth + 1));
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => [canonicalScalar(key), canonicalValue(item, depth + 1)] as const)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return Object.fromEntries(entries);
  }
  return canonicalScalar(String(value));
}

/** A tool name as calls are matched: control tokens, `functions.` prefixes and `:0` suffixes removed, compacted. */
export function untrustedCallName(name: string): string {
  const bare = stripControlTokens(foldText(name)).text.trim().replace(/^(?:functions?|tools?)\./i, "").replace(/:\d+$/, "");
  return compactCallName(unquote(bare));
}

/**
 * The keys a call is recorded and matched under: `name(arguments)` with the arguments in their
 * canonical form (see the module doc); a one-field object also as its bare value, and no
 * arguments (`undefined`, `""`, `{}`) as one form.
 *
 * @param name - the tool name as written
 * @param args - the arguments: a value, or the text as written (parsed when it is JSON)
 * @returns one or more keys
 */
export function untrustedCallKeys(name: string, args: unknown): string[] {
  const tool = untrustedCallName(name);
  let canonical = canonicalValue(args, 0);
  if (isPlainObject(canonical) && Object.keys(canonical).length === 0) canonical = "";
  const forms = [`${tool}(${JSON.stringify(canonical)})`];
  if (isPlainObject(canonical)) {
    const values = Object.values(canonical);
    if (values.length === 1) forms.push(`${tool}(${JSON.stringify(values[0])})`);
  }
  return forms.map((form) => createHash("sha256").update(form).digest("hex").slice(0, 24));
}

/** Calls in every JSON value of `text`: call objects anywhere, and the texts of string values read again. */
function walkJsonCalls(text: string, options: UntrustedCallReadOptions, found: UntrustedCallCandidate[], depth: number, budget: { values: number }): void {
  let from = 0;
  while (from < text.length && budget.values > 0) {
    const brace = text.indexOf("{", from);
    const bracket = text.indexOf("[", from);
    const start = brace < 0 ? bracket : bracket < 0 ? brace : Math.min(brace, bracket);
    if (start < 0) return;
    const balanced = findBalancedEnd(text, start);
    if (balanced < 0) {
      from = start + 1;
      continue;
    }
    const parsed = parseLooseJson(text.slice(start, balanced), options.maxRepairChars ?? 20_000);
    if (parsed !== undefined && typeof parsed.value === "object" && parsed.value !== null) walkValue(parsed.value, options, found, depth, budget);
    // An object that does not parse may still hold one that does.
    from = parsed === undefined ? start + 1 : balanced;
  }
}

function walkValue(value: unknown, options: UntrustedCallReadOptions, found: UntrustedCallCandidate[], depth: number, budget: { values: number }): void {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth }];
  while (stack.length > 0 && budget.values > 0) {
    const item = stack.pop() as { value: unknown; depth: number };
    budget.values -= 1;
    if (typeof item.value === "string") {
      if (item.depth < MAX_WALK_DEPTH && item.value.length >= 4) readInto(item.value, options, found, item.depth + 1, budget);
      continue;
    }
    if (typeof item.value !== "object" || item.value === null) continue;
    if (Array.isArray(item.value)) {
      for (const entry of item.value) stack.push({ value: entry, depth: item.depth });
      continue;
    }
    const record = item.value as Record<string, unknown>;
    const unwrapped = isPlainObject(record.function) ? record.function : record;
    const blob = blobFrom(unwrapped, options.toolNames) ?? blobFrom(record, options.toolNames);
    if (blob !== undefined) found.push({ name: blob.tool, args: blob.hasInput ? blob.input : {} });
    for (const entry of Object.values(record)) stack.push({ value: entry, depth: item.depth });
  }
}

/**
 * Every call written in `text`. The reader stops after {@link MAX_WRITTEN_CALLS} groups of a
 * family (linear on a reply), so when the whole text holds more, it is read on from the last call
 * read, in windows sized to how dense the calls are (a window that ends inside a long call is read
 * again larger, up to {@link READ_WINDOW_CHARS}; then windows overlap by
 * {@link READ_WINDOW_OVERLAP_CHARS}): a text of thousands of decoy calls cannot hide the one after
 * them, and the reading stays linear.
 */
function readEveryWrittenCall(text: string, options: UntrustedCallReadOptions, found: UntrustedCallCandidate[]): void {
  const readOptions = { toolNames: options.toolNames, ...(options.maxRepairChars !== undefined ? { maxRepairChars: options.maxRepairChars } : {}) };
  const first = readWrittenToolCalls(text, readOptions);
  for (const call of first.calls) found.push({ name: call.name, args: call.args });
  if (first.calls.length < MAX_WRITTEN_CALLS) return;
  let from = lastEndOf(first.calls);
  let window = FIRST_WINDOW_CHARS;
  while (from > 0 && from < text.length) {
    const end = Math.min(text.length, from + window);
    const read = readWrittenToolCalls(text.slice(from, end), readOptions);
    for (const call of read.calls) found.push({ name: call.name, args: call.args });
    if (read.calls.length >= MAX_WRITTEN_CALLS) {
      // Dense calls: go on after the last one, with a window sized to what 64 groups took.
      const advance = Math.max(1, lastEndOf(read.calls));
      from += advance;
      window = Math.min(READ_WINDOW_CHARS, Math.max(FIRST_WINDOW_CHARS, 2 * advance));
    } else if (end === text.length) {
      return;
    } else if (window < READ_WINDOW_CHARS) {
      // A long call may cross the window's end: read again from the same place in a larger one.
      window = Math.min(READ_WINDOW_CHARS, window * 4);
    } else {
      from = Math.max(from + 1, end - READ_WINDOW_OVERLAP_CHARS);
    }
  }
}

function lastEndOf(calls: ReadonlyArray<{ readonly end: number }>): number {
  let last = 0;
  for (const call of calls) if (call.end > last) last = call.end;
  return last;
}

/** Every call the readers find in one text, as written and on its decoded view. */
function readInto(text: string, options: UntrustedCallReadOptions, found: UntrustedCallCandidate[], depth: number, budget: { values: number }): void {
  const written = normalizeLineBreaks(text);
  // As written; with the neutraliser's marks dropped (as a model copying it may); decoded.
  const unmarked = withoutNeutralizedMarks(written);
  const views = [...new Set([written, unmarked, decodeUntrustedText(unmarked)])];
  for (const view of views) {
    const reasoning = stripReasoningBlocks(view);
    readEveryWrittenCall(view, options, found);
    // Calls inside a reasoning block of untrusted text count too (the model's own reply reads them only alone).
    if (reasoning.inner.trim().length > 0) readEveryWrittenCall(reasoning.inner, options, found);
    for (const reader of options.extraReaders ?? []) found.push(...reader(view));
    if (depth < MAX_WALK_DEPTH && (view.includes("{") || view.includes("["))) walkJsonCalls(view, options, found, depth, budget);
  }
}

/**
 * Reads the calls in untrusted texts: each piece alone, and the pieces joined in order with
 * nothing between them.
 *
 * @param pieces - the untrusted texts, in the order they entered the run
 * @param options - the agent's tool names and extra readers
 * @param joinedBefore - the end of the text read before these pieces (so a call split between an
 *   earlier piece and a new one is found); `""` for none
 * @returns the keys of every call found ({@link untrustedCallKeys})
 */
export function readUntrustedCalls(pieces: readonly string[], options: UntrustedCallReadOptions, joinedBefore = ""): Set<string> {
  const found: UntrustedCallCandidate[] = [];
  const budget = { values: MAX_WALKED_VALUES };
  const texts = pieces.filter((piece) => piece.length > 0);
  for (const piece of texts) readInto(piece, options, found, 0, budget);
  if (texts.length + (joinedBefore.length > 0 ? 1 : 0) > 1) {
    // With nothing between the pieces, and with a line break (a tool result's edges are trimmed).
    readInto(joinedBefore + texts.join(""), options, found, 0, budget);
    readInto(`${joinedBefore}\n${texts.join("\n")}`, options, found, 0, budget);
  }
  const keys = new Set<string>();
  for (const call of found) for (const key of untrustedCallKeys(call.name, call.args)) keys.add(key);
  return keys;
}

/** Whether a call (as written, or as repaired) repeats a call recorded from untrusted text. */
export function isUntrustedCall(calls: ReadonlyArray<UntrustedCallCandidate>, recorded: ReadonlySet<string>): boolean {
  if (recorded.size === 0) return false;
  return calls.some((call) => untrustedCallKeys(call.name, call.args).some((key) => recorded.has(key)));
}
