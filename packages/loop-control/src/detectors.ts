import { matchReActLabel } from "@reins/core";
import { hammingDistance, type SimHash } from "./simhash";

/**
 * The loop detectors as pure functions over a run's recent history, so each can be tested on its
 * own. `LoopControlHandler` keeps the history and calls them on every agent action.
 */

/** One past action as the detectors see it. */
export interface ActionRecord {
  /** `actionKey(tool, toolInput)` from `@reins/core`: tool name plus normalised input. */
  readonly key: string;
  /** The observation's fingerprint (`fingerprintObservation`), when the handler saw it. */
  readonly observationFingerprint?: string;
}

/** Options of the repeat detector (same tool and normalised input). */
export interface RepeatDetectorOptions {
  /**
   * Warn (a note for the model) when an action is repeated this many times: with the default
   * same-result rule, when the same call already got the same result this many times.
   * @default 2
   */
  readonly warnAt: number;
  /**
   * Stop the run when an action is repeated this many times: with the default same-result rule,
   * the next identical call after this many equal results is refused (at most `stopAt` executions).
   * @default 3
   */
  readonly stopAt: number;
  /**
   * A repeat is the same call that got the same result: count a repeat only when the earlier
   * calls also returned the same observation, so polling a tool whose result changes is never
   * flagged. The count is the number of earlier calls in a row with equal observations: with the
   * defaults, the 3rd identical call after two equal results runs with a warning and the 4th is
   * stopped. An observation the handler did not see counts as equal. `false`: every identical call
   * counts, whatever it returned (a note at the 2nd, a stop at the 3rd before it runs).
   * @default true
   */
  readonly requireSameObservation: boolean;
  /**
   * With `requireSameObservation: false`, the tools that are polled (a job status, a queue
   * length): for these only, a repeat still needs equal results, so polling a changing result is
   * never flagged while every other tool counts every identical call.
   * @default []
   */
  readonly pollingTools: readonly string[];
  /**
   * How many recent actions are compared.
   * @default 20
   */
  readonly window: number;
}

/** Options of the cycle detector (the recent actions repeat with a period). */
export interface CycleDetectorOptions {
  /**
   * Shortest period checked. Period 1 (the same action again and again) is the repeat detector's
   * job; set 1 to have the cycle detector report it too.
   * @default 2
   */
  readonly minPeriod: number;
  /**
   * Longest period checked (A→B→C→D→E→A→… is period 5).
   * @default 5
   */
  readonly maxPeriod: number;
  /**
   * Warn when the last actions hold this many full periods (A→B→A→B is 2).
   * @default 2
   */
  readonly warnRepetitions: number;
  /**
   * Stop when the last actions hold this many full periods (A→B→A→B→A→B is 3). A repeat stop
   * inside a cycle of at least two full periods is reported as a cycle.
   * @default 3
   */
  readonly stopRepetitions: number;
  /**
   * How many recent actions are examined.
   * @default 20
   */
  readonly window: number;
}

/** Options of the stall detector (near-duplicate Thought text). */
export interface StallDetectorOptions {
  /**
   * Warn when this many recent thoughts (including the current one) are near-duplicates.
   * @default 3
   */
  readonly warnAt: number;
  /**
   * Stop when this many recent thoughts are near-duplicates.
   * @default 5
   */
  readonly stopAt: number;
  /**
   * How many recent thoughts are compared with the current one.
   * @default 6
   */
  readonly window: number;
  /**
   * Two thoughts are near-duplicates when their 64-bit SimHashes differ in at most this many bits.
   * @default 6
   */
  readonly maxDistance: number;
  /**
   * Thoughts with fewer words are not compared (too short for similarity to mean anything).
   * @default 4
   */
  readonly minWords: number;
  /**
   * Count an earlier near-duplicate thought only when its step's observation was not new (its
   * fingerprint had been seen before in the run, or the handler did not see it): thinking the same
   * after learning something new — polling a changing status, paging through results — is not a
   * stall.
   * @default true
   */
  readonly requireStaleObservation: boolean;
}

/** A past thought as the stall detector sees it. */
export interface ThoughtRecord {
  readonly hash: SimHash;
  /** True when the step's observation had not been seen before in the run. */
  readonly novelObservation: boolean;
}

function fingerprintsMatch(left: string | undefined, right: string | undefined): boolean {
  return left === undefined || right === undefined || left === right;
}

/** The tool name part of an `actionKey` (tool name, NUL, normalised input). */
export function toolNameOf(key: string): string {
  const separator = key.indexOf("\u0000");
  return separator < 0 ? key : key.slice(0, separator);
}

/**
 * How many times the action `key` has now been repeated.
 *
 * @param history - earlier actions, oldest first (without the current one)
 * @param key - the current action's key
 * @returns the repeat count including the current action (1 = first time), and the latest
 *   earlier occurrence
 */
export function countRepeats(
  history: readonly ActionRecord[],
  key: string,
  options: RepeatDetectorOptions,
): { count: number; previous?: ActionRecord } {
  const recent = history.slice(Math.max(0, history.length - options.window));
  const occurrences = recent.filter((record) => record.key === key);
  if (occurrences.length === 0) return { count: 1 };
  const previous = occurrences[occurrences.length - 1];
  if (!options.requireSameObservation && !options.pollingTools.includes(toolNameOf(key))) {
    return { count: occurrences.length + 1, previous };
  }
  let streak = 0;
  for (let index = occurrences.length - 1; index >= 0; index -= 1) {
    if (!fingerprintsMatch(occurrences[index].observationFingerprint, previous.observationFingerprint)) break;
    streak += 1;
  }
  return { count: streak, previous };
}

/** A cycle found at the end of the action history. */
export interface CycleMatch {
  /** Number of actions in one period (2 for A→B→A→B). */
  readonly period: number;
  /** Full periods (fractional) the periodic tail spans: 2 for A→B→A→B, 2.5 for A→B→A→B→A. */
  readonly repetitions: number;
  /** Keys of one period, oldest first. */
  readonly keys: readonly string[];
}

/**
 * Finds the longest-repeating period at the end of `actions` (Gemini CLI's A→B→A→B loop check,
 * generalised to periods `minPeriod..maxPeriod`).
 *
 * @param actions - recent actions including the current one (its observation unknown), oldest first
 * @param sameObservation - also require equal observations where both are known
 * @returns the best match with at least `warnRepetitions` periods, or `undefined`
 */
export function detectCycle(
  actions: readonly ActionRecord[],
  options: CycleDetectorOptions,
  sameObservation = false,
): CycleMatch | undefined {
  const recent = actions.slice(Math.max(0, actions.length - options.window));
  const length = recent.length;
  let best: CycleMatch | undefined;
  for (let period = Math.max(1, options.minPeriod); period <= options.maxPeriod; period += 1) {
    if (length < period * 2) break;
    let matches = 0;
    for (let index = length - 1; index >= period; index -= 1) {
      const current = recent[index];
      const earlier = recent[index - period];
      if (current.key !== earlier.key) break;
      if (sameObservation && !fingerprintsMatch(current.observationFingerprint, earlier.observationFingerprint)) break;
      matches += 1;
    }
    const repetitions = (matches + period) / period;
    if (repetitions < options.warnRepetitions) continue;
    const keys = recent.slice(length - period).map((record) => record.key);
    // A "cycle" of one repeated action is period 1, reported only when minPeriod allows it.
    if (period > 1 && new Set(keys).size === 1) continue;
    if (best === undefined || repetitions > best.repetitions) best = { period, repetitions, keys };
  }
  return best;
}

/**
 * How many of the recent thoughts are near-duplicates of the current one.
 *
 * @param earlier - earlier thoughts, oldest first
 * @param current - the current thought's SimHash
 * @returns the count including the current thought; 0 when the thought is too short to compare
 */
export function countStalledThoughts(
  earlier: readonly ThoughtRecord[],
  current: SimHash,
  options: StallDetectorOptions,
): number {
  if (current.wordCount < options.minWords) return 0;
  let count = 1;
  for (let index = earlier.length - 1; index >= Math.max(0, earlier.length - (options.window - 1)); index -= 1) {
    const candidate = earlier[index];
    if (options.requireStaleObservation && candidate.novelObservation) continue;
    if (candidate.hash.wordCount >= options.minWords && hammingDistance(candidate.hash, current) <= options.maxDistance) count += 1;
  }
  return count;
}

/** The action a rejected reply meant to take, read from its `Action:` / `Action Input:` lines. */
export interface IntendedAction {
  readonly tool: string;
  readonly toolInput: string;
}

/**
 * Reads the action a model meant to take from a reply the parser rejected (the `log` of
 * LangChain's `_Exception` step, which is the model's text). A model that keeps calling a tool
 * that does not exist ("Action: Jester" three times) is looping even though no tool ever runs;
 * a reply with no `Action:` line (a plain refusal repeated) has no intended action and is left to
 * the parser's corrective retries. Uses `@reins/core`'s label grammar, so the labels read are the
 * ones the parser reads. Linear in the text's length.
 *
 * @param log - the rejected model reply
 * @returns the first `Action:` with a non-empty name and the `Action Input:` after it (`""`
 *   when none), or `undefined` when the reply names no action
 */
export function intendedActionOf(log: string): IntendedAction | undefined {
  let tool: string | undefined;
  for (const line of log.split("\n")) {
    const match = matchReActLabel(line);
    if (match === undefined) continue;
    if (tool === undefined) {
      if (match.label === "action" && match.value.trim().length > 0) tool = match.value.trim();
    } else if (match.label === "action_input") {
      return { tool, toolInput: match.value.trim() };
    } else if (match.label !== "thought") {
      break;
    }
  }
  return tool === undefined ? undefined : { tool, toolInput: "" };
}
