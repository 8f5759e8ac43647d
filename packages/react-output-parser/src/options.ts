import {
  createReActLabelSet,
  DEFAULT_REACT_LABELS,
  type ReActLabel,
  type ReActLabelSet,
  type ReinsEventListener,
  type ReinsEventRecorder,
} from "@reins/core";
import { InvalidParserOptionsError } from "./errors";
import { DEFAULT_MESSAGE_LABELS, type MessageLabels } from "./messages";
import type { ConflictPolicy, ReaderConfig } from "./react-step";
import { describeToolInput, type ParserTool, type ToolInputSpec } from "./tool-schema";

/** What a final-answer predicate is told besides the answer. */
export interface FinalAnswerCheckContext {
  /** The reasoning written before the answer (`Thought:` text and unlabelled lines), trimmed. */
  readonly thought: string;
  /** Observations so far in this run, when the caller passed them (see `parseWithContext`). */
  readonly observationCount?: number;
}

/** A pattern a reply must contain. */
export interface RequiredPattern {
  /** Tested with `RegExp.prototype.test`. It runs on model text: keep it free of nested quantifiers. */
  readonly pattern: RegExp;
  /** Told to the model when the pattern is missing, e.g. "a citation like [1]". */
  readonly description: string;
  /**
   * Which text must contain it: the whole reply, the Thought, or the Final Answer (a reply that is an
   * action passes a `"final_answer"` pattern).
   * @default "reply"
   */
  readonly appliesTo?: "reply" | "thought" | "final_answer";
}

/** Optional checks on replies the parser could read. All are off by default. */
export interface ParserValidators {
  /**
   * Shortest accepted Thought, in characters (trimmed); a reply without a Thought fails when > 0.
   * @default undefined (no bound)
   */
  readonly minThoughtChars?: number;
  /**
   * Longest accepted Thought, in characters (trimmed).
   * @default undefined (no bound)
   */
  readonly maxThoughtChars?: number;
  /**
   * Phrases (case-insensitive, whole words) not allowed in the Thought or the Final Answer, e.g.
   * hedging words such as "I think", "probably".
   * @default []
   */
  readonly bannedPhrases?: readonly string[];
  /**
   * Patterns a reply must contain.
   * @default []
   */
  readonly requiredPatterns?: readonly RequiredPattern[];
  /**
   * Reject a Final Answer when no Observation has been seen in the run yet. Needs the observation
   * count: call `parseWithContext(text, { observationCount })`; plain `parse(text)` cannot know it
   * and skips this check.
   * @default false
   */
  readonly requireObservationBeforeFinalAnswer?: boolean;
  /**
   * Decides whether a Final Answer is acceptable: `true` accepts; `false` or a string (the reason,
   * told to the model) rejects.
   * @default undefined (every answer accepted)
   */
  readonly finalAnswerPredicate?: (output: string, context: FinalAnswerCheckContext) => boolean | string;
}

/** Options of {@link HardenedReActOutputParser}. */
export interface HardenedReActOutputParserOptions {
  /**
   * The agent's LangChain tools: names and input schemas (zod v3, zod v4 or JSON schema). A tool's
   * schema decides whether `toolInput` is a string (string tools) or an object (object schemas), and
   * object inputs are checked against it.
   * @default []
   */
  readonly tools?: readonly ParserTool[];
  /**
   * Names of string-input tools, for callers without tool objects (merged with `tools`). With neither,
   * every tool name is unknown.
   * @default []
   */
  readonly toolNames?: readonly string[];
  /**
   * Extra label words, e.g. `{ thought: ["THOUGHT"], action: ["行动"], final_answer: ["最终答案"] }`.
   * Words are matched case-insensitively; `_`, `-` and spaces are alike.
   * @default {} (LangChain's labels plus `Answer:` and `AI:` for the final answer)
   */
  readonly labels?: Partial<Record<ReActLabel, readonly string[]>>;
  /**
   * Replace the default words of the labels named in `labels` instead of adding to them. The first
   * word of each replaced label is then used in corrective messages.
   * @default false
   */
  readonly replaceLabels?: boolean;
  /**
   * A reply with both an action and a final answer: `"first"` takes an action written before the
   * answer (the answer cannot rest on an observation that does not exist yet) and rejects an answer
   * followed by an action; `"action"` always takes the action; `"final"` always the answer;
   * `"error"` rejects both orders.
   * @default "first"
   */
  readonly onConflict?: ConflictPolicy;
  /**
   * Fuzzy tool-name matching after exact and normalised matching: `true` allows an edit distance of
   * 2, a number sets the distance. Accepted only when exactly one tool is closest.
   * @default false
   */
  readonly fuzzyToolNames?: boolean | number;
  /**
   * Accept a reply with no ReAct label at all as the final answer when it reads as a reply to the
   * user (not a plan, names no tool, not cut off mid-sentence).
   * @default true
   */
  readonly acceptUnlabelledReply?: boolean;
  /**
   * Longest JSON text (in characters) handed to the JSON repair library; longer inputs must be strict
   * JSON. Keeps parsing fast on huge inputs.
   * @default 8000
   */
  readonly maxRepairChars?: number;
  /**
   * Optional checks on replies (all off by default).
   * @default {}
   */
  readonly validators?: ParserValidators;
  /** Receives `parser_repair` and `parser_error` events (e.g. `createAgentMetrics()` from `@reins/metrics`). */
  readonly metrics?: ReinsEventRecorder;
  /** Called with every `parser_repair` and `parser_error` event. */
  readonly onEvent?: ReinsEventListener;
}

/** The documented defaults of {@link HardenedReActOutputParserOptions}. */
export const DEFAULT_HARDENED_REACT_OUTPUT_PARSER_OPTIONS = Object.freeze({
  tools: Object.freeze([]) as readonly ParserTool[],
  toolNames: Object.freeze([]) as readonly string[],
  labels: Object.freeze({}) as Partial<Record<ReActLabel, readonly string[]>>,
  replaceLabels: false,
  onConflict: "first" as ConflictPolicy,
  fuzzyToolNames: false as boolean | number,
  acceptUnlabelledReply: true,
  maxRepairChars: 8_000,
  validators: Object.freeze({}) as ParserValidators,
});

/** Options after defaults are applied and checked. */
export interface ResolvedHardenedReActOutputParserOptions {
  readonly reader: ReaderConfig;
  readonly validators: ParserValidators;
  readonly metrics?: ReinsEventRecorder;
  readonly onEvent?: ReinsEventListener;
}

/**
 * Label words the parser accepts beyond `@reins/core`'s grammar: LlamaIndex renders its final step
 * as `Response:`. Kept here (not in core) so the observation cleaner does not neutralise every
 * "Response:" line of a tool's output.
 */
export const PARSER_EXTRA_LABEL_WORDS: Readonly<Partial<Record<ReActLabel, readonly string[]>>> = Object.freeze({
  final_answer: Object.freeze(["response", "final response"]),
});

const defaultParserLabels = createReActLabelSet(PARSER_EXTRA_LABEL_WORDS);

function labelSetFor(custom: Partial<Record<ReActLabel, readonly string[]>>, replace: boolean): ReActLabelSet {
  if (Object.keys(custom).length === 0) return defaultParserLabels;
  // Labels named in `custom` are replaced (when asked); the others keep core's words plus ours.
  const merged: Partial<Record<ReActLabel, readonly string[]>> = {};
  for (const label of Object.keys(DEFAULT_REACT_LABELS) as ReActLabel[]) {
    const words = custom[label];
    merged[label] = replace && words !== undefined ? words : [...DEFAULT_REACT_LABELS[label], ...(PARSER_EXTRA_LABEL_WORDS[label] ?? []), ...(words ?? [])];
  }
  return createReActLabelSet(merged, true);
}

const CONFLICT_POLICIES: readonly ConflictPolicy[] = ["first", "action", "final", "error"];
const FUZZY_DEFAULT_DISTANCE = 2;

function check(condition: boolean, field: string, message: string): void {
  if (!condition) throw new InvalidParserOptionsError({ field, message: `Invalid parser option '${field}': ${message}` });
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function displayWord(word: string): string {
  return word.trim();
}

function messageLabelsFor(custom: Partial<Record<ReActLabel, readonly string[]>>, replace: boolean): MessageLabels {
  if (!replace) return DEFAULT_MESSAGE_LABELS;
  const pick = (label: ReActLabel, fallback: string): string => {
    const words = custom[label];
    return words !== undefined && words.length > 0 ? displayWord(words[0]) : fallback;
  };
  return Object.freeze({
    thought: pick("thought", DEFAULT_MESSAGE_LABELS.thought),
    action: pick("action", DEFAULT_MESSAGE_LABELS.action),
    actionInput: pick("action_input", DEFAULT_MESSAGE_LABELS.actionInput),
    observation: pick("observation", DEFAULT_MESSAGE_LABELS.observation),
    finalAnswer: pick("final_answer", DEFAULT_MESSAGE_LABELS.finalAnswer),
  });
}

function resolveValidators(validators: ParserValidators): ParserValidators {
  const { minThoughtChars, maxThoughtChars, bannedPhrases, requiredPatterns, requireObservationBeforeFinalAnswer, finalAnswerPredicate } = validators;
  check(minThoughtChars === undefined || isNonNegativeInteger(minThoughtChars), "validators.minThoughtChars", "expected a non-negative integer");
  check(maxThoughtChars === undefined || (isNonNegativeInteger(maxThoughtChars) && maxThoughtChars > 0), "validators.maxThoughtChars", "expected a positive integer");
  check(minThoughtChars === undefined || maxThoughtChars === undefined || minThoughtChars <= maxThoughtChars, "validators.minThoughtChars", "must not exceed validators.maxThoughtChars");
  check(bannedPhrases === undefined || (Array.isArray(bannedPhrases) && bannedPhrases.every((phrase) => typeof phrase === "string" && phrase.trim().length > 0)), "validators.bannedPhrases", "expected an array of non-empty strings");
  check(
    requiredPatterns === undefined ||
      (Array.isArray(requiredPatterns) &&
        requiredPatterns.every((entry) => entry !== null && typeof entry === "object" && entry.pattern instanceof RegExp && typeof entry.description === "string" && (entry.appliesTo === undefined || ["reply", "thought", "final_answer"].includes(entry.appliesTo)))),
    "validators.requiredPatterns",
    "expected an array of { pattern: RegExp, description: string, appliesTo?: 'reply' | 'thought' | 'final_answer' }",
  );
  check(requireObservationBeforeFinalAnswer === undefined || typeof requireObservationBeforeFinalAnswer === "boolean", "validators.requireObservationBeforeFinalAnswer", "expected a boolean");
  check(finalAnswerPredicate === undefined || typeof finalAnswerPredicate === "function", "validators.finalAnswerPredicate", "expected a function");
  return Object.freeze({ ...validators });
}

/**
 * Merges options over {@link DEFAULT_HARDENED_REACT_OUTPUT_PARSER_OPTIONS} and checks them.
 *
 * @param options - the caller's options
 * @returns the resolved options
 * @throws {InvalidParserOptionsError} naming the first invalid field
 */
export function resolveHardenedReActOutputParserOptions(options: HardenedReActOutputParserOptions = {}): ResolvedHardenedReActOutputParserOptions {
  check(options !== null && typeof options === "object", "options", "expected an object");
  const defaults = DEFAULT_HARDENED_REACT_OUTPUT_PARSER_OPTIONS;
  const tools = options.tools ?? defaults.tools;
  const toolNames = options.toolNames ?? defaults.toolNames;
  check(Array.isArray(tools), "tools", "expected an array of LangChain tools");
  check(Array.isArray(toolNames), "toolNames", "expected an array of tool names");
  const specs = new Map<string, ToolInputSpec>();
  tools.forEach((tool, index) => {
    check(tool !== null && typeof tool === "object" && typeof tool.name === "string" && tool.name.trim().length > 0, `tools[${index}]`, "expected a tool with a non-empty name");
    check(!specs.has(tool.name), `tools[${index}]`, `duplicate tool name '${tool.name}'`);
    specs.set(tool.name, describeToolInput(tool));
  });
  toolNames.forEach((name, index) => {
    check(typeof name === "string" && name.trim().length > 0, `toolNames[${index}]`, "expected a non-empty string");
    if (!specs.has(name)) specs.set(name, describeToolInput({ name }));
  });
  const onConflict = options.onConflict ?? defaults.onConflict;
  check(CONFLICT_POLICIES.includes(onConflict), "onConflict", `expected one of ${CONFLICT_POLICIES.join(", ")}`);
  const fuzzy = options.fuzzyToolNames ?? defaults.fuzzyToolNames;
  check(typeof fuzzy === "boolean" || (isNonNegativeInteger(fuzzy) && fuzzy <= 10), "fuzzyToolNames", "expected a boolean or an edit distance from 0 to 10");
  const acceptUnlabelledReply = options.acceptUnlabelledReply ?? defaults.acceptUnlabelledReply;
  check(typeof acceptUnlabelledReply === "boolean", "acceptUnlabelledReply", "expected a boolean");
  const maxRepairChars = options.maxRepairChars ?? defaults.maxRepairChars;
  check(isNonNegativeInteger(maxRepairChars), "maxRepairChars", "expected a non-negative integer");
  const replaceLabels = options.replaceLabels ?? defaults.replaceLabels;
  check(typeof replaceLabels === "boolean", "replaceLabels", "expected a boolean");
  const customLabels = options.labels ?? defaults.labels;
  check(customLabels !== null && typeof customLabels === "object", "labels", "expected an object of label words");
  for (const [label, words] of Object.entries(customLabels)) {
    check(label in DEFAULT_REACT_LABELS, `labels.${label}`, `unknown label; expected one of ${Object.keys(DEFAULT_REACT_LABELS).join(", ")}`);
    check(Array.isArray(words) && words.every((word) => typeof word === "string" && word.trim().length > 0), `labels.${label}`, "expected an array of non-empty strings");
  }
  const labels = labelSetFor(customLabels, replaceLabels);
  check(options.metrics === undefined || (typeof options.metrics === "object" && typeof options.metrics.record === "function"), "metrics", "expected an object with a record(event) method");
  check(options.onEvent === undefined || typeof options.onEvent === "function", "onEvent", "expected a function");
  const validators = resolveValidators(options.validators ?? defaults.validators);
  const reader: ReaderConfig = Object.freeze({
    labels,
    messageLabels: messageLabelsFor(customLabels, replaceLabels),
    tools: specs,
    toolNames: Object.freeze([...specs.keys()]),
    onConflict,
    fuzzyMaxDistance: fuzzy === true ? FUZZY_DEFAULT_DISTANCE : fuzzy === false ? 0 : fuzzy,
    acceptUnlabelledReply,
    maxRepairChars,
    canonicalLabels: !(replaceLabels && Object.keys(customLabels).length > 0),
  });
  return Object.freeze({ reader, validators, metrics: options.metrics, onEvent: options.onEvent });
}
