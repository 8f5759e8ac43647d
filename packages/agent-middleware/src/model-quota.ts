import { brandReinsError } from "@reins/core";
import { estimateTokensFromChars } from "@reins/loop-control";
import { retryAfterMsOf } from "@reins/tool-executor";
import { createMiddleware, type AgentMiddleware } from "langchain";
import { AgentMiddlewareError, ReinsMiddlewareOptionsError } from "./errors";
import { textOf } from "./run-record";

/**
 * A model quota shared by a fleet of replicas: requests and tokens per window per key (the model's
 * name by default), taken through rate-limiter-flexible limiters (`RateLimiterRedis` for the fleet,
 * with a `RateLimiterMemory` `insuranceLimiter` to count locally while Redis is down) in
 * `wrapModelCall`. A provider 429 with `Retry-After` blocks the key in the requests limiter for
 * that long (`block`: one Redis key with an expiry), so every replica waits the cooldown out once
 * instead of each retrying on its own; then the call is made again. Waits are bounded by
 * `maxWaitMs` and by what is left of the run's `maxDurationMs`.
 *
 * Give the model `maxRetries: 0` (ChatOpenAI and most chat models retry 429s themselves before
 * the middleware sees them).
 */

/** The part of rate-limiter-flexible's `RateLimiterAbstract` the quota uses. */
export interface ModelQuotaLimiter {
  /** Takes points; rejects with a `RateLimiterRes` (`msBeforeNext`) when none are left, or with an `Error` when the store fails. */
  consume(key: string, points?: number): Promise<unknown>;
  /** Blocks the key for `secDuration` seconds (the fleet's cooldown). */
  block?(key: string, secDuration: number): Promise<unknown>;
  /** Adds points without refusing (tokens used beyond the estimate). */
  penalty?(key: string, points?: number): Promise<unknown>;
  /** Gives points back (tokens estimated beyond the use). */
  reward?(key: string, points?: number): Promise<unknown>;
}

/** What the `key` function receives. */
export interface ModelQuotaKeyContext {
  /** The model's name (`model`, `modelName` or `getName()` of the request's model), or `"model"`. */
  readonly modelName: string;
}

/** Options of {@link createModelQuotaMiddleware}. */
export interface ModelQuotaOptions {
  /** One point per model call. */
  readonly requests?: ModelQuotaLimiter;
  /** The request's tokens: estimated input tokens before the call, corrected with `usage_metadata` after. */
  readonly tokens?: ModelQuotaLimiter;
  /** The quota's key. @default the model's name */
  readonly key?: (context: ModelQuotaKeyContext) => string;
  /** Longest wait for a point (quota or cooldown), in ms. @default 60000 */
  readonly maxWaitMs?: number;
  /** The run's time budget (loop control's `maxDurationMs`), in ms: no wait goes past it (read with `state.reinsRun.activeMs`). @default Infinity */
  readonly maxDurationMs?: number;
  /** Calls made again after a 429 with `Retry-After` (each after the fleet's cooldown). @default 2 */
  readonly maxRetries?: number;
  /** Receives store failures (the quota then fails open). @default a process warning */
  readonly onError?: (error: unknown) => void;
  /** Clock, epoch ms. @default Date.now */
  readonly now?: () => number;
  /** Waits `ms` (tests inject one). @default a timer */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Defaults of {@link ModelQuotaOptions}. */
export const DEFAULT_MODEL_QUOTA_OPTIONS = Object.freeze({ maxWaitMs: 60_000, maxDurationMs: Infinity, maxRetries: 2 });

/** No point of the model quota could be had within the wait allowed (the model was not called). */
export class ModelQuotaExceededError extends AgentMiddlewareError {
  static {
    brandReinsError(this, "agent-middleware", "ModelQuotaExceededError");
  }

  readonly key: string;
  /** How long the quota asked to wait, in ms. */
  readonly retryAfterMs: number;

  constructor(options: { key: string; retryAfterMs: number; message?: string; cause?: unknown }) {
    super({ message: options.message ?? `The model quota for "${options.key}" has no room for ${options.retryAfterMs} ms, longer than the wait allowed (maxWaitMs or the run's time budget).`, cause: options.cause });
    this.name = "ModelQuotaExceededError";
    this.key = options.key;
    this.retryAfterMs = options.retryAfterMs;
  }
}

function modelNameOf(model: unknown): string {
  if (model === null || typeof model !== "object") return "model";
  const record = model as { model?: unknown; modelName?: unknown; getName?: () => string };
  if (typeof record.model === "string" && record.model !== "") return record.model;
  if (typeof record.modelName === "string" && record.modelName !== "") return record.modelName;
  return typeof record.getName === "function" ? record.getName() : "model";
}

function msBeforeNextOf(rejection: unknown): number | undefined {
  if (rejection instanceof Error || rejection === null || typeof rejection !== "object") return undefined;
  const ms = (rejection as { msBeforeNext?: unknown }).msBeforeNext;
  return typeof ms === "number" && Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

function positive(field: string, value: unknown, allowZero = false): void {
  if (value === undefined) return;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0 || (!allowZero && value === 0)) {
    throw new ReinsMiddlewareOptionsError({ field: `modelQuota.${field}`, reason: "must be a positive number" });
  }
}

/**
 * The fleet model quota as a `createAgent` middleware; put it after `createReinsMiddleware` so
 * that the run's time budget is known.
 *
 * @throws {ReinsMiddlewareOptionsError} when an option is invalid (names the field)
 * @throws {ModelQuotaExceededError} from a model call that cannot get a point in time
 * @example
 * ```ts
 * const redis = new Redis();
 * const requests = new RateLimiterRedis({ storeClient: redis, keyPrefix: "model-rpm", points: 500, duration: 60, insuranceLimiter: new RateLimiterMemory({ points: 50, duration: 60 }) });
 * const agent = createAgent({ model: new ChatOpenAI({ model: "gpt-4o-mini", maxRetries: 0 }), tools, middleware: [createReinsMiddleware(), createModelQuotaMiddleware({ requests })] });
 * ```
 */
export function createModelQuotaMiddleware(options: ModelQuotaOptions): AgentMiddleware {
  if (options === null || typeof options !== "object") throw new ReinsMiddlewareOptionsError({ field: "modelQuota", reason: "must be an options object" });
  for (const field of ["requests", "tokens"] as const) {
    const limiter = options[field];
    if (limiter !== undefined && typeof limiter?.consume !== "function") throw new ReinsMiddlewareOptionsError({ field: `modelQuota.${field}`, reason: "must have consume(key, points) (a rate-limiter-flexible limiter)" });
  }
  if (options.requests === undefined && options.tokens === undefined) throw new ReinsMiddlewareOptionsError({ field: "modelQuota", reason: "needs requests or tokens (a limiter)" });
  positive("maxWaitMs", options.maxWaitMs, true);
  positive("maxDurationMs", options.maxDurationMs);
  positive("maxRetries", options.maxRetries, true);
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MODEL_QUOTA_OPTIONS.maxWaitMs;
  const maxDurationMs = options.maxDurationMs ?? DEFAULT_MODEL_QUOTA_OPTIONS.maxDurationMs;
  const maxRetries = options.maxRetries ?? DEFAULT_MODEL_QUOTA_OPTIONS.maxRetries;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const onError = options.onError ?? ((error: unknown) => process.emitWarning(error instanceof Error ? error : new Error(String(error))));

  /** Takes `points` of `limiter`, waiting while the wait ends before `deadlineMs`; fails open on a store failure. */
  const take = async (limiter: ModelQuotaLimiter, key: string, points: number, deadlineMs: number): Promise<void> => {
    for (;;) {
      try {
        await limiter.consume(key, points);
        return;
      } catch (rejection) {
        const waitMs = msBeforeNextOf(rejection);
        if (waitMs === undefined) {
          onError(new Error(`The model quota's limiter failed for "${key}"; calling the model without it.`, { cause: rejection }));
          return;
        }
        if (now() + waitMs > deadlineMs) throw new ModelQuotaExceededError({ key, retryAfterMs: waitMs });
        await sleep(waitMs);
      }
    }
  };

  return createMiddleware({
    name: "ReinsModelQuota",
    wrapModelCall: async (request, handler) => {
      const key = options.key === undefined ? modelNameOf(request.model) : options.key({ modelName: modelNameOf(request.model) });
      const run = (request.state as { reinsRun?: { activeMs?: number } } | undefined)?.reinsRun;
      const runLeftMs = Number.isFinite(maxDurationMs) ? Math.max(0, maxDurationMs - (run?.activeMs ?? 0)) : Infinity;
      const deadlineMs = now() + Math.min(maxWaitMs, runLeftMs);
      const estimate = options.tokens === undefined ? 0 : Math.max(1, estimateTokensFromChars((request.messages ?? []).map(textOf).join("\n")));
      for (let attempt = 0; ; attempt += 1) {
        if (options.requests !== undefined) await take(options.requests, key, 1, deadlineMs);
        if (options.tokens !== undefined) await take(options.tokens, key, estimate, deadlineMs);
        let response: Awaited<ReturnType<typeof handler>>;
        try {
          response = await handler(request);
        } catch (error) {
          const retryAfterMs = retryAfterMsOf(error, now());
          if (retryAfterMs === undefined || attempt >= maxRetries) throw error;
          // The fleet's cooldown: one block of the key, seen by every replica's next consume.
          const cooldown = options.requests ?? options.tokens;
          try {
            await cooldown?.block?.(key, Math.max(retryAfterMs, 1) / 1000);
          } catch (blockError) {
            onError(new Error(`The model quota failed to block "${key}" for the provider's Retry-After.`, { cause: blockError }));
          }
          if (now() + retryAfterMs > deadlineMs) throw new ModelQuotaExceededError({ key, retryAfterMs, cause: error });
          if (typeof cooldown?.block !== "function") await sleep(retryAfterMs);
          continue;
        }
        const usage = (response as { usage_metadata?: { input_tokens?: number; output_tokens?: number } }).usage_metadata;
        if (options.tokens !== undefined && usage !== undefined) {
          const used = (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0);
          try {
            if (used > estimate) await options.tokens.penalty?.(key, used - estimate);
            else if (used < estimate) await options.tokens.reward?.(key, estimate - used);
          } catch (error) {
            onError(new Error(`The model quota's token limiter failed to record the reply's usage for "${key}".`, { cause: error }));
          }
        }
        return response;
      }
    },
  });
}
