import { neutralizeUntrustedText } from "./neutralize-untrusted-text";
import type { AgentFinish } from "@langchain/core/agents";
import type { StopReason } from "./events";
import { callFailedIn, runCallOf, type LoopStopDecision, type RunContext } from "./run-context";
import { actionKey, fingerprintObservation, stableStringify } from "./fingerprint";

/**
 * Builds the graceful `AgentFinish` a ReAct agent returns when loop control has decided to stop a
 * run (`RunContext.loop.stop`, `mode: "finish"`): no extra model call, an answer made of what the
 * run found so far, then an escape-hatch line. Lives in core so an agent can use it without
 * importing `@reins/loop-control`.
 */

/**
 * Line prefixes of the notes loop control asks the wrapped tools to append to an observation
 * (`RunContext.loop.pendingNotes`). One definition so the notes can be recognised and removed.
 */
export const LOOP_NOTE_PREFIXES: readonly string[] = Object.freeze(["[Loop notice]", "[Budget notice]"]);

/**
 * Removes loop-control notes (lines starting with one of {@link LOOP_NOTE_PREFIXES}) from an
 * observation, leaving the tool's own result.
 *
 * @param observation - an observation as the model saw it
 * @returns the observation without note lines, trimmed at the end
 */
export function stripLoopNotes(observation: string): string {
  if (!LOOP_NOTE_PREFIXES.some((prefix) => observation.includes(prefix))) return observation;
  return observation
    .split("\n")
    .filter((line) => !LOOP_NOTE_PREFIXES.some((prefix) => line.trimStart().startsWith(prefix)))
    .join("\n")
    .trimEnd();
}

/**
 * The fallback for steps whose outcome the caller does not know (a plain `AgentExecutor`, an
 * agent of your own): Reins' agents pass each step's typed outcome ({@link LoopFinishStep.failed},
 * from the ToolExecutor's `tool_call` events) on every path, which wins over this list.
 *
 * Observations that report a failure or a refusal instead of a result, recognised by how they
 * start (after loop notes are removed and leading whitespace trimmed). A conservative list, kept
 * here in one place; it covers the wording of:
 * - `@reins/tool-executor`'s model messages (`packages/tool-executor/src/messages.ts`): timeout,
 *   temporary / permanent / HTTP client error, open circuit, busy bulkhead, call limit, invalid or
 *   non-JSON input, failed result check, dry run, duplicate call, no data, unreadable result,
 *   failed fallback, cancelled, not approved, stopped by the run's time budget. Not the refusal sent while the run is stopping ("was not called:
 *   this task is being stopped"): Reins' agent drops those steps itself, recognised from the
 *   ToolExecutor's typed events rather than their wording, so a tool result worded like it stays
 *   a finding;
 * - LangChain `AgentExecutor`'s unknown-tool observation (`"<tool> is not a valid tool, try …"`).
 *
 * A step's {@link LoopFinishStep.failed} flag, when set, wins over this list. A
 * pattern may name a `fact` group: the user-facing summary is then that group plus a full stop;
 * otherwise it is the observation's first sentence (the fact; the sentences after it are advice
 * for the model and never reach the answer).
 */
export const LOOP_FINISH_FAILURE_PATTERNS: readonly RegExp[] = Object.freeze([
  /^Tool "[^"\n]*" did not answer within /,
  /^Tool "[^"\n]*" failed(?: with a temporary error|:| and its backup )/,
  /^Tool "[^"\n]*" rejected the request /,
  /^Tool "[^"\n]*" is unavailable right now/,
  /^Tool "[^"\n]*" is busy \(/,
  /^Tool "[^"\n]*" was already called \d+ times in this task/,
  /^Tool "[^"\n]*" was already run with this input/,
  /^Tool "[^"\n]*" answered, but the result reports a failure/,
  /^Tool "[^"\n]*" returned no data\./,
  /^Tool "[^"\n]*" returned a value that could not be turned into text/,
  /^Tool "[^"\n]*" was cancelled before it finished/,
  /^Tool "[^"\n]*" was not run: this action was not approved/,
  /^Tool "[^"\n]*" was stopped: the time allowed for this task has run out/,
  /^Invalid input for tool "[^"\n]*"/,
  /^DRY RUN: tool "[^"\n]*" has side effects and was NOT executed/,
  /^(?<fact>[^\s,]+ is not a valid tool), try /,
]);

/** The end of an observation's first sentence: a full stop before a capitalised word or the end. */
const SENTENCE_END = /[.!?](?=\s+["(\[]?[A-Z]|\s*$)/;

/**
 * The user-facing summary of a failure observation: the `fact` group of the matching
 * {@link LOOP_FINISH_FAILURE_PATTERNS} entry, else the first sentence (also for a step flagged
 * {@link LoopFinishStep.failed} whose wording no pattern knows).
 */
function failureFact(text: string, match: RegExpExecArray | undefined): string {
  const fact = match?.groups?.fact;
  if (fact !== undefined) return `${fact}.`;
  const end = SENTENCE_END.exec(text);
  return end === null ? text : text.slice(0, end.index + 1);
}

function matchFailure(text: string): RegExpExecArray | undefined {
  for (const pattern of LOOP_FINISH_FAILURE_PATTERNS) {
    const match = pattern.exec(text);
    if (match !== null) return match;
  }
  return undefined;
}

/** A completed step, structurally LangChain's `AgentStep`. */
export interface LoopFinishStep {
  readonly action: { readonly tool: string; readonly toolInput: unknown };
  readonly observation: unknown;
  /**
   * Whether the call failed or was refused, when the caller knows it (e.g. from the ToolExecutor's
   * `tool_call` event outcome): `true` lists the observation under "What did not work" whatever
   * its wording, `false` lists it as a finding whatever its wording. When absent, failures are
   * recognised by {@link LOOP_FINISH_FAILURE_PATTERNS}.
   */
  readonly failed?: boolean;
}

/** Options of {@link buildLoopStopFinish}. */
export interface LoopFinishOptions {
  /**
   * The last line of the answer: how the user can get further help. An empty string leaves it out.
   * @default "If this does not answer your question, reply \"human\" to reach a person."
   */
  escapeHatch?: string;
  /**
   * Most recent distinct findings listed.
   * @default 5
   */
  maxFindings?: number;
  /**
   * Longest observation quoted per finding, in characters.
   * @default 300
   */
  maxObservationChars?: number;
  /**
   * The key of the answer in `returnValues` (the agent's `returnValues[0]`).
   * @default "output"
   */
  outputKey?: string;
  /**
   * Tools whose steps are not findings (AgentExecutor's parse-error pseudo-tool).
   * @default ["_Exception"]
   */
  ignoreTools?: readonly string[];
}

/** Defaults of {@link LoopFinishOptions}. */
export const DEFAULT_LOOP_FINISH_OPTIONS = Object.freeze({
  escapeHatch: 'If this does not answer your question, reply "human" to reach a person.',
  maxFindings: 5,
  maxObservationChars: 300,
  outputKey: "output",
  ignoreTools: Object.freeze(["_Exception"]) as readonly string[],
});

type LoopFinishField = keyof LoopFinishOptions;

/** Why `value` is not a valid `field` of {@link LoopFinishOptions}, or `undefined` when it is. */
function loopFinishProblem(field: LoopFinishField, value: unknown): string | undefined {
  switch (field) {
    case "escapeHatch":
      return typeof value === "string" ? undefined : "expected a string (empty leaves the line out)";
    case "outputKey":
      return typeof value === "string" && value.length > 0 ? undefined : "expected a non-empty string";
    case "maxFindings":
      return typeof value === "number" && Number.isInteger(value) && value >= 0 ? undefined : "expected an integer ≥ 0";
    case "maxObservationChars":
      return typeof value === "number" && Number.isInteger(value) && value >= 1 ? undefined : "expected an integer ≥ 1";
    case "ignoreTools":
      return Array.isArray(value) && value.every((tool) => typeof tool === "string") ? undefined : "expected an array of tool names";
  }
}

const LOOP_FINISH_FIELDS: readonly LoopFinishField[] = ["escapeHatch", "maxFindings", "maxObservationChars", "outputKey", "ignoreTools"];

/**
 * Why `value` is not valid for the {@link LoopFinishOptions} field `field`, as a sentence fragment
 * ("expected an integer ≥ 0"), or `undefined` when it is valid, so a caller can name its own
 * option path without parsing {@link resolveLoopFinishOptions}'s message.
 *
 * @param field - a field name; an unknown name is reported as such
 */
export function loopFinishOptionProblem(field: string, value: unknown): string | undefined {
  if (!(LOOP_FINISH_FIELDS as readonly string[]).includes(field)) return `is not an option (options: ${LOOP_FINISH_FIELDS.join(", ")})`;
  return value === undefined ? undefined : loopFinishProblem(field as LoopFinishField, value);
}

/**
 * Merges `options` over {@link DEFAULT_LOOP_FINISH_OPTIONS} and validates every field, so an agent
 * can fail fast at construction instead of degrading its graceful answer at stop time.
 *
 * @param options - see {@link LoopFinishOptions}
 * @returns every option set
 * @throws {TypeError} `Invalid loop finish option "<field>": …` for the first invalid field
 */
export function resolveLoopFinishOptions(options: LoopFinishOptions = {}): Readonly<Required<LoopFinishOptions>> {
  if (typeof options !== "object" || options === null) throw new TypeError("Invalid loop finish options: expected an object.");
  const resolved: Record<string, unknown> = { ...DEFAULT_LOOP_FINISH_OPTIONS };
  for (const field of LOOP_FINISH_FIELDS) {
    const value = options[field];
    if (value === undefined) continue;
    const problem = loopFinishProblem(field, value);
    if (problem !== undefined) throw new TypeError(`Invalid loop finish option "${field}": ${problem}.`);
    resolved[field] = value;
  }
  return Object.freeze(resolved) as Readonly<Required<LoopFinishOptions>>;
}

/** A field's value when valid, else its default: a stop must still end with a graceful answer. */
function lenient<F extends LoopFinishField>(options: LoopFinishOptions, field: F): NonNullable<LoopFinishOptions[F]> {
  const value = options[field];
  return (value !== undefined && loopFinishProblem(field, value) === undefined ? value : DEFAULT_LOOP_FINISH_OPTIONS[field]) as NonNullable<
    LoopFinishOptions[F]
  >;
}

/** The user-facing first sentence for each stop reason. */
export const LOOP_FINISH_INTROS: Readonly<Record<StopReason, string>> = Object.freeze({
  final_answer: "Here is what I found.",
  max_steps: "I reached the maximum number of steps before I could finish.",
  time_budget: "I ran out of time before I could finish.",
  token_budget: "I reached my usage budget before I could finish.",
  cost_budget: "I reached my cost budget before I could finish.",
  repeat: "I stopped because I kept repeating the same step without getting new information.",
  cycle: "I stopped because I was going in circles between the same steps.",
  stall: "I stopped because I was not making progress.",
  error: "I had to stop because of an error.",
  state_tampered: "I stopped because this conversation's saved state was changed outside the agent, so it could not be resumed safely.",
});

/** The `AgentFinish` built by {@link buildLoopStopFinish}. */
export interface LoopStopFinish extends AgentFinish {
  readonly returnValues: { output: string; stopReason: StopReason } & Record<string, unknown>;
}

function oneLine(value: unknown, maxChars: number): string {
  const text = (typeof value === "string" ? value : stableStringify(value)).replace(/\s+/g, " ").trim();
  return text.length <= maxChars ? text : `${text.slice(0, Math.max(0, maxChars - 1))}…`;
}

/** Most calls named in one entry of the answer; the rest are counted ("and 3 more calls"). */
const MAX_NAMED_CALLS = 5;

/** Longest tool input quoted per call, in characters. */
const MAX_INPUT_CHARS = 120;

interface CallResult {
  readonly tool: string;
  readonly input: string;
  readonly summary: string;
  readonly failed: boolean;
  readonly position: number;
}

/** The user-facing result of one step, or `undefined` when it has nothing to show. */
function callResult(step: LoopFinishStep, position: number, maxObservationChars: number): CallResult | undefined {
  const raw = typeof step.observation === "string" ? stripLoopNotes(step.observation).trim() : step.observation;
  const text = typeof raw === "string" ? raw : oneLine(raw ?? "", Number.MAX_SAFE_INTEGER);
  const match = step.failed === false ? undefined : matchFailure(text);
  const failed = step.failed ?? match !== undefined;
  // The finding quotes tool output: neutralised, so it reads as a quote wherever it is shown.
  const summary = oneLine(neutralizeUntrustedText(failed ? failureFact(text, match) : text).text, maxObservationChars);
  if (summary.length === 0) return undefined;
  return { tool: step.action.tool, input: oneLine(step.action.toolInput ?? "", MAX_INPUT_CHARS), summary, failed, position };
}

/** `search(a, b), lookup(c)`: the calls of a group by tool, first seen first, bounded. */
function callsLabel(members: readonly CallResult[]): string {
  const inputsByTool = new Map<string, string[]>();
  for (const member of members.slice(0, MAX_NAMED_CALLS)) {
    const inputs = inputsByTool.get(member.tool);
    if (inputs === undefined) inputsByTool.set(member.tool, [member.input]);
    else inputs.push(member.input);
  }
  const label = [...inputsByTool].map(([tool, inputs]) => `${tool}(${inputs.join(", ")})`).join(", ");
  const more = members.length - MAX_NAMED_CALLS;
  return more > 0 ? `${label} and ${more} more call${more === 1 ? "" : "s"}` : label;
}

/**
 * Builds the `AgentFinish` for a stopped run. It never throws for bad options: an invalid field
 * falls back to its default (validate early with {@link resolveLoopFinishOptions}).
 *
 * `returnValues` carries the answer under `outputKey` (and under `output`) plus `stopReason`, so
 * AgentExecutor's result has `{ output, stopReason }`. `log` holds the operator-facing decision
 * message. The answer is for the end user:
 * - one result per distinct call (tool and normalised input): its latest success, else its latest
 *   failure; loop notes removed ({@link stripLoopNotes}); empty observations and `ignoreTools`
 *   steps skipped;
 * - calls whose results are identical (same {@link fingerprintObservation} of the summary) are one
 *   entry naming the calls, e.g. `- search(a, b), lookup(c): No results.` (at most 5 calls named);
 * - failures and refusals ({@link LoopFinishStep.failed} or {@link LOOP_FINISH_FAILURE_PATTERNS})
 *   are listed under "What did not work:" by their first sentence only, so advice written for the
 *   model ("use another tool or answer with what you already know") is left out;
 * - at most `maxFindings` entries in all (the most recent), oldest first, each observation cut to
 *   `maxObservationChars`.
 *
 * @param decision - the run's `RunContext.loop.stop`
 * @param steps - the steps the executor passed to the agent's `plan` (AgentStep[])
 * @param options - see {@link LoopFinishOptions}
 * @param run - the run's context: a step whose `failed` is not set takes its call's typed outcome
 *   from the run's call records ({@link RunContext.calls}, written by the ToolExecutor); only a
 *   step with neither falls back to {@link LOOP_FINISH_FAILURE_PATTERNS}
 * @returns an `AgentFinish` whose `returnValues` are `{ output, stopReason }`
 * @example
 * ```ts
 * const context = runContext.contextOf(runId);
 * const decision = context?.loop.stop;
 * if (decision !== undefined) return buildLoopStopFinish(decision, steps, { escapeHatch: "Type 'human' to reach a person." }, context);
 * ```
 */
export function buildLoopStopFinish(
  decision: LoopStopDecision,
  steps: readonly LoopFinishStep[],
  options: LoopFinishOptions = {},
  run?: Pick<RunContext, "calls">,
): LoopStopFinish {
  const safeOptions = typeof options === "object" && options !== null ? options : {};
  const escapeHatch = lenient(safeOptions, "escapeHatch");
  const maxFindings = lenient(safeOptions, "maxFindings");
  const maxObservationChars = lenient(safeOptions, "maxObservationChars");
  const outputKey = lenient(safeOptions, "outputKey");
  const ignoreTools = new Set(lenient(safeOptions, "ignoreTools"));

  // One result per call (tool and input): the latest success, else the latest failure.
  const byCall = new Map<string, CallResult>();
  steps.forEach((step, position) => {
    if (ignoreTools.has(step.action.tool)) return;
    // The action that reached a wrapped tool after the stop was refused for it: not a finding.
    if (runCallOf(run, step)?.stoppedRun === true) return;
    const recorded = step.failed === undefined ? callFailedIn(run, step) : undefined;
    const result = callResult(recorded === undefined ? step : { ...step, failed: recorded }, position, maxObservationChars);
    if (result === undefined) return;
    const key = actionKey(step.action.tool, step.action.toolInput);
    const previous = byCall.get(key);
    if (previous === undefined || !result.failed || previous.failed) byCall.set(key, result);
  });

  // Identical summaries grouped into one entry naming every call that gave it.
  const groups = new Map<string, CallResult[]>();
  for (const result of [...byCall.values()].sort((a, b) => a.position - b.position)) {
    const key = `${result.failed ? "failed" : "found"}:${fingerprintObservation(result.summary)}`;
    const members = groups.get(key);
    if (members === undefined) groups.set(key, [result]);
    else members.push(result);
  }
  const latest = (members: readonly CallResult[]): number => members[members.length - 1].position;
  const entries = [...groups.values()]
    .sort((a, b) => latest(a) - latest(b))
    .slice(Math.max(0, groups.size - maxFindings))
    .map((members) => ({ failed: members[0].failed, line: `- ${callsLabel(members)}: ${members[0].summary}` }));
  const found = entries.filter((entry) => !entry.failed).map((entry) => entry.line);
  const failed = entries.filter((entry) => entry.failed).map((entry) => entry.line);

  const lines = [LOOP_FINISH_INTROS[decision.reason] ?? LOOP_FINISH_INTROS.error];
  if (found.length > 0) lines.push("What I found so far:", ...found);
  else lines.push("I did not find anything useful yet.");
  if (failed.length > 0) lines.push("What did not work:", ...failed);
  if (escapeHatch.length > 0) lines.push("", escapeHatch);
  const output = lines.join("\n");
  return {
    returnValues: { [outputKey]: output, output, stopReason: decision.reason },
    log: decision.message,
  };
}
