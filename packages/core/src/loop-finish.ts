import type { AgentFinish } from "@langchain/core/agents";
import type { StopReason } from "./events";
import type { LoopStopDecision } from "./run-context";
import { stableStringify } from "./fingerprint";

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

/** A completed step, structurally LangChain's `AgentStep`. */
export interface LoopFinishStep {
  readonly action: { readonly tool: string; readonly toolInput: unknown };
  readonly observation: unknown;
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
});

/** The `AgentFinish` built by {@link buildLoopStopFinish}. */
export interface LoopStopFinish extends AgentFinish {
  readonly returnValues: { output: string; stopReason: StopReason } & Record<string, unknown>;
}

function oneLine(value: unknown, maxChars: number): string {
  const text = (typeof value === "string" ? value : stableStringify(value)).replace(/\s+/g, " ").trim();
  return text.length <= maxChars ? text : `${text.slice(0, Math.max(0, maxChars - 1))}…`;
}

/**
 * Builds the `AgentFinish` for a stopped run. It never throws for bad options: an invalid field
 * falls back to its default (validate early with {@link resolveLoopFinishOptions}).
 *
 * `returnValues` carries the answer under `outputKey` (and under `output`) plus `stopReason`, so
 * AgentExecutor's result has `{ output, stopReason }`. `log` holds the operator-facing decision
 * message. The answer lists the latest result of each distinct call (tool and input), oldest
 * first, without loop notes ({@link stripLoopNotes}), skipping empty observations and
 * parse-error steps.
 *
 * @param decision - the run's `RunContext.loop.stop`
 * @param steps - the steps the executor passed to the agent's `plan` (AgentStep[])
 * @param options - see {@link LoopFinishOptions}
 * @returns an `AgentFinish` whose `returnValues` are `{ output, stopReason }`
 * @example
 * ```ts
 * const decision = runContext.contextOf(runId)?.loop.stop;
 * if (decision !== undefined) return buildLoopStopFinish(decision, steps, { escapeHatch: "Type 'human' to reach a person." });
 * ```
 */
export function buildLoopStopFinish(
  decision: LoopStopDecision,
  steps: readonly LoopFinishStep[],
  options: LoopFinishOptions = {},
): LoopStopFinish {
  const safeOptions = typeof options === "object" && options !== null ? options : {};
  const escapeHatch = lenient(safeOptions, "escapeHatch");
  const maxFindings = lenient(safeOptions, "maxFindings");
  const maxObservationChars = lenient(safeOptions, "maxObservationChars");
  const outputKey = lenient(safeOptions, "outputKey");
  const ignoreTools = new Set(lenient(safeOptions, "ignoreTools"));

  // Latest result per tool and input, most recent last; loop notes removed.
  const findings: string[] = [];
  const seen = new Set<string>();
  for (let index = steps.length - 1; index >= 0 && findings.length < maxFindings; index -= 1) {
    const step = steps[index];
    if (ignoreTools.has(step.action.tool)) continue;
    const raw = typeof step.observation === "string" ? stripLoopNotes(step.observation) : step.observation;
    const observation = oneLine(raw ?? "", maxObservationChars);
    if (observation.length === 0) continue;
    const input = oneLine(step.action.toolInput ?? "", 120);
    const call = `${step.action.tool}(${input})`;
    if (seen.has(call)) continue;
    seen.add(call);
    findings.unshift(`- ${call}: ${observation}`);
  }

  const lines = [LOOP_FINISH_INTROS[decision.reason] ?? LOOP_FINISH_INTROS.error];
  if (findings.length > 0) lines.push("What I found so far:", ...findings);
  else lines.push("I did not find anything useful yet.");
  if (escapeHatch.length > 0) lines.push("", escapeHatch);
  const output = lines.join("\n");
  return {
    returnValues: { [outputKey]: output, output, stopReason: decision.reason },
    log: decision.message,
  };
}
