import type { LoopKind } from "@reins/core";
import { countRepeats, countStalledThoughts, detectCycle, type ActionRecord, type CycleMatch, type ThoughtRecord } from "./detectors";
import type { ResolvedLoopControlOptions } from "./loop-control-options";
import { previewObservation } from "./messages";
import type { SimHash } from "./simhash";

/** One step as {@link detectLoop} sees it. */
export interface LoopStepRecord extends ActionRecord {
  /** The tool the detectors count: the action's, or for a rejected reply the one it named. */
  readonly toolName: string;
  /** False for a step the detectors skip (an ignored tool whose reply named no action). */
  readonly detected: boolean;
  /** SimHash of the step's Thought, when stall detection is on. */
  readonly thoughtHash?: SimHash;
  /** True when this step's observation had not been seen earlier in the run. */
  readonly novelObservation?: boolean;
  /** The step's observation without loop notes, once known. */
  readonly observation?: string;
}

/**
 * A warning for the model, as facts: the model-facing wording is written once, from these, by
 * `renderLoopNote` (messages.ts), at the edge that shows it to the model.
 */
export type LoopNote =
  | {
      readonly kind: "repeat";
      readonly toolName: string;
      /** Earlier identical calls: with the same result (the default rule), or all of them. */
      readonly count: number;
      /** A short preview of what the earlier identical call returned, when known. */
      readonly previousObservation?: string;
    }
  | { readonly kind: "cycle"; readonly toolName: string; readonly count: number; readonly cycleTools: readonly string[] }
  | { readonly kind: "stall"; readonly toolName: string; readonly count: number }
  | {
      readonly kind: "budget";
      readonly budget: "max_steps" | "time_budget" | "token_budget" | "cost_budget";
      /** What is left, in the budget's unit ("3" steps, "12 s"); empty when not shown. */
      readonly remaining: string;
    };

/** What {@link detectLoop} found for a new step. */
export interface LoopDetection {
  readonly kind: LoopKind;
  readonly level: "warn" | "stop";
  /** Repetitions (repeat), full periods (cycle) or near-duplicate thoughts (stall). */
  readonly count: number;
  readonly period?: number;
  /**
   * A repeat counted as the same call with the same result (the default rule,
   * `repeat.requireSameObservation`): `count` is then the number of equal results in a row.
   */
  readonly sameResult?: boolean;
  /** The warning for the model (warn level only). */
  readonly note?: LoopNote;
}

/** The options {@link detectLoop} reads. */
export type LoopDetectionOptions = Pick<ResolvedLoopControlOptions, "repeat" | "cycle" | "stall" | "notePreviewChars">;

/**
 * The most specific loop finding for a new step, a pure function of the run's earlier steps: a
 * stop before a warning; a repeat inside a cycle of at least two full periods is reported as the
 * cycle; stalls are checked last.
 *
 * @param earlier - the run's earlier steps, oldest first (steps with `detected: false` are skipped)
 * @param step - the new step
 * @param options - resolved loop-control options
 * @returns the finding, or `undefined`
 */
export function detectLoop(
  earlier: readonly LoopStepRecord[],
  step: LoopStepRecord,
  options: LoopDetectionOptions,
): LoopDetection | undefined {
  if (!step.detected) return undefined;
  const history = earlier.filter((candidate) => candidate.detected);
  const { repeat, cycle, stall } = options;
  const sameObservation = repeat !== false && (repeat.requireSameObservation || repeat.pollingTools.includes(step.toolName));
  const cycleMatch = cycle === false ? undefined : detectCycle([...history, { key: step.key }], cycle, sameObservation);
  const asCycle = (match: CycleMatch, level: "warn" | "stop"): LoopDetection => {
    const count = Math.floor(match.repetitions);
    const cycleTools = match.keys.map((key) => key.slice(0, Math.max(0, key.indexOf("\u0000"))));
    return {
      kind: "cycle",
      level,
      count,
      period: match.period,
      ...(level === "warn" ? { note: { kind: "cycle", toolName: step.toolName, count, cycleTools } as const } : {}),
    };
  };
  const cycleStops = cycle !== false && cycleMatch !== undefined && cycleMatch.repetitions >= cycle.stopRepetitions;
  const multiStepCycle = cycleMatch !== undefined && cycleMatch.period > 1 ? cycleMatch : undefined;

  if (repeat !== false) {
    const { count, previous } = countRepeats(history, step.key, repeat);
    if (count >= repeat.stopAt) {
      return multiStepCycle !== undefined ? asCycle(multiStepCycle, "stop") : { kind: "repeat", level: "stop", count, ...(sameObservation ? { sameResult: true } : {}) };
    }
    if (cycleStops && cycleMatch !== undefined) return asCycle(cycleMatch, "stop");
    if (count >= repeat.warnAt) {
      if (multiStepCycle !== undefined) return asCycle(multiStepCycle, "warn");
      const previousObservation = (previous as LoopStepRecord | undefined)?.observation;
      return {
        kind: "repeat",
        level: "warn",
        count,
        ...(sameObservation ? { sameResult: true } : {}),
        note: {
          kind: "repeat",
          toolName: step.toolName,
          // The note counts the calls the model already made: with the same-result rule the count
          // is the earlier equal results; the plain rule's count includes this call.
          count: sameObservation ? count : count - 1,
          ...(previousObservation === undefined ? {} : { previousObservation: previewObservation(previousObservation, options.notePreviewChars) }),
        },
      };
    }
  } else if (cycleStops && cycleMatch !== undefined) {
    return asCycle(cycleMatch, "stop");
  }
  if (cycleMatch !== undefined) return asCycle(cycleMatch, "warn");

  if (stall !== false && step.thoughtHash !== undefined) {
    const thoughts: ThoughtRecord[] = [];
    for (const candidate of history) {
      if (candidate.thoughtHash !== undefined) thoughts.push({ hash: candidate.thoughtHash, novelObservation: candidate.novelObservation === true });
    }
    const count = countStalledThoughts(thoughts, step.thoughtHash, stall);
    if (count >= stall.stopAt) return { kind: "stall", level: "stop", count };
    if (count >= stall.warnAt) return { kind: "stall", level: "warn", count, note: { kind: "stall", toolName: step.toolName, count } };
  }
  return undefined;
}
