import type { BudgetStopReason } from "./errors";
import type { LoopNote } from "./loop-detection";
import type { ResolvedLoopControlOptions } from "./loop-control-options";

/** The options the budget checks read. */
export type BudgetOptions = Pick<ResolvedLoopControlOptions, "maxSteps" | "maxDurationMs" | "maxTokens" | "maxCostUsd" | "budgetWarnRatio">;

/** A used-up budget. */
export interface BudgetStop {
  readonly reason: BudgetStopReason;
  readonly limit: number;
  readonly used: number;
  /**
   * True when the step just chosen must not run (it is past the limit); false when it is the
   * last allowed step (it runs, and the run stops after it).
   */
  readonly refuseStep: boolean;
}

/** What a budget check decided: a stop, or "answer soon" notes for budgets crossing the warn ratio. */
export interface BudgetDecision {
  readonly stop?: BudgetStop;
  /** Notes for budgets not in `noted` yet; the caller adds their budget to its `noted` set. */
  readonly notes: ReadonlyArray<Extract<LoopNote, { kind: "budget" }>>;
}

const NONE: BudgetDecision = Object.freeze({ notes: Object.freeze([]) as [] });

/**
 * The step budget for the step just chosen (1-based `stepNumber`): past `maxSteps` it is refused,
 * at `maxSteps` it is the last one, and at `budgetWarnRatio` of the way an "answer soon" note is
 * due (once per run: pass the budgets already noted).
 *
 * @param stepNumber - the new step's number in the run, 1-based (parse-error steps count)
 * @param options - resolved loop-control options
 * @param noted - budgets already warned about in this run
 */
export function checkStepBudget(stepNumber: number, options: BudgetOptions, noted: ReadonlySet<BudgetStopReason>): BudgetDecision {
  const { maxSteps, budgetWarnRatio } = options;
  if (stepNumber > maxSteps) return { stop: { reason: "max_steps", limit: maxSteps, used: maxSteps, refuseStep: true }, notes: [] };
  if (stepNumber === maxSteps) return { stop: { reason: "max_steps", limit: maxSteps, used: stepNumber, refuseStep: false }, notes: [] };
  if (budgetWarnRatio < 1 && stepNumber >= Math.ceil(maxSteps * budgetWarnRatio) && !noted.has("max_steps")) {
    return { notes: [{ kind: "budget", budget: "max_steps", remaining: String(maxSteps - stepNumber) }] };
  }
  return NONE;
}

/**
 * The time, token and cost budgets of a run: the first used-up budget stops it; a budget past
 * `budgetWarnRatio` and not yet noted gets one "answer soon" note.
 *
 * @param usage - the run so far: wall time in ms, tokens in + out, cost in US dollars
 * @param options - resolved loop-control options (an infinite limit is off)
 * @param noted - budgets already warned about in this run
 * @param refuseStep - whether a stop refuses the step just chosen (a check made at a new action)
 */
export function checkUsageBudgets(
  usage: { readonly elapsedMs: number; readonly tokens: number; readonly costUsd: number },
  options: BudgetOptions,
  noted: ReadonlySet<BudgetStopReason>,
  refuseStep: boolean,
): BudgetDecision {
  const { maxDurationMs, maxTokens, maxCostUsd, budgetWarnRatio } = options;
  const checks: Array<[BudgetStopReason, number, number]> = [
    ["time_budget", maxDurationMs, usage.elapsedMs],
    ["token_budget", maxTokens, usage.tokens],
    ["cost_budget", maxCostUsd, usage.costUsd],
  ];
  const notes: Array<Extract<LoopNote, { kind: "budget" }>> = [];
  for (const [reason, limit, used] of checks) {
    if (!Number.isFinite(limit)) continue;
    if (used >= limit) return { stop: { reason, limit, used, refuseStep }, notes };
    if (budgetWarnRatio < 1 && used >= limit * budgetWarnRatio && !noted.has(reason)) {
      const remaining = reason === "time_budget" ? `${Math.max(0, Math.round((limit - used) / 1000))} s` : "";
      notes.push({ kind: "budget", budget: reason as Extract<LoopNote, { kind: "budget" }>["budget"], remaining });
    }
  }
  return notes.length === 0 ? NONE : { notes };
}
