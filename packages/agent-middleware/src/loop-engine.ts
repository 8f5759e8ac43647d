import { actionKey, type LoopKind, type LoopStopDecision } from "@reins/core";
import {
  checkStepBudget,
  checkUsageBudgets,
  costUsdOf,
  detectLoop,
  findModelPrice,
  simHash,
  type BudgetStop,
  type BudgetStopReason,
  type LoopNote,
  type LoopStepRecord,
  type ResolvedLoopControlOptions,
} from "@reins/loop-control";
import type { BaseMessage } from "@langchain/core/messages";
import { resultFactsOf, toolResultsOf, type ReinsRunRecord, type RunStep } from "./run-record";

/**
 * The `createAgent` side of `@reins/loop-control`'s decisions, over the run record in graph state:
 * `detectLoop` (repeat, cycle, stall, with the classic paths' precedence), `checkStepBudget`,
 * `checkUsageBudgets`, `findModelPrice` / `costUsdOf`. Pure: each call takes the record and
 * returns the next one, so a resumed run (another process, a rebuilt agent) decides exactly as
 * the uninterrupted one would. The observations come from the run's saved `ToolMessage`s.
 */

/** A tool call of a model turn, after repair. */
export interface TurnCall {
  readonly name: string;
  readonly args: unknown;
  readonly id?: string;
}

/** One detector finding, for `loop_detection` events and the audit trail. */
export interface Detection {
  readonly kind: LoopKind;
  readonly level: "warn" | "stop";
  /** Repetitions (repeat), full periods (cycle) or near-duplicate thoughts (stall). */
  readonly count: number;
  /** The call of the turn the finding is about. */
  readonly call: TurnCall;
}

/** What a check decided: the next record, findings, and a stop when the run must end. */
export interface EngineVerdict {
  readonly record: ReinsRunRecord;
  readonly detections: readonly Detection[];
  readonly stop?: LoopStopDecision;
}

const BUDGET_UNITS: Record<BudgetStopReason, (stop: BudgetStop) => string> = {
  max_steps: (stop) => `The run reached its step budget of ${stop.limit} model calls.`,
  time_budget: (stop) => `The run used ${Math.round(stop.used)} ms of its ${stop.limit} ms time budget.`,
  token_budget: (stop) => `The run used ${stop.used} of its ${stop.limit}-token budget.`,
  cost_budget: (stop) => `The run cost ${stop.used.toFixed(4)} USD of its ${stop.limit} USD budget.`,
};

function withNotes(record: ReinsRunRecord, notes: readonly LoopNote[]): ReinsRunRecord {
  if (notes.length === 0) return record;
  const budgets = notes.flatMap((note) => (note.kind === "budget" ? [note.budget] : []));
  return {
    ...record,
    notes: [...record.notes, ...notes.map((note) => ({ note: { ...note } as Record<string, unknown> }))],
    notedBudgets: [...new Set([...record.notedBudgets, ...budgets])],
  };
}

/** The loop decisions of one `createAgent` middleware (its resolved loop-control options). */
export class LoopEngine {
  constructor(private readonly options: ResolvedLoopControlOptions) {}

  /**
   * Before a model call: the step budget (`maxSteps` model calls; the call past it is refused)
   * and the time, token and cost budgets. "Answer soon" notes go into the record.
   * @param elapsedMs - the run's time so far, without paused time
   */
  beforeModel(record: ReinsRunRecord, elapsedMs: number): EngineVerdict {
    const noted = new Set(record.notedBudgets as BudgetStopReason[]);
    const steps = checkStepBudget(record.modelCalls + 1, this.options, noted);
    const usage = checkUsageBudgets({ elapsedMs, tokens: record.inputTokens + record.outputTokens, costUsd: record.costUsd }, this.options, noted, true);
    const stop = steps.stop?.refuseStep === true ? steps.stop : usage.stop;
    if (stop !== undefined) return { record, detections: [], stop: { reason: stop.reason, message: BUDGET_UNITS[stop.reason](stop) } };
    return { record: { ...withNotes(record, [...steps.notes, ...usage.notes]), modelCalls: record.modelCalls + 1 }, detections: [] };
  }

  /**
   * Adds one model reply's usage; its cost from the price table (`findModelPrice`: exact name,
   * then a dated name's prefix, then `"*"`).
   */
  modelReplied(record: ReinsRunRecord, usage: { inputTokens: number; outputTokens: number }, models: ReadonlyArray<string | undefined>): ReinsRunRecord {
    const price = findModelPrice(this.options.prices, models);
    return {
      ...record,
      inputTokens: record.inputTokens + usage.inputTokens,
      outputTokens: record.outputTokens + usage.outputTokens,
      costUsd: record.costUsd + (price === undefined ? 0 : costUsdOf(usage, price)),
    };
  }

  /**
   * A model turn with tool calls: each call through `detectLoop` against the run's earlier calls
   * (their observations read from `messages`), in order; the turn's text is the stall detector's
   * thought, on its first call. Notes delivered with the previous turn are dropped; the notes still
   * pending go to this turn's first call. Then, as at a classic action, a used-up time, token or
   * cost budget stops the run before the turn's calls run.
   * @param messages - the run's messages (`runMessagesOf`)
   * @param elapsedMs - the run's time so far, without paused time
   */
  turnChosen(record: ReinsRunRecord, text: string, calls: readonly TurnCall[], messages: readonly BaseMessage[], elapsedMs: number): EngineVerdict {
    const results = toolResultsOf(messages);
    const seen = new Set<string>();
    const earlier: LoopStepRecord[] = record.steps.map((step) => {
      const result = step.toolCallId === undefined ? undefined : results.get(step.toolCallId);
      if (result === undefined) return { key: step.key, toolName: step.toolName, detected: step.detected, ...(step.thoughtHash !== undefined ? { thoughtHash: step.thoughtHash } : {}) };
      const facts = resultFactsOf(result);
      const novel = !seen.has(facts.fingerprint);
      seen.add(facts.fingerprint);
      return {
        key: step.key,
        toolName: step.toolName,
        detected: step.detected,
        observationFingerprint: facts.fingerprint,
        observation: facts.observation,
        novelObservation: novel,
        ...(step.thoughtHash !== undefined ? { thoughtHash: step.thoughtHash } : {}),
      };
    });
    const { ignoreTools, stall } = this.options;
    const detections: Detection[] = [];
    const notes: LoopNote[] = [];
    const added: RunStep[] = [];
    let stop: LoopStopDecision | undefined;
    const hash = stall !== false && text.trim().length > 0 ? simHash(text) : undefined;
    let thoughtGiven = false;
    for (const call of calls) {
      const detected = !ignoreTools.includes(call.name);
      const thoughtHash = detected && !thoughtGiven ? hash : undefined;
      if (thoughtHash !== undefined) thoughtGiven = true;
      const step: RunStep = { ...(call.id !== undefined ? { toolCallId: call.id } : {}), toolName: call.name, key: actionKey(call.name, call.args), detected, ...(thoughtHash !== undefined ? { thoughtHash } : {}) };
      const found = detectLoop(earlier, { key: step.key, toolName: step.toolName, detected, ...(thoughtHash !== undefined ? { thoughtHash } : {}) }, this.options);
      earlier.push({ key: step.key, toolName: step.toolName, detected, ...(thoughtHash !== undefined ? { thoughtHash } : {}) });
      added.push(step);
      if (found === undefined) continue;
      detections.push({ kind: found.kind, level: found.level, count: found.count, call });
      if (found.level === "stop") stop ??= { reason: found.kind, message: stopMessage(found.kind, call.name, found.count, this.options) };
      else if (found.note !== undefined && !notes.some((note) => JSON.stringify(note) === JSON.stringify(found.note))) notes.push(found.note);
    }
    const firstId = calls.find((call) => call.id !== undefined)?.id;
    // Notes with a call id went out with the previous turn's ToolMessages; the rest go with this turn's first call.
    const pending = [...record.notes.filter((note) => note.forToolCallId === undefined), ...notes.map((note) => ({ note: { ...note } as Record<string, unknown> }))];
    const next: ReinsRunRecord = {
      ...record,
      steps: [...record.steps, ...added],
      notes: firstId === undefined ? [] : pending.map((note) => ({ ...note, forToolCallId: firstId })),
    };
    // As on the classic paths: after the loop checks, a used-up time, token or cost budget refuses the turn's calls.
    if (stop === undefined && calls.length > 0) {
      const usage = checkUsageBudgets({ elapsedMs, tokens: record.inputTokens + record.outputTokens, costUsd: record.costUsd }, this.options, new Set(record.notedBudgets as BudgetStopReason[]), true);
      if (usage.stop !== undefined) stop = { reason: usage.stop.reason, message: BUDGET_UNITS[usage.stop.reason](usage.stop) };
    }
    return { record: next, detections, ...(stop !== undefined ? { stop } : {}) };
  }
}

function stopMessage(kind: LoopKind, toolName: string, count: number, options: ResolvedLoopControlOptions): string {
  if (kind === "repeat") return `Tool ${toolName} was called ${count} times with the same input (repeat stop at ${options.repeat === false ? count : options.repeat.stopAt}).`;
  if (kind === "cycle") return `The run's tool calls repeated a cycle ${count} times (cycle stop at ${options.cycle === false ? count : options.cycle.stopRepetitions}).`;
  return `The last ${count} thoughts were near-duplicates (stall stop at ${options.stall === false ? count : options.stall.stopAt}).`;
}

/** The notes of the record that go on the `ToolMessage` of `toolCallId`. */
export function notesFor(record: ReinsRunRecord | undefined, toolCallId: string | undefined): LoopNote[] {
  if (record === undefined || toolCallId === undefined) return [];
  return record.notes.filter((note) => note.forToolCallId === toolCallId).map((note) => note.note as unknown as LoopNote);
}
