import { DEFAULT_REACT_LABELS, createOptionChecks, type OptionChecks, type OptionFail, type ReActLabel, type ReActLabelSet } from "@reins/core";
import type { ReinsEventListener, ReinsEventRecorder } from "@reins/core";
import type { ArtifactStore } from "./artifact-store";
import type { CleanedObservation } from "./clean-observation";
import { ObservationCleanerOptionsError } from "./errors";

/**
 * How the condensed structure is written for the model.
 * - `"text"`: `key: value` lines, nested fields indented, lists as `- ` items, uniform lists and
 *   parallel arrays as `a | b | c` tables.
 * - `"json"`: compact JSON of the condensed structure (numbers exactly as written in the source).
 */
export type ObservationStyle = "text" | "json";

/** Which tool produced a value, when known. */
export interface ObservationContext {
  /** The registered tool name. */
  readonly toolName?: string;
  /** The input the tool was called with. */
  readonly toolInput?: unknown;
  /** The top-level run the tool result belongs to; copied onto the `observation_cleaned` event. */
  readonly runId?: string;
}

/**
 * A per-tool template: turns the tool's decoded value into the observation text, e.g.
 * `(data) => \`Berlin now: ${data.current.temperature_2m} °C\``. `data` is the value after
 * decoding (JSON text parsed with `JSON.parse` semantics, bytes decoded, XML as nested objects),
 * before condensation. The template's text still goes through label neutralisation and the budget.
 * A template that throws or returns a non-string falls back to `style`, and the notes say so.
 */
export type ObservationTemplate = (data: unknown, context: ObservationContext) => string;

/** Options of {@link cleanObservation}; every field has a default. */
export interface CleanObservationOptions {
  /**
   * Upper bound on the observation length in UTF-16 code units (what `String#length` counts).
   * 6 000 characters ≈ 1 500 tokens of English: the headline, byline, date and the first eight
   * to ten paragraphs of a news article, or a whole condensed API response.
   * @default 6000
   */
  readonly maxChars: number;
  /**
   * Upper bound on the observation length in tokens, counted offline with `countTokens`.
   * `undefined` means only `maxChars` applies.
   * @default undefined
   */
  readonly maxTokens: number | undefined;
  /**
   * Token counter used for `tokens` in the result and for `maxTokens`. It only ever sees text
   * already cut to about `maxChars`.
   * @default undefined: an estimate, and gpt-tokenizer `cl100k_base` (bundled ranks, no network,
   *   loaded with the package) where an exact count is needed (`exactTokens`, near `maxTokens`)
   */
  readonly countTokens: ((text: string) => number) | undefined;
  /**
   * Count `tokens` in the result exactly (with `countTokens`, else gpt-tokenizer `cl100k_base`).
   * Off, the cleaner estimates (see `estimateTokens`), which is cheaper per call than an exact
   * count. A
   * `maxTokens` budget is always enforced exactly when the text comes near it; `countTokens`,
   * when given, is always used.
   * @default false
   */
  readonly exactTokens: boolean;
  /** @default "text" */
  readonly style: ObservationStyle;
  /** @default undefined (use `style`) */
  readonly template: ObservationTemplate | undefined;
  /**
   * Field paths always kept, even when they match a noise pattern. A pattern is matched against
   * the end of a field's dotted path (array positions are not part of the path): `"login"` keeps
   * every `login` field, `"user.login"` only those under `user`, `"$.id"` only the top-level `id`.
   * `*` matches within one path segment (`"*_url"`), `**` any number of segments.
   * @default []
   */
  readonly keep: readonly string[];
  /** Field paths always dropped (same syntax as `keep`; `keep` wins). @default [] */
  readonly drop: readonly string[];
  /**
   * Drop transport and metadata noise: HTTP headers, `_links`, `*_url` link templates, etags,
   * node ids, request/trace ids, pagination cursors, search metadata, image/thumbnail links,
   * tracking parameters inside URLs. Status, code, error and message fields are never dropped.
   * @default true
   */
  readonly dropNoise: boolean;
  /** Drop `null` fields other than status/code/error/message fields. @default true */
  readonly dropNulls: boolean;
  /**
   * Rewrite lines of the observation that the ReAct parser would read as control lines
   * (`Final Answer:`, `Action:`, `Action Input:`, `Observation:`, `Thought:`, `Question:` in any
   * form `matchReActLabel` accepts) so they no longer start with a label.
   * @default true
   */
  readonly neutralizeLabels: boolean;
  /** The label grammar to neutralise; pass the parser's set when it uses custom labels (`createReactAgent` does). @default DEFAULT_REACT_LABELS */
  readonly labels: ReActLabelSet;
  /**
   * The agent's tool names: paper-style calls of them (`delete_all[everything]`) in tool output
   * are neutralised. `createReactAgent` passes the agent's tools.
   * @default []
   */
  readonly toolNames: readonly string[];
  /** Nesting deeper than this many levels is replaced by a marker. @default 64 */
  readonly maxDepth: number;
}

/** The defaults of {@link CleanObservationOptions}. */
export const DEFAULT_CLEAN_OBSERVATION_OPTIONS: Readonly<CleanObservationOptions> = Object.freeze({
  maxChars: 6000,
  maxTokens: undefined,
  countTokens: undefined,
  exactTokens: false,
  style: "text",
  template: undefined,
  keep: Object.freeze([]) as readonly string[],
  drop: Object.freeze([]) as readonly string[],
  dropNoise: true,
  dropNulls: true,
  neutralizeLabels: true,
  labels: DEFAULT_REACT_LABELS,
  toolNames: Object.freeze([]) as readonly string[],
  maxDepth: 64,
});

/** What the audit hook receives for every value the cleaner sees. */
export interface RawObservationRecord extends ObservationContext {
  /** The tool's raw return value, untouched. */
  readonly rawValue: unknown;
  /** The cleaned observation made from it. */
  readonly observation: CleanedObservationSummary;
}

/** The cleaning result the audit hook gets alongside the raw value (the same shape `cleanObservation` returns). */
export type CleanedObservationSummary = CleanedObservation;

/** Options of {@link ObservationCleaner}: cleaning defaults, per-tool overrides and event sinks. */
export interface ObservationCleanerOptions extends Partial<CleanObservationOptions> {
  /** Per-tool overrides, merged over the cleaner's own options, keyed by registered tool name. @default {} */
  readonly tools?: Readonly<Record<string, Partial<CleanObservationOptions>>>;
  /** Receives an `observation_cleaned` event per cleaned value (e.g. `createAgentMetrics()`). @default undefined */
  readonly metrics?: ReinsEventRecorder;
  /** Listener for the same events. @default undefined */
  readonly onEvent?: ReinsEventListener;
  /**
   * Audit hook: receives the raw value next to its cleaned observation, so nothing is lost on
   * paths that cannot carry a LangChain artifact (the classic `AgentExecutor` calls tools without
   * a tool-call id). Called synchronously; what it throws goes to `onHookError`, never to the agent.
   * @default undefined
   */
  readonly onRawValue?: (record: RawObservationRecord) => void;
  /**
   * Keeps every result the cleaner cuts (`truncated`) in this store, and ends its observation
   * with the artifact's id and how to read it with `artifactToolName` (register
   * `createReadArtifactTool(store)` with the agent). The note's length is taken from `maxChars`.
   * @default undefined (nothing stored; the raw value still travels as the ToolMessage artifact
   *   on tool-call paths, and reaches `onRawValue`)
   */
  readonly artifacts?: ArtifactStore;
  /** The name of the app's read tool, as the observation names it. @default "read_artifact" */
  readonly artifactToolName?: string;
  /** Receives errors thrown by `metrics`, `onEvent` or `onRawValue`. @default undefined (ignored) */
  readonly onHookError?: (error: unknown) => void;
}

const STYLES: readonly ObservationStyle[] = ["text", "json"];

const check: OptionChecks = createOptionChecks((field, value, reason) => {
  throw new ObservationCleanerOptionsError({ field, value, reason });
});
const fail: OptionFail = check.fail;
const checkBoolean = check.boolean;

function checkPatterns(field: string, value: unknown): readonly string[] {
  if (!Array.isArray(value)) fail(field, value, "expected an array of field path patterns");
  for (const [index, item] of value.entries()) {
    if (typeof item !== "string" || item.trim().length === 0) {
      fail(`${field}[${index}]`, item, "expected a non-empty string such as \"user.login\" or \"*_url\"");
    }
  }
  return Object.freeze([...(value as string[])]);
}

function checkLabels(field: string, value: unknown): ReActLabelSet {
  if (typeof value !== "object" || value === null) fail(field, value, "expected a ReActLabelSet (see createReActLabelSet)");
  for (const label of Object.keys(DEFAULT_REACT_LABELS) as ReActLabel[]) {
    const words = (value as Record<string, unknown>)[label];
    if (!Array.isArray(words) || words.some((word) => typeof word !== "string")) {
      fail(`${field}.${label}`, words, "expected an array of label words");
    }
  }
  return value as ReActLabelSet;
}

function checkToolNames(field: string, value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.some((name) => typeof name !== "string")) fail(field, value, "expected an array of tool names");
  return Object.isFrozen(value) ? (value as readonly string[]) : Object.freeze([...(value as string[])]);
}

/**
 * Merges partial options over a base and validates every field, failing fast on the first bad one.
 *
 * @param options - partial options; `undefined` fields keep the base value
 * @param base - the options to merge over
 * @default base DEFAULT_CLEAN_OBSERVATION_OPTIONS
 * @param fieldPrefix - prefix for the field name in errors (e.g. `tools.search.`)
 * @returns frozen, complete options
 * @throws {ObservationCleanerOptionsError} when a field has the wrong type or is out of range
 */
export function resolveCleanObservationOptions(
  options: Partial<CleanObservationOptions> | undefined,
  base: Readonly<CleanObservationOptions> = DEFAULT_CLEAN_OBSERVATION_OPTIONS,
  fieldPrefix = "",
): Readonly<CleanObservationOptions> {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    fail(fieldPrefix.replace(/\.$/, "") || "options", options, "expected an options object");
  }
  const given = options ?? {};
  const pick = <K extends keyof CleanObservationOptions>(key: K): CleanObservationOptions[K] =>
    given[key] === undefined ? base[key] : (given[key] as CleanObservationOptions[K]);
  const field = (name: string): string => `${fieldPrefix}${name}`;

  const maxChars = pick("maxChars");
  if (typeof maxChars !== "number" || !Number.isInteger(maxChars) || maxChars < 200 || maxChars > 10_000_000) {
    fail(field("maxChars"), maxChars, "expected an integer between 200 and 10000000");
  }
  const maxTokens = pick("maxTokens");
  if (maxTokens !== undefined && (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 50)) {
    fail(field("maxTokens"), maxTokens, "expected an integer of at least 50, or undefined");
  }
  const countTokens = pick("countTokens");
  if (countTokens !== undefined && typeof countTokens !== "function") {
    fail(field("countTokens"), countTokens, "expected a function (text) => number, or undefined");
  }
  const style = pick("style");
  if (!STYLES.includes(style)) fail(field("style"), style, `expected one of ${STYLES.map((item) => `"${item}"`).join(", ")}`);
  const template = pick("template");
  if (template !== undefined && typeof template !== "function") {
    fail(field("template"), template, "expected a function (data, context) => string, or undefined");
  }
  const maxDepth = pick("maxDepth");
  if (typeof maxDepth !== "number" || !Number.isInteger(maxDepth) || maxDepth < 2 || maxDepth > 1000) {
    fail(field("maxDepth"), maxDepth, "expected an integer between 2 and 1000");
  }
  return Object.freeze({
    maxChars,
    maxTokens,
    countTokens,
    exactTokens: checkBoolean(field("exactTokens"), pick("exactTokens")),
    style,
    template,
    keep: checkPatterns(field("keep"), pick("keep")),
    drop: checkPatterns(field("drop"), pick("drop")),
    dropNoise: checkBoolean(field("dropNoise"), pick("dropNoise")),
    dropNulls: checkBoolean(field("dropNulls"), pick("dropNulls")),
    neutralizeLabels: checkBoolean(field("neutralizeLabels"), pick("neutralizeLabels")),
    labels: checkLabels(field("labels"), pick("labels")),
    toolNames: checkToolNames(field("toolNames"), pick("toolNames")),
    maxDepth,
  });
}
