import type { InteropZodType } from "@langchain/core/utils/types";
import type { ApproveSideEffectCall } from "./confirmation";
import { ToolExecutorOptionsError } from "./errors";
import { DEFAULT_RESULT_CHECKS, type ResultCheckFailure, type ResultChecks } from "./result-check";
import type { ToolResultStore } from "./result-store";

/** How retry delays are randomised (cockatiel's backoff generators). */
export type RetryJitter = "decorrelated" | "full" | "none";

/** What a hook learns about the call it runs for. */
export interface ToolCallContext {
  readonly toolName: string;
  readonly toolInput: unknown;
}

/** Retry with exponential backoff (cockatiel `retry` + `ExponentialBackoff`). */
export interface RetryOptions {
  /**
   * Total attempts including the first call (1 = no retry).
   * @default 3
   */
  maxAttempts: number;
  /**
   * Base of the exponential backoff, in milliseconds.
   * @default 250
   */
  initialDelayMs: number;
  /**
   * Upper bound of one backoff delay, in milliseconds (at most {@link MAX_TIMER_MS}).
   * @default 4000
   */
  maxDelayMs: number;
  /**
   * Randomisation of the delays: `"decorrelated"` (Polly's decorrelated jitter v2, cockatiel's
   * default), `"full"` (uniform in [0, delay)) or `"none"` (initialDelayMs × 2^n, capped).
   * @default "decorrelated"
   */
  jitter: RetryJitter;
  /**
   * Decides whether a failure is retried. Replaces the default classification
   * (`isRetryableError`: timeouts, network errors, HTTP 429 and 5xx). Never consulted for
   * tools that are not idempotent (they are not retried).
   * @default isRetryableError
   */
  retryOn?: (error: Error, context: ToolCallContext & { attempt: number }) => boolean;
}

/** Consecutive-failure circuit breaker (cockatiel `circuitBreaker` + `ConsecutiveBreaker`). */
export interface CircuitBreakerOptions {
  /**
   * Consecutive failed calls (after retries) that open the circuit.
   * @default 5
   */
  failureThreshold: number;
  /**
   * Time the circuit stays open before one half-open probe call is let through, in milliseconds.
   * Timed with `Date.now` (cockatiel's clock), not the executor's `now` option.
   * @default 30000
   */
  halfOpenAfterMs: number;
}

/** Result cache. Failures are never cached. */
export interface CacheOptions {
  /**
   * How long a result is served from the cache, in milliseconds.
   * @default 60000
   */
  ttlMs: number;
  /**
   * Entries kept by the default in-memory LRU store (ignored when `store` is given).
   * @default 500
   */
  maxEntries: number;
  /**
   * Cache key of a call. The tool name is always prefixed.
   * @default normalizeToolInput(toolInput) from `@reins/core`
   */
  key?: (toolInput: unknown, context: { toolName: string }) => string;
  /**
   * Whether a successful result may be cached.
   * @default every successful, checked result
   */
  cacheable?: (result: unknown, context: ToolCallContext) => boolean;
  /**
   * Where entries live; give a shared store (Redis…) to share the cache between instances.
   * @default a new InMemoryToolResultStore per tool
   */
  store?: ToolResultStore;
}

/** Concurrency limit per tool (cockatiel `bulkhead`). */
export interface BulkheadOptions {
  /**
   * Calls of this tool running at once.
   * @default 10
   */
  maxConcurrent: number;
  /**
   * Calls waiting for a slot; more are rejected at once.
   * @default 0
   */
  maxQueued: number;
  /**
   * What a timed-out call does with its slot. `false` (default): the slot stays taken until the
   * abandoned tool really settles (a tool that honours its `AbortSignal` settles at once), so the
   * limit bounds the work actually running against the service; a queued call then waits at most
   * `timeoutMs` for a slot and otherwise ends as a timeout without starting. `true`: the slot is
   * freed at the deadline, while the abandoned tool may still be running (cockatiel's behaviour).
   * @default false
   */
  releaseOnTimeout: boolean;
}

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
   * At most {@link MAX_TIMER_MS}; `Infinity` means no deadline.
   * @default 30000
   */
  timeoutMs?: number;
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
   * Whether calling twice is safe; tools that are not idempotent are never retried.
   * @default !sideEffects
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
   * Drops a repeated confirmed side-effect call within one run: `true` keys calls by the
   * normalised input, a function returns the key, `false` disables.
   * @default true for sideEffects tools
   */
  idempotencyKey?: boolean | ((toolInput: unknown, context: { toolName: string }) => string);
  /** Concurrency limit; `false` disables. @default false */
  bulkhead?: Partial<BulkheadOptions> | false;
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
  readonly retry: Readonly<RetryOptions> | undefined;
  readonly circuitBreaker: Readonly<CircuitBreakerOptions> | undefined;
  readonly fallback: ToolFallback | undefined;
  readonly cache: Readonly<CacheOptions> | undefined;
  readonly sideEffects: boolean;
  readonly idempotent: boolean;
  readonly confirmWhen: ((toolInput: unknown, context: { toolName: string }) => boolean) | undefined;
  readonly approve: ApproveSideEffectCall | undefined;
  readonly preview: ((toolInput: unknown, context: { toolName: string }) => string) | undefined;
  readonly idempotencyKey: ((toolInput: unknown, context: { toolName: string }) => string) | true | undefined;
  readonly bulkhead: Readonly<BulkheadOptions> | undefined;
  readonly maxCallsPerRun: number;
  readonly validate: InteropZodType | undefined;
  readonly sanitize: ((toolInput: unknown, context: { toolName: string }) => unknown) | undefined;
  readonly checkResult: ResultCheck | undefined;
  readonly resultChecks: Readonly<ResultChecks> | undefined;
}

/** Defaults of each policy section when it is turned on. */
export const DEFAULT_RETRY_OPTIONS: Readonly<RetryOptions> = Object.freeze({
  maxAttempts: 3,
  initialDelayMs: 250,
  maxDelayMs: 4000,
  jitter: "decorrelated" as RetryJitter,
});

/** Defaults of the circuit breaker. */
export const DEFAULT_CIRCUIT_BREAKER_OPTIONS: Readonly<CircuitBreakerOptions> = Object.freeze({
  failureThreshold: 5,
  halfOpenAfterMs: 30_000,
});

/** Defaults of the cache when turned on. */
export const DEFAULT_CACHE_OPTIONS: Readonly<Pick<CacheOptions, "ttlMs" | "maxEntries">> = Object.freeze({
  ttlMs: 60_000,
  maxEntries: 500,
});

/** Defaults of the bulkhead when turned on. */
export const DEFAULT_BULKHEAD_OPTIONS: Readonly<BulkheadOptions> = Object.freeze({
  maxConcurrent: 10,
  maxQueued: 0,
  releaseOnTimeout: false,
});

/**
 * The policy every tool gets when neither `defaults` nor `policies` say otherwise: 30 s timeout,
 * 3 attempts with decorrelated-jitter backoff (250 ms base, 4 s cap), a breaker opening after 5
 * consecutive failures for 30 s, built-in result checks on; no cache, no fallback, no bulkhead,
 * no call cap, no side effects.
 */
export const DEFAULT_TOOL_POLICY: Readonly<ToolPolicy> = Object.freeze({
  timeoutMs: 30_000,
  retry: DEFAULT_RETRY_OPTIONS,
  circuitBreaker: DEFAULT_CIRCUIT_BREAKER_OPTIONS,
  fallback: false,
  cache: false,
  sideEffects: false,
  bulkhead: false,
  maxCallsPerRun: Number.POSITIVE_INFINITY,
  resultChecks: DEFAULT_RESULT_CHECKS,
}) as Readonly<ToolPolicy>;

function fail(field: string, value: unknown, reason: string): never {
  throw new ToolExecutorOptionsError({ field, value, reason });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The longest delay a Node/browser timer can wait (2^31 − 1 ms, about 24.8 days). `setTimeout`
 * fires after 1 ms for anything longer, so a larger finite timeout or backoff would expire at once.
 */
export const MAX_TIMER_MS = 2_147_483_647;

function checkNumber(field: string, value: unknown, options: { min: number; max?: number; integer?: boolean; allowInfinity?: boolean }): number {
  if (typeof value !== "number" || Number.isNaN(value)) fail(field, value, "must be a number");
  if (!Number.isFinite(value) && !(options.allowInfinity === true && value === Number.POSITIVE_INFINITY)) {
    fail(field, value, "must be finite");
  }
  if (options.integer === true && Number.isFinite(value) && !Number.isInteger(value)) fail(field, value, "must be an integer");
  if (value < options.min) fail(field, value, `must be >= ${options.min}`);
  if (options.max !== undefined && Number.isFinite(value) && value > options.max) {
    fail(field, value, `must be <= ${options.max} (the longest timer delay)${options.allowInfinity === true ? " or Infinity" : ""}`);
  }
  return value;
}

function checkFunction<T>(field: string, value: unknown): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "function") fail(field, value, "must be a function");
  return value as T;
}

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
  "retry",
  "circuitBreaker",
  "fallback",
  "cache",
  "sideEffects",
  "idempotent",
  "confirmWhen",
  "approve",
  "preview",
  "idempotencyKey",
  "bulkhead",
  "maxCallsPerRun",
  "validate",
  "sanitize",
  "checkResult",
  "resultChecks",
]);

function checkKeys(field: string, value: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) fail(`${field}.${key}`, value[key], `unknown option (known: ${allowed.join(", ")})`);
  }
}

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
  const idempotent = policy.idempotent ?? !sideEffects;
  if (typeof idempotent !== "boolean") fail(`${field}.idempotent`, idempotent, "must be a boolean");

  let retry: RetryOptions | undefined;
  if (policy.retry !== false && policy.retry !== undefined) {
    if (!isPlainObject(policy.retry)) fail(`${field}.retry`, policy.retry, "must be an object or false");
    checkKeys(`${field}.retry`, policy.retry, ["maxAttempts", "initialDelayMs", "maxDelayMs", "jitter", "retryOn"]);
    const merged = { ...DEFAULT_RETRY_OPTIONS, ...policy.retry };
    retry = {
      maxAttempts: checkNumber(`${field}.retry.maxAttempts`, merged.maxAttempts, { min: 1, integer: true }),
      initialDelayMs: checkNumber(`${field}.retry.initialDelayMs`, merged.initialDelayMs, { min: 0, max: MAX_TIMER_MS }),
      maxDelayMs: checkNumber(`${field}.retry.maxDelayMs`, merged.maxDelayMs, { min: 0, max: MAX_TIMER_MS }),
      jitter: merged.jitter,
      retryOn: checkFunction(`${field}.retry.retryOn`, merged.retryOn),
    };
    if (!["decorrelated", "full", "none"].includes(retry.jitter)) fail(`${field}.retry.jitter`, retry.jitter, 'must be "decorrelated", "full" or "none"');
    if (retry.maxDelayMs < retry.initialDelayMs) fail(`${field}.retry.maxDelayMs`, retry.maxDelayMs, "must be >= retry.initialDelayMs");
    if (!idempotent || retry.maxAttempts === 1) retry = undefined;
  }

  let circuitBreaker: CircuitBreakerOptions | undefined;
  if (policy.circuitBreaker !== false && policy.circuitBreaker !== undefined) {
    if (!isPlainObject(policy.circuitBreaker)) fail(`${field}.circuitBreaker`, policy.circuitBreaker, "must be an object or false");
    checkKeys(`${field}.circuitBreaker`, policy.circuitBreaker, ["failureThreshold", "halfOpenAfterMs"]);
    const merged = { ...DEFAULT_CIRCUIT_BREAKER_OPTIONS, ...policy.circuitBreaker };
    circuitBreaker = {
      failureThreshold: checkNumber(`${field}.circuitBreaker.failureThreshold`, merged.failureThreshold, { min: 1, integer: true }),
      halfOpenAfterMs: checkNumber(`${field}.circuitBreaker.halfOpenAfterMs`, merged.halfOpenAfterMs, { min: 0 }),
    };
  }

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

  let cache: CacheOptions | undefined;
  if (policy.cache !== false && policy.cache !== undefined) {
    const given = policy.cache === true ? {} : policy.cache;
    if (!isPlainObject(given)) fail(`${field}.cache`, given, "must be an object, true or false");
    checkKeys(`${field}.cache`, given, ["ttlMs", "maxEntries", "key", "cacheable", "store"]);
    const merged = { ...DEFAULT_CACHE_OPTIONS, ...given };
    cache = {
      ttlMs: checkNumber(`${field}.cache.ttlMs`, merged.ttlMs, { min: 1 }),
      maxEntries: checkNumber(`${field}.cache.maxEntries`, merged.maxEntries, { min: 1, integer: true }),
      key: checkFunction(`${field}.cache.key`, merged.key),
      cacheable: checkFunction(`${field}.cache.cacheable`, merged.cacheable),
      store: merged.store,
    };
    const store = cache.store as unknown;
    if (store !== undefined && (typeof store !== "object" || store === null || typeof (store as Record<string, unknown>).get !== "function" || typeof (store as Record<string, unknown>).set !== "function")) {
      fail(`${field}.cache.store`, "(store)", "must implement get(key) and set(key, entry, ttlMs)");
    }
  }

  if (cache !== undefined && sideEffects) {
    // A cache hit would answer for a real action (and bypass the dry run and the idempotency key).
    fail(`${field}.cache`, "(cache options)", "must be false for a sideEffects tool: a cached answer would stand in for a real action");
  }

  let bulkhead: BulkheadOptions | undefined;
  if (policy.bulkhead !== false && policy.bulkhead !== undefined) {
    if (!isPlainObject(policy.bulkhead)) fail(`${field}.bulkhead`, policy.bulkhead, "must be an object or false");
    checkKeys(`${field}.bulkhead`, policy.bulkhead, ["maxConcurrent", "maxQueued", "releaseOnTimeout"]);
    const merged = { ...DEFAULT_BULKHEAD_OPTIONS, ...policy.bulkhead };
    bulkhead = {
      maxConcurrent: checkNumber(`${field}.bulkhead.maxConcurrent`, merged.maxConcurrent, { min: 1, integer: true }),
      maxQueued: checkNumber(`${field}.bulkhead.maxQueued`, merged.maxQueued, { min: 0, integer: true }),
      releaseOnTimeout: merged.releaseOnTimeout,
    };
    if (typeof bulkhead.releaseOnTimeout !== "boolean") fail(`${field}.bulkhead.releaseOnTimeout`, bulkhead.releaseOnTimeout, "must be a boolean");
  }

  const maxCallsPerRun = checkNumber(`${field}.maxCallsPerRun`, policy.maxCallsPerRun ?? Number.POSITIVE_INFINITY, {
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
    retry,
    circuitBreaker,
    fallback,
    cache,
    sideEffects,
    idempotent,
    confirmWhen: checkFunction<ResolvedToolPolicy["confirmWhen"]>(`${field}.confirmWhen`, policy.confirmWhen),
    approve: checkFunction<ResolvedToolPolicy["approve"]>(`${field}.approve`, policy.approve),
    preview: checkFunction<ResolvedToolPolicy["preview"]>(`${field}.preview`, policy.preview),
    idempotencyKey,
    bulkhead,
    maxCallsPerRun,
    validate,
    sanitize: checkFunction<ResolvedToolPolicy["sanitize"]>(`${field}.sanitize`, policy.sanitize),
    checkResult: checkFunction<ResultCheck>(`${field}.checkResult`, policy.checkResult),
    resultChecks,
  });
}
