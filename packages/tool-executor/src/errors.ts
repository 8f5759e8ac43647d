import { ReinsError, brandReinsError, type StopReason } from "@reins/core";

/**
 * Operator-facing errors of `@reins/tool-executor`. They travel through the `logger`, the
 * `tool_call` event's `error` field and metrics; the model never sees them (it gets the short
 * observations of `messages.ts`). Every class carries its facts as readonly fields, keeps `cause`,
 * and is recognised across package copies with `isInstance` (a `Symbol.for` marker), as in
 * vercel/ai.
 */

/** Constructor fields shared by every error of this package. */
export interface ToolExecutorErrorFields {
  /** Replaces the default message. */
  message?: string;
  /** The error behind this one (kept as `cause`). */
  cause?: unknown;
}

/** Base class of every error thrown or reported by `@reins/tool-executor`. */
export class ToolExecutorError extends ReinsError {
  static {
    brandReinsError(this, "tool-executor", "ToolExecutorError");
  }

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ToolExecutorError";
  }
}

/** Options given to `ToolExecutor` (or a policy) are invalid; thrown at construction or `wrap`. */
export class ToolExecutorOptionsError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "ToolExecutorOptionsError");
  }

  /** Dotted path of the bad field, e.g. `policies.search.retry.maxAttempts`. */
  readonly field: string;
  /** The rejected value. */
  readonly value: unknown;

  constructor(fields: ToolExecutorErrorFields & { field: string; value?: unknown; reason?: string }) {
    super(
      fields.message ??
        `Invalid tool executor option "${fields.field}": ${fields.reason ?? "unsupported value"} (got ${describeValue(fields.value)}).`,
      fields,
    );
    this.name = "ToolExecutorOptionsError";
    this.field = fields.field;
    this.value = fields.value;
  }
}

/** A tool call did not settle within `timeoutMs`; it was abandoned (its signal aborted). */
export class ToolTimeoutError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "ToolTimeoutError");
  }

  readonly toolName: string;
  readonly timeoutMs: number;
  /**
   * Which limit ran out: one attempt's `timeoutMs`, the call's `deadlineMs` (all attempts and
   * backoff), or the run's time budget (`RunContext.deadlineAtMs`).
   */
  readonly deadline: "attempt" | "call" | "run";

  constructor(fields: ToolExecutorErrorFields & { toolName: string; timeoutMs: number; deadline?: "attempt" | "call" | "run" }) {
    const deadline = fields.deadline ?? "attempt";
    super(
      fields.message ??
        (deadline === "run"
          ? `Tool "${fields.toolName}" was cut off because the run's time budget ran out (${fields.timeoutMs} ms were left for it).`
          : `Tool "${fields.toolName}" did not answer within ${fields.timeoutMs} ms${deadline === "call" ? " (the call's deadline over all attempts)" : ""} and was abandoned.`),
      fields,
    );
    this.name = "ToolTimeoutError";
    this.toolName = fields.toolName;
    this.timeoutMs = fields.timeoutMs;
    this.deadline = deadline;
  }
}

/** The tool's circuit breaker is open: the call was answered without calling the tool. */
export class CircuitOpenError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "CircuitOpenError");
  }

  readonly toolName: string;

  constructor(fields: ToolExecutorErrorFields & { toolName: string }) {
    super(fields.message ?? `Circuit of tool "${fields.toolName}" is open after repeated failures; the call was not made.`, fields);
    this.name = "CircuitOpenError";
    this.toolName = fields.toolName;
  }
}

/** The tool's bulkhead was full (all slots busy and the queue full); the call was not made. */
export class BulkheadFullError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "BulkheadFullError");
  }

  readonly toolName: string;
  readonly maxConcurrent: number;
  readonly maxQueued: number;

  constructor(fields: ToolExecutorErrorFields & { toolName: string; maxConcurrent: number; maxQueued: number }) {
    super(
      fields.message ??
        `Tool "${fields.toolName}" rejected a call: ${fields.maxConcurrent} calls running and ${fields.maxQueued} queued (bulkhead full).`,
      fields,
    );
    this.name = "BulkheadFullError";
    this.toolName = fields.toolName;
    this.maxConcurrent = fields.maxConcurrent;
    this.maxQueued = fields.maxQueued;
  }
}

/**
 * The tool's `rateLimit` limiter had no slot for the call within its deadline (or `maxWaitMs`);
 * the tool was not started. Does not count against the circuit and is not retried.
 */
export class RateLimitedError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "RateLimitedError");
  }

  readonly toolName: string;
  /** The limiter key the call was counted under (`rateLimit.key`, by default the tool name). */
  readonly key: string;
  /** When a slot frees, in milliseconds from the rejection (the limiter's `msBeforeNext`). */
  readonly retryAfterMs: number;

  constructor(fields: ToolExecutorErrorFields & { toolName: string; key: string; retryAfterMs: number }) {
    super(fields.message ?? `Tool "${fields.toolName}" was rate limited (key "${fields.key}"): next slot in ${fields.retryAfterMs} ms.`, fields);
    this.name = "RateLimitedError";
    this.toolName = fields.toolName;
    this.key = fields.key;
    this.retryAfterMs = fields.retryAfterMs;
  }
}

/** The tool was already called `maxCallsPerRun` times in this run; the call was not made. */
export class CallLimitExceededError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "CallLimitExceededError");
  }

  readonly toolName: string;
  readonly maxCallsPerRun: number;
  readonly runId?: string;

  constructor(fields: ToolExecutorErrorFields & { toolName: string; maxCallsPerRun: number; runId?: string }) {
    super(
      fields.message ?? `Tool "${fields.toolName}" reached its limit of ${fields.maxCallsPerRun} calls in run ${fields.runId ?? "(unknown)"}.`,
      fields,
    );
    this.name = "CallLimitExceededError";
    this.toolName = fields.toolName;
    this.maxCallsPerRun = fields.maxCallsPerRun;
    this.runId = fields.runId;
  }
}

/**
 * The run's loop controller (`@reins/loop-control`) had already decided to stop the run
 * (`RunContext.loop.stop` was set), so the tool was not called. Reported with outcome `rejected`.
 */
export class StoppedRunCallError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "StoppedRunCallError");
  }

  readonly toolName: string;
  /** Why the run is stopping (`repeat`, `cycle`, `max_steps`, …), from the loop controller. */
  readonly stopReason: StopReason;
  readonly runId?: string;

  constructor(fields: ToolExecutorErrorFields & { toolName: string; stopReason: StopReason; runId?: string }) {
    super(
      fields.message ??
        `Tool "${fields.toolName}" was not called: run ${fields.runId ?? "(unknown)"} is being stopped by its loop controller (${fields.stopReason}).`,
      fields,
    );
    this.name = "StoppedRunCallError";
    this.toolName = fields.toolName;
    this.stopReason = fields.stopReason;
    this.runId = fields.runId;
  }
}

/** A side-effect call the policy's `approve` hook refused (or threw on). Reported with outcome `rejected`. */
export class SideEffectNotApprovedError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "SideEffectNotApprovedError");
  }

  readonly toolName: string;
  readonly runId?: string;

  constructor(fields: ToolExecutorErrorFields & { toolName: string; runId?: string }) {
    super(fields.message ?? `Side-effect tool "${fields.toolName}" was not run: its approve hook refused the call in run ${fields.runId ?? "(unknown)"}.`, fields);
    this.name = "SideEffectNotApprovedError";
    this.toolName = fields.toolName;
    this.runId = fields.runId;
  }
}

/**
 * A side-effect call whose earlier claim in the side-effect ledger has no result: its holder died
 * or hung after the claim (the effect may have happened), or a claim held by another holder did not
 * complete within this call's deadline. Never run again automatically. Reported with outcome `in_doubt`.
 */
export class SideEffectInDoubtError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "SideEffectInDoubtError");
  }

  readonly toolName: string;
  readonly toolCallId: string;
  readonly runId?: string;
  /** Why: `expired` (a claim whose holder never stored a result), `held` (still held when this call's wait ended). */
  readonly reason: "expired" | "held";

  constructor(fields: ToolExecutorErrorFields & { toolName: string; toolCallId: string; runId?: string; reason: "expired" | "held" }) {
    super(
      fields.message ??
        (fields.reason === "expired"
          ? `Side-effect call ${fields.toolCallId} of tool "${fields.toolName}" is in doubt: it was claimed before, but no result was stored (the holder stopped after the claim); it was not run again.`
          : `Side-effect call ${fields.toolCallId} of tool "${fields.toolName}" is in doubt: another holder still runs it and stored no result within this call's deadline; it was not run again.`),
      fields,
    );
    this.name = "SideEffectInDoubtError";
    this.toolName = fields.toolName;
    this.toolCallId = fields.toolCallId;
    this.runId = fields.runId;
    this.reason = fields.reason;
  }
}

/** The side-effect ledger failed (threw or rejected): the call was refused, never run unguarded. Outcome `error`. */
export class SideEffectLedgerError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "SideEffectLedgerError");
  }

  readonly toolName: string;
  readonly operation: string;

  constructor(fields: ToolExecutorErrorFields & { toolName: string; operation: string }) {
    super(fields.message ?? `The side-effect ledger failed on ${fields.operation} for tool "${fields.toolName}"; the call was not run.`, fields);
    this.name = "SideEffectLedgerError";
    this.toolName = fields.toolName;
    this.operation = fields.operation;
  }
}

/** A confirmed side-effect call repeated an idempotency key already used in this run; dropped. */
export class DuplicateCallError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "DuplicateCallError");
  }

  readonly toolName: string;
  readonly idempotencyKey: string;
  readonly runId?: string;

  constructor(fields: ToolExecutorErrorFields & { toolName: string; idempotencyKey: string; runId?: string }) {
    super(
      fields.message ??
        `Tool "${fields.toolName}" was called again with idempotency key ${JSON.stringify(fields.idempotencyKey)} in run ${fields.runId ?? "(unknown)"}; the repeat was dropped.`,
      fields,
    );
    this.name = "DuplicateCallError";
    this.toolName = fields.toolName;
    this.idempotencyKey = fields.idempotencyKey;
    this.runId = fields.runId;
  }
}

/** One field-level validation problem, in the model's terms. */
export interface ToolInputIssue {
  /** Dotted path of the field (`""` for the whole input). */
  readonly path: string;
  readonly message: string;
}

/** The tool input did not match the tool's schema or the policy's `validate` schema. */
export class ToolValidationError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "ToolValidationError");
  }

  readonly toolName: string;
  readonly issues: readonly ToolInputIssue[];
  readonly toolInput: unknown;

  constructor(fields: ToolExecutorErrorFields & { toolName: string; issues: readonly ToolInputIssue[]; toolInput?: unknown }) {
    super(
      fields.message ??
        `Invalid input for tool "${fields.toolName}": ${fields.issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join("; ")}.`,
      fields,
    );
    this.name = "ToolValidationError";
    this.toolName = fields.toolName;
    this.issues = fields.issues;
    this.toolInput = fields.toolInput;
  }
}

/** Labels of result-check failures (ghost failures: the call "worked" but the result says it did not). */
export type ResultCheckLabel = "http_status" | "json_parse" | "code_mismatch" | "missing_field" | (string & Record<never, never>);

/** The tool returned, but its result failed a check (built-in HTTP-like checks or `checkResult`). */
export class ToolResultCheckError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "ToolResultCheckError");
  }

  readonly toolName: string;
  /** Failure label: `http_status`, `json_parse`, `code_mismatch`, `missing_field` or a custom one. */
  readonly label: ResultCheckLabel;
  /** Short human-readable detail, e.g. `status 503` or `missing "data.items"`. */
  readonly detail: string;
  /** HTTP-like status found in the result, when any (drives retry: 429 and 5xx are retryable). */
  readonly status?: number;

  constructor(fields: ToolExecutorErrorFields & { toolName: string; label: ResultCheckLabel; detail: string; status?: number }) {
    super(fields.message ?? `Tool "${fields.toolName}" returned a failed result (${fields.label}: ${fields.detail}).`, fields);
    this.name = "ToolResultCheckError";
    this.toolName = fields.toolName;
    this.label = fields.label;
    this.detail = fields.detail;
    this.status = fields.status;
  }
}

/** The tool threw (or returned an `Error`). `cause` is the thrown value normalised to an `Error`. */
export class ToolExecutionError extends ToolExecutorError {
  static {
    brandReinsError(this, "tool-executor", "ToolExecutionError");
  }

  readonly toolName: string;
  declare readonly cause: Error;

  constructor(fields: { message?: string; toolName: string; cause: Error }) {
    super(fields.message ?? `Tool "${fields.toolName}" failed: ${fields.cause.message}`, { cause: fields.cause });
    this.name = "ToolExecutionError";
    this.toolName = fields.toolName;
  }
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "function") return "a function";
  if (value === undefined) return "undefined";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
