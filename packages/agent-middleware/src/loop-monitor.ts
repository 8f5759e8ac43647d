import { actionKey, type LoopKind, type LoopStopDecision, type StopReason } from "@reins/core";
import {
  budgetNote,
  countRepeats,
  countStalledThoughts,
  cycleNote,
  detectCycle,
  previewObservation,
  repeatNote,
  simHash,
  stallNote,
  toolNameOf,
  type ActionRecord,
  type ResolvedLoopControlOptions,
  type ThoughtRecord,
} from "@reins/loop-control";

/**
 * A thin adapter over `@reins/loop-control`'s pure detectors (`countRepeats`, `detectCycle`,
 * `countStalledThoughts`) and its note texts, for agents that emit no `handleAgentAction`
 * callbacks: `createAgent` calls tools from `tool_calls`, so the `LoopControlHandler` (a callback
 * handler) never sees an action there. The thresholds, windows and budgets are the handler's own
 * resolved options; only the bookkeeping of one run lives here.
 */

/** One past tool call as the detectors see it; the observation fingerprint arrives later. */
interface MutableActionRecord {
  key: string;
  observationFingerprint?: string;
  toolCallId?: string;
  observationPreview?: string;
}

/** What the monitor decided about one model turn. */
export interface LoopVerdict {
  /** Notes for the model, to go into the next ToolMessage. */
  readonly notes: readonly string[];
  /** Detections (for `loop_detection` events). */
  readonly detections: ReadonlyArray<{ readonly kind: LoopKind; readonly level: "warn" | "stop" }>;
  /** Set when the run must stop. */
  readonly stop?: LoopStopDecision;
}

/** A tool call of a model turn, after repair. */
export interface MonitoredCall {
  readonly name: string;
  readonly args: unknown;
  readonly id?: string;
}

/** Loop and budget state of one agent run. */
export class RunLoopMonitor {
  readonly startedAtMs: number;
  modelCalls = 0;
  inputTokens = 0;
  outputTokens = 0;
  costUsd = 0;
  private readonly actions: MutableActionRecord[] = [];
  private readonly thoughts: ThoughtRecord[] = [];
  private readonly seenFingerprints = new Set<string>();
  private readonly issuedNotes = new Set<string>();
  private readonly budgetWarned = new Set<string>();
  private pendingThought: { hash: ReturnType<typeof simHash>; toolCallIds: string[] } | undefined;

  constructor(private readonly options: ResolvedLoopControlOptions) {
    this.startedAtMs = options.now();
  }

  /** Elapsed wall time of the run, in milliseconds. */
  elapsedMs(): number {
    return Math.max(0, this.options.now() - this.startedAtMs);
  }

  /** Adds the usage of one model call; the cost uses `options.prices[model]` when given. */
  addUsage(inputTokens: number, outputTokens: number, model: string | undefined): void {
    this.inputTokens += inputTokens;
    this.outputTokens += outputTokens;
    const price = model === undefined ? undefined : this.options.prices[model];
    if (price !== undefined) {
      this.costUsd += (inputTokens * price.inputUsdPerMillionTokens + outputTokens * price.outputUsdPerMillionTokens) / 1_000_000;
    }
  }

  /**
   * The budgets checked before a model call: steps (model calls), wall time, tokens, cost.
   * @returns a stop decision, or notes when a budget is `budgetWarnRatio` used
   */
  checkBudgets(): LoopVerdict {
    const { maxSteps, maxDurationMs, maxTokens, maxCostUsd, budgetWarnRatio } = this.options;
    const tokens = this.inputTokens + this.outputTokens;
    const elapsed = this.elapsedMs();
    const over: Array<[StopReason, string]> = [];
    if (this.modelCalls >= maxSteps) over.push(["max_steps", `The run reached its step budget of ${maxSteps} model calls.`]);
    if (elapsed >= maxDurationMs) over.push(["time_budget", `The run used its time budget of ${maxDurationMs} ms.`]);
    if (tokens >= maxTokens) over.push(["token_budget", `The run used ${tokens} of its ${maxTokens}-token budget.`]);
    if (this.costUsd >= maxCostUsd) over.push(["cost_budget", `The run cost ${this.costUsd.toFixed(4)} USD of its ${maxCostUsd} USD budget.`]);
    if (over.length > 0) return { notes: [], detections: [], stop: { reason: over[0][0], message: over[0][1] } };
    const notes: string[] = [];
    const warn = (kind: "max_steps" | "time_budget" | "token_budget" | "cost_budget", used: number, remaining: string): void => {
      if (budgetWarnRatio < 1 && used >= budgetWarnRatio && !this.budgetWarned.has(kind)) {
        this.budgetWarned.add(kind);
        notes.push(budgetNote(kind, remaining));
      }
    };
    if (Number.isFinite(maxSteps)) warn("max_steps", this.modelCalls / maxSteps, String(maxSteps - this.modelCalls));
    if (Number.isFinite(maxDurationMs)) warn("time_budget", elapsed / maxDurationMs, `${Math.ceil((maxDurationMs - elapsed) / 1000)} s`);
    if (Number.isFinite(maxTokens)) warn("token_budget", tokens / maxTokens, String(maxTokens - tokens));
    if (Number.isFinite(maxCostUsd)) warn("cost_budget", this.costUsd / maxCostUsd, "");
    return { notes, detections: [] };
  }

  /**
   * Runs the repeat, cycle and stall detectors over one model turn: its text (the thought) and
   * its tool calls, each added to the run's history.
   */
  observeTurn(text: string, calls: readonly MonitoredCall[]): LoopVerdict {
    const notes: string[] = [];
    const detections: Array<{ kind: LoopKind; level: "warn" | "stop" }> = [];
    let stop: LoopStopDecision | undefined;
    const { stall, ignoreTools } = this.options;
    const note = (text: string): void => {
      if (this.issuedNotes.has(text)) return;
      this.issuedNotes.add(text);
      notes.push(text);
    };

    const watched = calls.filter((call) => !ignoreTools.includes(call.name));
    for (const call of watched) {
      const key = actionKey(call.name, call.args);
      const verdict = this.detectAction(call.name, key);
      this.actions.push({ key, ...(call.id !== undefined ? { toolCallId: call.id } : {}) });
      if (verdict === undefined) continue;
      detections.push({ kind: verdict.kind, level: verdict.level });
      if (verdict.level === "stop") stop ??= { reason: verdict.kind, message: verdict.message };
      else if (verdict.note !== undefined) note(verdict.note);
    }
    // Stalls are checked last, as LoopControlHandler does: a repeat or cycle is the more specific finding.
    if (stall !== false && text.trim().length > 0 && watched.length > 0) {
      const hash = simHash(text);
      this.pendingThought = { hash, toolCallIds: watched.map((call) => call.id ?? "") };
      const count = detections.length > 0 ? 0 : countStalledThoughts(this.thoughts, hash, stall);
      if (count >= stall.stopAt) {
        detections.push({ kind: "stall", level: "stop" });
        stop ??= { reason: "stall", message: `The last ${count} thoughts were near-duplicates (stall stop at ${stall.stopAt}).` };
      } else if (count >= stall.warnAt) {
        detections.push({ kind: "stall", level: "warn" });
        note(stallNote({ toolName: watched[0].name, count }));
      }
    }

    return { notes, detections, ...(stop !== undefined ? { stop } : {}) };
  }

  /**
   * The most specific finding for one new call, with `LoopControlHandler`'s precedence: a stop
   * before a warning; a repeat inside a cycle of at least two full periods is reported as the
   * cycle.
   */
  private detectAction(toolName: string, key: string): { kind: LoopKind; level: "warn" | "stop"; message: string; note?: string } | undefined {
    const { repeat, cycle } = this.options;
    const sameObservation = repeat !== false && (repeat.requireSameObservation || repeat.pollingTools.includes(toolName));
    const match = cycle === false ? undefined : detectCycle([...(this.actions as ActionRecord[]), { key }], cycle, sameObservation);
    const asCycle = (found: NonNullable<typeof match>, level: "warn" | "stop") => {
      const cycleTools = found.keys.map(toolNameOf);
      return {
        kind: "cycle" as const,
        level,
        message: `The calls ${cycleTools.join(" → ")} repeated ${found.repetitions} times (cycle ${level} at ${level === "stop" && cycle !== false ? cycle.stopRepetitions : cycle !== false ? cycle.warnRepetitions : 0}).`,
        ...(level === "warn" ? { note: cycleNote({ toolName, count: Math.floor(found.repetitions), cycleTools }) } : {}),
      };
    };
    const cycleStops = cycle !== false && match !== undefined && match.repetitions >= cycle.stopRepetitions;
    const multiStep = match !== undefined && match.period > 1 ? match : undefined;
    if (repeat !== false) {
      const { count, previous } = countRepeats(this.actions as ActionRecord[], key, repeat);
      if (count >= repeat.stopAt) {
        if (multiStep !== undefined) return asCycle(multiStep, "stop");
        return { kind: "repeat", level: "stop", message: `Tool ${toolName} was called ${count} times with the same input (repeat stop at ${repeat.stopAt}).` };
      }
      if (cycleStops && match !== undefined) return asCycle(match, "stop");
      if (count >= repeat.warnAt) {
        if (multiStep !== undefined) return asCycle(multiStep, "warn");
        const preview = (previous as MutableActionRecord | undefined)?.observationPreview;
        return {
          kind: "repeat",
          level: "warn",
          message: `Tool ${toolName} was called ${count} times with the same input.`,
          note: repeatNote({ toolName, count, ...(preview !== undefined ? { previousObservation: preview } : {}) }),
        };
      }
    } else if (cycleStops && match !== undefined) {
      return asCycle(match, "stop");
    }
    return match === undefined ? undefined : asCycle(match, "warn");
  }

  /** Records what a tool call returned, for the `requireSameObservation` and stall rules and for repeat notes. */
  observeResult(toolCallId: string | undefined, fingerprint: string, observation: string): void {
    const record = [...this.actions].reverse().find((action) => action.toolCallId !== undefined && action.toolCallId === toolCallId);
    const novel = !this.seenFingerprints.has(fingerprint);
    this.seenFingerprints.add(fingerprint);
    if (record !== undefined) {
      record.observationFingerprint = fingerprint;
      record.observationPreview = previewObservation(observation, this.options.notePreviewChars);
    }
    const thought = this.pendingThought;
    if (thought !== undefined && toolCallId !== undefined && thought.toolCallIds.includes(toolCallId)) {
      this.thoughts.push({ hash: thought.hash, novelObservation: novel });
      this.pendingThought = undefined;
    }
  }
}
