import { AsyncLocalStorage } from "node:async_hooks";
import { AIMessage, HumanMessage, type BaseMessage, type ToolMessage } from "@langchain/core/messages";
import { fingerprintObservation, type LoopKind, type ReinsEvent, type StopReason, type ToolCallOutcome } from "@reins/core";
import { finishAuditRecord, stepAuditRecord, writeAuditRecord, type LoopAuditOptions } from "@reins/loop-control";
import { textOf } from "./middleware-run-state";

/** A tool call of a model turn, as the audit records it. */
export interface AuditedCall {
  readonly id?: string;
  readonly name: string;
  readonly args: unknown;
}

interface AuditedTurn {
  readonly number: number;
  readonly modelStartedAtMs: number;
  readonly decidedAtMs: number;
  readonly thought: string;
  /** Repairs of the reply as a whole (e.g. `duplicate_message_id`): shown on the turn. */
  readonly replyRepairs: readonly string[];
  /** Repairs of one call (its name, arguments, a rescue from text), by call id: shown on that call alone. */
  readonly callRepairs: ReadonlyMap<string, readonly string[]>;
  readonly calls: readonly AuditedCall[];
  readonly written: Set<string | AuditedCall>;
  /** The loop detectors' findings about the turn's calls (by call id, or the call itself). */
  readonly detections: Map<string | AuditedCall, { readonly kind: LoopKind; readonly level: "warn" | "stop"; readonly count: number }>;
}

interface AuditedRun {
  readonly runId: string;
  readonly startedAtMs: number;
  readonly question: string | undefined;
  records: number;
  turns: number;
  current: AuditedTurn | undefined;
  lastEndMs: number;
  finished: boolean;
  /** Repairs of the model reply whose turn is not recorded yet. */
  pendingRepairs: ReportedRepair[];
}

/** A `parser_repair` event's repair, and the call it was applied to (none: the whole reply). */
interface ReportedRepair {
  readonly repair: string;
  readonly toolCallId?: string;
}

/** What the events of one tool call told: its outcome and the raw result's size. */
interface CallScope {
  readonly owner: MiddlewareAuditTrail;
  outcome?: ToolCallOutcome;
  rawChars?: number;
  /** Set in a model call's scope: the repairs reported while it is repaired. */
  repairs?: ReportedRepair[];
}

const scope = new AsyncLocalStorage<CallScope>();

/** The run's question: the text of the last human message before the run's first model call. */
export function questionOfMessages(messages: readonly BaseMessage[]): string | undefined {
  const human = [...messages].reverse().find((message) => HumanMessage.isInstance(message));
  return human === undefined ? undefined : textOf(human);
}

/** The answer of a finished run: the text of its last AI message. */
export function answerOfMessages(messages: readonly BaseMessage[]): string | undefined {
  const last = [...messages].reverse().find((message) => AIMessage.isInstance(message));
  return last === undefined ? undefined : textOf(last);
}

/**
 * The `createAgent` middleware's JSONL audit trail: the same `reins.loop_control.step` records as
 * `LoopControlHandler` and `createReactAgent` write, so `reins-trace` shows a `createAgent` run.
 * One record per tool call, written when its `ToolMessage` is made (the parallel calls of one model
 * turn share `turn`); a call the run's stop left unrun is recorded as refused; then the finish
 * record with the answer or the graceful stop text. Records pass the audit's `redact` first; a
 * throwing sink goes to `onError`, never to the run.
 *
 * The outcome of each call (timeout, dry run, cache hit, …) and the raw result's size come from the
 * ToolExecutor's `tool_call` and the cleaner's `observation_cleaned` events, matched to the call by
 * async context ({@link MiddlewareAuditTrail.record} is their listener, {@link MiddlewareAuditTrail.duringCall}
 * the scope).
 */
export class MiddlewareAuditTrail {
  private readonly runs = new Map<string, AuditedRun>();

  constructor(
    private readonly audit: LoopAuditOptions,
    private readonly now: () => number,
    private readonly onError: (error: unknown) => void,
    /** Most runs kept at once (a run that threw never ends); the oldest is dropped beyond it. */
    private readonly maxRuns = 10_000,
    /** Where a `secret_redaction` event of the audit goes (set once the middleware's emitter exists). */
    public emit?: (event: ReinsEvent) => void,
  ) {}

  /** The event listener (give it to the ToolExecutor and the cleaner): notes the outcome of the call in scope. */
  record(event: ReinsEvent): void {
    const call = scope.getStore();
    if (call === undefined || call.owner !== this) return;
    if (event.type === "parser_repair") call.repairs?.push({ repair: event.repair, ...(event.toolCallId !== undefined ? { toolCallId: event.toolCallId } : {}) });
    else if (event.type === "tool_call") call.outcome = event.outcome;
    else if (event.type === "observation_cleaned") call.rawChars = (call.rawChars ?? 0) + event.rawChars;
  }

  /** Runs one tool call in a scope its events are matched to; `ended` gets what they told. */
  async duringCall<T>(body: () => T | Promise<T>, ended: (outcome: ToolCallOutcome | undefined, rawChars: number | undefined) => void): Promise<T> {
    const call: CallScope = { owner: this };
    try {
      return await scope.run(call, body);
    } finally {
      ended(call.outcome, call.rawChars);
    }
  }

  /** Runs the repair of one model reply (`wrapModelCall`): the repairs it reports go on the run's next turn. */
  duringModelCall<T>(runId: string, body: () => T): T {
    const call: CallScope = { owner: this, repairs: [] };
    try {
      return scope.run(call, body);
    } finally {
      this.runs.get(runId)?.pendingRepairs.push(...(call.repairs ?? []));
    }
  }

  /** A run started (`beforeAgent`). */
  started(runId: string, messages: readonly BaseMessage[]): void {
    this.runs.set(runId, { runId, startedAtMs: this.now(), question: questionOfMessages(messages), records: 0, turns: 0, current: undefined, lastEndMs: this.now(), finished: false, pendingRepairs: [] });
    while (this.runs.size > this.maxRuns) this.runs.delete(this.runs.keys().next().value as string);
  }

  /** The model replied with tool calls (`afterModel`): a new turn. */
  turn(runId: string, reply: AIMessage, calls: readonly AuditedCall[], modelStartedAtMs: number | undefined): void {
    const run = this.runs.get(runId);
    if (run === undefined) return;
    this.closeTurn(run, undefined);
    run.turns += 1;
    const now = this.now();
    const repairs = run.pendingRepairs.splice(0);
    const callIds = new Set(calls.map((call) => call.id));
    const callRepairs = new Map<string, string[]>();
    const replyRepairs: string[] = [];
    for (const { repair, toolCallId } of repairs) {
      if (toolCallId === undefined || !callIds.has(toolCallId)) replyRepairs.push(repair);
      else callRepairs.set(toolCallId, [...(callRepairs.get(toolCallId) ?? []), repair]);
    }
    run.current = { number: run.turns, modelStartedAtMs: modelStartedAtMs ?? run.lastEndMs, decidedAtMs: now, thought: textOf(reply), replyRepairs, callRepairs, calls, written: new Set(), detections: new Map() };
  }

  /**
   * The loop detectors' findings about the current turn's calls (`afterModel`): a warned call's
   * record reads `warned`, a stopped one carries the stop's detection, as on the classic path.
   */
  detected(runId: string, detections: ReadonlyArray<{ readonly kind: LoopKind; readonly level: "warn" | "stop"; readonly count: number; readonly call: AuditedCall }>): void {
    const turn = this.runs.get(runId)?.current;
    if (turn === undefined) return;
    for (const { kind, level, count, call } of detections) turn.detections.set(call.id ?? call, { kind, level, count });
  }

  /** A call of the current turn got its ToolMessage (`wrapToolCall`). */
  observed(runId: string, call: AuditedCall, message: ToolMessage, toolStartedAtMs: number, outcome: ToolCallOutcome | undefined, rawChars: number | undefined): void {
    const run = this.runs.get(runId);
    const turn = run?.current;
    if (run === undefined || turn === undefined) return;
    const now = this.now();
    const failed = message.status === "error";
    turn.written.add(call.id ?? call);
    this.writeStep(run, turn, call, {
      observation: textOf(message),
      toolMs: Math.max(0, now - toolStartedAtMs),
      failed,
      refused: false,
      ...(outcome !== undefined ? { callOutcome: outcome } : {}),
      ...(rawChars !== undefined ? { observationRawChars: rawChars } : {}),
    });
    run.lastEndMs = Math.max(run.lastEndMs, now);
  }

  /**
   * The run ended (the model's answer, a graceful stop, or `afterAgent`): writes the records of
   * calls the stop left unrun, then the finish record. Once per run.
   */
  finished(runId: string, stopReason: StopReason, answer: string | undefined, llmMs?: number): void {
    const run = this.runs.get(runId);
    if (run === undefined || run.finished) return;
    run.finished = true;
    this.closeTurn(run, stopReason === "final_answer" ? undefined : stopReason);
    const atMs = this.now();
    const question = run.records === 0 ? run.question : undefined;
    // The final reply's own repairs (a stop's finish has none pending).
    const repairs = run.pendingRepairs.splice(0).map((reported) => reported.repair);
    this.write(
      finishAuditRecord({
        runId,
        step: run.records + 1,
        atMs,
        ...(llmMs !== undefined ? { llmMs } : {}),
        cycleMs: Math.max(0, atMs - run.lastEndMs),
        previousEndMs: run.lastEndMs,
        thought: "",
        stopReason,
        ...(answer !== undefined ? { answer } : {}),
        ...(question !== undefined ? { question } : {}),
        ...(repairs.length > 0 ? { repairs } : {}),
      }),
    );
    this.runs.delete(runId);
  }

  /** The model's final reply (no tool calls): its time and thought go on the finish record. */
  answered(runId: string, reply: AIMessage, modelStartedAtMs: number | undefined): void {
    this.finished(runId, "final_answer", textOf(reply), modelStartedAtMs === undefined ? undefined : Math.max(0, this.now() - modelStartedAtMs));
  }

  /** Records the calls of the current turn that never got a ToolMessage (refused by a stop). */
  private closeTurn(run: AuditedRun, stopReason: StopReason | undefined): void {
    const turn = run.current;
    if (turn === undefined) return;
    run.current = undefined;
    for (const call of turn.calls) {
      if (turn.written.has(call.id ?? call)) continue;
      this.writeStep(run, turn, call, { failed: false, refused: true, ...(stopReason !== undefined ? { stopReason } : {}) });
    }
  }

  private writeStep(
    run: AuditedRun,
    turn: AuditedTurn,
    call: AuditedCall,
    facts: {
      readonly observation?: string;
      readonly toolMs?: number;
      readonly failed: boolean;
      readonly refused: boolean;
      readonly callOutcome?: ToolCallOutcome;
      readonly observationRawChars?: number;
      readonly stopReason?: StopReason;
    },
  ): void {
    const index = run.records;
    run.records += 1;
    const llmMs = Math.max(0, turn.decidedAtMs - turn.modelStartedAtMs);
    const question = index === 0 ? run.question : undefined;
    const detection = turn.detections.get(call.id ?? call);
    this.write(
      stepAuditRecord(run.runId, {
        index,
        startedAtMs: turn.decidedAtMs,
        llmMs,
        ...(facts.toolMs !== undefined ? { toolMs: facts.toolMs } : {}),
        cycleMs: llmMs,
        thought: turn.thought,
        tool: call.name,
        toolInput: call.args,
        ...(facts.observation !== undefined ? { observation: facts.observation, observationFingerprint: fingerprintObservation(facts.observation) } : {}),
        repairs: call.id === undefined ? [] : (turn.callRepairs.get(call.id) ?? []),
        ...(turn.replyRepairs.length > 0 ? { replyRepairs: turn.replyRepairs } : {}),
        refused: facts.refused,
        failed: facts.failed,
        parseError: false,
        turn: turn.number,
        ...(call.id !== undefined ? { callId: call.id } : {}),
        ...(facts.callOutcome !== undefined ? { callOutcome: facts.callOutcome } : {}),
        ...(facts.observationRawChars !== undefined ? { observationRawChars: facts.observationRawChars } : {}),
        ...(facts.stopReason !== undefined ? { stopReason: facts.stopReason } : {}),
        ...(detection !== undefined ? { detection } : {}),
        ...(question !== undefined ? { question } : {}),
      }),
    );
  }

  private write(record: Parameters<typeof writeAuditRecord>[1]): void {
    writeAuditRecord(this.audit, record, this.onError, this.emit);
  }
}

/** Where an audit sink's error goes when loop control is off: a process warning. */
export function auditWarning(error: unknown): void {
  process.emitWarning(`ReinsMiddleware audit: ${error instanceof Error ? error.message : String(error)}`, { code: "REINS_AUDIT" });
}
