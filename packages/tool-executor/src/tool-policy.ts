import type { InteropZodType } from "@langchain/core/utils/types";
import type { ApproveSideEffectCall } from "./confirmation";
import { DEFAULT_BULKHEAD_OPTIONS, resolveBulkheadOptions, type BulkheadOptions } from "./bulkhead-options";
import { DEFAULT_CACHE_OPTIONS, resolveCacheOptions, type CacheOptions, type CacheScope, type CacheScopeContext } from "./cache-options";
import { DEFAULT_CIRCUIT_BREAKER_OPTIONS, resolveCircuitBreakerOptions, type CircuitBreakerOptions } from "./circuit-breaker-options";
import { checkFunction, checkKeys, checkNumber, fail, isPlainObject, MAX_TIMER_MS } from "./policy-checks";
import { DEFAULT_RESULT_CHECKS, type ResultCheckFailure, type ResultChecks } from "./result-check";
import { resolveRateLimitOptions, type RateLimitOptions, type ResolvedRateLimitOptions } from "./rate-limit-options";
import { DEFAULT_RETRY_OPTIONS, resolveRetryOptions, type RetryJitter, type RetryOptions } from "./retry-options";
import type { ToolCallContext } from "./tool-call-context";

// The sections live in their own files; this module keeps the policy as a whole.
export { DEFAULT_BULKHEAD_OPTIONS, DEFAULT_CACHE_OPTIONS, DEFAULT_CIRCUIT_BREAKER_OPTIONS, DEFAULT_RETRY_OPTIONS, MAX_TIMER_MS };
export type { BulkheadOptions, CacheOptions, CacheScope, CacheScopeContext, CircuitBreakerOptions, RetryJitter, RetryOptions };

// Lower than the sections that use it (cache-options, retry-options), so no type-only circle.
export type { ToolCallContext } from "./tool-call-context";

/**
 * What answers when the call fails (after retries, or with the circuit open or the bulkhead full;
 * not for invalid input, which the model must fix, nor for a call cancelled by the caller):
 * - a `string` or `{ message }`: this text is the observation;
 * - `{ value }`: this value, formatted like a tool result;
 * - a function `(error, toolInput) => result` (may be async): its result, formatted;
 * - `{ tool: "backup_tool" }`: the same input is sent to another tool wrapped by this executor
 *   (its own timeout/retry/breaker/bulkhead apply; its fallback does not chain further; it must not
 *   be a `sideEffects` tool, since the fallback call skips dry run, confirmation and call cap —
 *   such a fallback is refused and logged at `error`, and the original failure answers).
 */
export type ToolFallback =
  | string
  | { readonly message: string }
  | { readonly value: unknown }
  | { readonly tool: string }
  | ((error: Error, toolInput: unknown) => unknown);

/**
 * A custom result check (may be async): return `undefined`/`true` to accept, `false` or a string
 * (the detail) to fail with label `check_failed`, or a {@link ResultCheckFailure} for a label of
 * your own. A check that throws counts as a failed call (`ToolExecutionError`).
 */
export type ResultCheck = (
  result: unknown,
  context: ToolCallContext,
) => ResultCheckFailure | string | boolean | undefined | void | Promise<ResultCheckFailure | string | boolean | undefined | void>;

/**
 * The policy of one tool. Every field is optional: a tool's policy (`policies[name]`) is merged
 * deeply over `defaults`, which is merged over {@link DEFAULT_TOOL_POLICY}. `false` turns a
 * section off.
 */
export interface ToolPolicy {
  /**
   * Deadline of one attempt, in milliseconds. The tool gets an `AbortSignal` (`config.signal`)
   * that aborts at the deadline; the call is abandoned then even if the tool ignores it.
   * At most 2^31 − 1 ms (the longest timer delay); `Infinity` means no per-attempt deadline (`deadlineMs` and the
   * run's time budget still apply).
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Deadline of the whole call, in milliseconds: every attempt, every backoff delay and the wait
   * for an abandoned attempt together (Polly's outer timeout). When the run has a time budget
   * (`RunContext.deadlineAtMs`, set by `LoopControlHandler`'s `maxDurationMs`), the call also
   * ends when the run's time is up. At most 2^31 − 1 ms (the longest timer delay); `Infinity` leaves only the run's
   * budget.
   * @default 30000
   */
  deadlineMs?: number;
  /** Retry of retryable failures; `false` disables. @default see {@link RetryOptions} */
  retry?: Partial<RetryOptions> | false;
  /** Circuit breaker; `false` disables. @default see {@link CircuitBreakerOptions} */
  circuitBreaker?: Partial<CircuitBreakerOptions> | false;
  /** What answers when the call fails. @default false (a model-facing failure message) */
  fallback?: ToolFallback | false;
  /**
   * Result cache; `true` uses the defaults of {@link CacheOptions}. Not allowed together with
   * `sideEffects` (set `cache: false` on such a tool when `defaults` turn the cache on).
   * @default false
   */
  cache?: Partial<CacheOptions> | boolean;
  /**
   * The tool changes the world (sends, buys, deletes). Its first call in a run is a dry run: the
   * model gets a preview with a per-run confirmation token and the tool is not called. It runs
   * only when the model calls it again with the same input plus `"confirm": "<token>"` (or when
   * `approve` says yes). A confirmation before any dry run, or with another token, gets the dry
   * run again.
   * @default false
   */
  sideEffects?: boolean;
  /**
   * Whether running the same call twice is safe. Only an idempotent tool is retried after a
   * timeout (a timed-out attempt may still be running; the retry waits until it has settled, so
   * two attempts of one call never run at once). Failures whose attempt has ended (HTTP 5xx, 429,
   * network errors) are retried for every tool except `sideEffects` tools not declared idempotent.
   * @default false
   */
  idempotent?: boolean;
  /**
   * Decides whether a side-effect call is confirmed, in place of the token check. It is asked
   * only after a dry run of the same call in the same run; before that the call is dry-run.
   * @default undefined (the input's `confirm` must equal the token of the dry run)
   */
  confirmWhen?: (toolInput: unknown, context: { toolName: string }) => boolean;
  /**
   * Human in the loop: decides each side-effect call (e.g. by asking a person). Wins over the
   * token and `confirmWhen`; `false` (or a throw) refuses the call and tells the model so.
   * @default undefined
   */
  approve?: ApproveSideEffectCall;
  /**
   * The dry-run text the model gets for an unconfirmed side-effect call.
   * @default MODEL_MESSAGES.dryRunObject / dryRunString
   */
  preview?: (toolInput: unknown, context: { toolName: string }) => string;
  /**
   * Longest input a dry run shows whole and a confirmation token may confirm, in characters
   * (UTF-16 code units) of the input's JSON text as the dry run shows it (a string input in
   * quotes, an object as compact JSON). A token confirms exactly what its dry run showed, so an
   * input over this size gets no token: its dry run shows the start, marks the cut, and says
   * that the call needs the application's `approve` hook (which still decides it).
   * @default DEFAULT_MAX_CONFIRMABLE_INPUT_CHARS (4000)
   */
  maxConfirmableInputChars?: number;
  /**
   * Drops a repeated confirmed side-effect call within one run: `true` keys calls by the
   * normalised input, a function returns the key, `false` disables.
   * @default true for sideEffects tools
   */
  idempotencyKey?: boolean | ((toolInput: unknown, context: { toolName: string }) => string);
  /** Concurrency limit; `false` disables. @default false */
  bulkhead?: Partial<BulkheadOptions> | false;
  /**
   * Request quota (a rate-limiter-flexible limiter, shared by a fleet with `RateLimiterRedis`);
   * each attempt takes a point. `false` disables. @default false — see {@link RateLimitOptions}
   */
  rateLimit?: RateLimitOptions | false;
  /**
   * Calls of this tool allowed per run (one top-level executor invocation).
   * @default Infinity
   */
  maxCallsPerRun?: number;
  /**
   * Extra zod schema (v3 or v4) the input must match; field-level messages go to the model.
   * Applied after the tool's own schema.
   * @default undefined
   */
  validate?: InteropZodType;
  /**
   * Rewrites the validated input before the call (trim, redact, clamp…; may be async). Its result
   * is what the cache key, dry run and tool see.
   * @default undefined
   */
  sanitize?: (toolInput: unknown, context: { toolName: string }) => unknown;
  /** A custom check of each result, run after the built-in ones. @default undefined */
  checkResult?: ResultCheck;
  /** Built-in result checks; `false` disables them all. @default DEFAULT_RESULT_CHECKS */
  resultChecks?: Partial<ResultChecks> | false;
}

/** A tool's policy with every default applied and validated. Sections that are off are `undefined`. */
export interface ResolvedToolPolicy {
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  readonly retry: Readonly<RetryOptions> | undefined;
  readonly circuitBreaker: Readonly<CircuitBreakerOptions> | undefined;
  readonly fallback: ToolFallback | undefined;
  readonly cache: Readonly<CacheOptions> | undefined;
  readonly sideEffects: boolean;
  readonly idempotent: boolean;
  readonly confirmWhen: ((toolInput: unknown, context: { toolName: string }) => boolean) | undefined;
  readonly approve: ApproveSideEffectCall | undefined;
  readonly preview: ((toolInput: unknown, context: { toolName: string }) => string) | undefined;
  readonly maxConfirmableInputChars: number;
  readonly idempotencyKey: ((toolInput: unknown, context: { toolName: string }) => string) | true | undefined;
  readonly bulkhead: Readonly<BulkheadOptions> | undefined;
  readonly rateLimit: ResolvedRateLimitOptions | undefined;
  readonly maxCallsPerRun: number;
  readonly validate: InteropZodType | undefined;
  readonly sanitize: ((toolInput: unknown, context: { toolName: string }) => unknown) | undefined;
  readonly checkResult: ResultCheck | undefined;
  readonly resultChecks: Readonly<ResultChecks> | undefined;
}

/**
 * Default of `maxConfirmableInputChars`: the longest input (characters of its JSON text) a
 * side-effect tool's dry run shows whole and a confirmation token may confirm. About a page of
 * text, or a thousand tokens: enough for a message body or a statement, short enough that the
 * model reads all of it before confirming.
 */
export const DEFAULT_MAX_CONFIRMABLE_INPUT_CHARS = 4000;

/**
 * The policy every tool gets when neither `defaults` nor `policies` say otherwise: 30 s per
 * attempt and 30 s for the whole call, 3 attempts with decorrelated-jitter backoff (250 ms base,
 * 4 s cap) for failures whose attempt has ended, no retry after a timeout (tools are not
 * idempotent unless declared), a breaker opening after 5 consecutive failures for 30 s, built-in
 * result checks on; no cache, no fallback, no bulkhead, no call cap, no side effects.
 */
export const DEFAULT_TOOL_POLICY: Readonly<ToolPolicy> = Object.freeze({
  timeoutMs: 30_000,
  deadlineMs: 30_000,
  idempotent: false,
  retry: DEFAULT_RETRY_OPTIONS,
  circuitBreaker: DEFAULT_CIRCUIT_BREAKER_OPTIONS,
  fallback: false,
  cache: false,
  sideEffects: false,
  maxConfirmableInputChars: DEFAULT_MAX_CONFIRMABLE_INPUT_CHARS,
  bulkhead: false,
  maxCallsPerRun: Number.POSITIVE_INFINITY,
  resultChecks: DEFAULT_RESULT_CHECKS,
}) as Readonly<ToolPolicy>;

/**
 * Merges one policy layer over another: scalar fields replace, section objects merge key by key,
 * `false` turns a section off, `undefined` keeps the lower layer.
 */
export function mergeToolPolicies(base: Readonly<ToolPolicy>, override: Readonly<ToolPolicy> | undefined): ToolPolicy {
  if (override === undefined) return { ...base };
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) continue;
    const lower = merged[key];
    if (isPlainObject(value) && isPlainObject(lower) && key !== "fallback" && key !== "validate") {
      merged[key] = { ...lower, ...value };
    } else {
      merged[key] = value;
    }
  }
  return merged as ToolPolicy;
}

const POLICY_KEYS = new Set([
  "timeoutMs",
  "deadlineMs",
  "retry",
  "circuitBreaker",
  "fallback",
  "cache",
  "sideEffects",
  "idempotent",
  "confirmWhen",
  "approve",
  "preview",
  "maxConfirmableInputChars",
  "idempotencyKey",
  "bulkhead",
  "rateLimit",
  "maxCallsPerRun",
  "validate",
  "sanitize",
  "checkResult",
  "resultChecks",
]);

/**
 * Resolves the policy of one tool: {@link DEFAULT_TOOL_POLICY} ← `defaults` ← `override`, deep
 * merged, then validated.
 *
 * @param defaults - the executor's `defaults`
 * @param override - the tool's entry of `policies`
 * @param field - the option path used in error messages (e.g. `policies.search`)
 * @throws {ToolExecutorOptionsError} naming the first bad field
 */
export function resolveToolPolicy(
  defaults: Readonly<ToolPolicy> | undefined,
  override: Readonly<ToolPolicy> | undefined,
  field = "defaults",
): ResolvedToolPolicy {
  for (const [layer, layerField] of [
    [defaults, "defaults"],
    [override, field],
  ] as const) {
    if (layer === undefined) continue;
    if (!isPlainObject(layer)) fail(layerField, layer, "must be an object");
    for (const key of Object.keys(layer)) {
      if (!POLICY_KEYS.has(key)) fail(`${layerField}.${key}`, layer[key as keyof ToolPolicy], `unknown policy field (known: ${[...POLICY_KEYS].join(", ")})`);
    }
  }
  const policy = mergeToolPolicies(mergeToolPolicies(DEFAULT_TOOL_POLICY, defaults), override);

  const timeoutMs = checkNumber(`${field}.timeoutMs`, policy.timeoutMs, { min: 1, max: MAX_TIMER_MS, allowInfinity: true });
  const sideEffects = policy.sideEffects ?? false;
  if (typeof sideEffects !== "boolean") fail(`${field}.sideEffects`, sideEffects, "must be a boolean");
  const deadlineMs = checkNumber(`${field}.deadlineMs`, policy.deadlineMs, { min: 1, max: MAX_TIMER_MS, allowInfinity: true });
  const idempotent = policy.idempotent ?? false;
  if (typeof idempotent !== "boolean") fail(`${field}.idempotent`, idempotent, "must be a boolean");

  const retry = resolveRetryOptions(field, policy.retry, sideEffects, idempotent);

  const circuitBreaker = resolveCircuitBreakerOptions(field, policy.circuitBreaker);

  let fallback: ToolFallback | undefined;
  if (policy.fallback !== false && policy.fallback !== undefined) {
    const value = policy.fallback;
    const valid =
      typeof value === "string" ||
      typeof value === "function" ||
      (isPlainObject(value) &&
        (("message" in value && typeof value.message === "string") || "value" in value || ("tool" in value && typeof value.tool === "string")));
    if (!valid) fail(`${field}.fallback`, value, "must be a string, { message }, { value }, { tool } or a function");
    fallback = value;
  }

  const cache = resolveCacheOptions(field, policy.cache);

  if (cache !== undefined && sideEffects) {
    // A cache hit would answer for a real action (and bypass the dry run and the idempotency key).
    fail(`${field}.cache`, "(cache options)", "must be false for a sideEffects tool: a cached answer would stand in for a real action");
  }

  const bulkhead = resolveBulkheadOptions(field, policy.bulkhead);
  const rateLimit = resolveRateLimitOptions(field, policy.rateLimit);

  const maxCallsPerRun = checkNumber(`${field}.maxCallsPerRun`, policy.maxCallsPerRun ?? Number.POSITIVE_INFINITY, {
    min: 1,
    integer: true,
    allowInfinity: true,
  });

  const maxConfirmableInputChars = checkNumber(`${field}.maxConfirmableInputChars`, policy.maxConfirmableInputChars ?? DEFAULT_MAX_CONFIRMABLE_INPUT_CHARS, {
    min: 1,
    integer: true,
    allowInfinity: true,
  });

  let idempotencyKey: ResolvedToolPolicy["idempotencyKey"];
  const givenKey = policy.idempotencyKey ?? sideEffects;
  if (typeof givenKey === "function") idempotencyKey = givenKey;
  else if (givenKey === true) idempotencyKey = true;
  else if (givenKey !== false) fail(`${field}.idempotencyKey`, givenKey, "must be a boolean or a function");

  let resultChecks: ResultChecks | undefined;
  if (policy.resultChecks !== false && policy.resultChecks !== undefined) {
    if (!isPlainObject(policy.resultChecks)) fail(`${field}.resultChecks`, policy.resultChecks, "must be an object or false");
    checkKeys(`${field}.resultChecks`, policy.resultChecks, ["httpStatus", "jsonBody", "errorFields", "requiredFields"]);
    const merged = { ...DEFAULT_RESULT_CHECKS, ...policy.resultChecks };
    for (const key of ["httpStatus", "jsonBody", "errorFields"] as const) {
      if (typeof merged[key] !== "boolean") fail(`${field}.resultChecks.${key}`, merged[key], "must be a boolean");
    }
    if (!Array.isArray(merged.requiredFields) || merged.requiredFields.some((path) => typeof path !== "string" || path === "")) {
      fail(`${field}.resultChecks.requiredFields`, merged.requiredFields, "must be an array of non-empty dotted paths");
    }
    resultChecks = merged;
  }

  const validate = policy.validate;
  if (validate !== undefined && (typeof validate !== "object" || validate === null)) fail(`${field}.validate`, validate, "must be a zod schema");

  return Object.freeze({
    timeoutMs,
    deadlineMs,
    retry,
    circuitBreaker,
    fallback,
    cache,
    sideEffects,
    idempotent,
    confirmWhen: checkFunction<ResolvedToolPolicy["confirmWhen"]>(`${field}.confirmWhen`, policy.confirmWhen),
    approve: checkFunction<ResolvedToolPolicy["approve"]>(`${field}.approve`, policy.approve),
    preview: checkFunction<ResolvedToolPolicy["preview"]>(`${field}.preview`, policy.preview),
    maxConfirmableInputChars,
    idempotencyKey,
    bulkhead,
    rateLimit,
    maxCallsPerRun,
    validate,
    sanitize: checkFunction<ResolvedToolPolicy["sanitize"]>(`${field}.sanitize`, policy.sanitize),
    checkResult: checkFunction<ResultCheck>(`${field}.checkResult`, policy.checkResult),
    resultChecks,
  });
}
