import { DEFAULT_RETRY_OPTIONS, MAX_TIMER_MS, ToolExecutorOptionsError, mergeToolPolicies, resolveToolExecutorOptions, resolveToolPolicy } from "./index";

function fieldOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    if (ToolExecutorOptionsError.isInstance(error)) return error.field;
    throw error;
  }
  return undefined;
}

describe("resolveToolPolicy", () => {
  describe("with no layers", () => {
    it("applies the documented defaults", () => {
      const policy = resolveToolPolicy(undefined, undefined);
      expect(policy).toMatchObject({
        timeoutMs: 30_000,
        deadlineMs: 30_000,
        retry: { maxAttempts: 3, initialDelayMs: 250, maxDelayMs: 4000, jitter: "decorrelated" },
        circuitBreaker: { failureThreshold: 5, halfOpenAfterMs: 30_000 },
        fallback: undefined,
        cache: undefined,
        bulkhead: undefined,
        sideEffects: false,
        idempotent: false,
        idempotencyKey: undefined,
        maxCallsPerRun: Number.POSITIVE_INFINITY,
      });
      expect(policy.resultChecks).toMatchObject({ httpStatus: true, jsonBody: true, errorFields: true });
    });
  });

  describe("with defaults and a per-tool override", () => {
    it("merges sections key by key and lets false turn a section off", () => {
      const policy = resolveToolPolicy(
        { timeoutMs: 5000, retry: { maxAttempts: 5 }, cache: { ttlMs: 1000 } },
        { retry: { initialDelayMs: 10 }, cache: false, bulkhead: { maxConcurrent: 2 } },
        "policies.search",
      );
      expect(policy.timeoutMs).toBe(5000);
      expect(policy.retry).toMatchObject({ maxAttempts: 5, initialDelayMs: 10, maxDelayMs: DEFAULT_RETRY_OPTIONS.maxDelayMs });
      expect(policy.cache).toBeUndefined();
      expect(policy.bulkhead).toEqual({ maxConcurrent: 2, maxQueued: 0, releaseOnTimeout: false });
    });

    it("makes side-effect tools non-idempotent (no retry) and keyed for idempotency by default", () => {
      const policy = resolveToolPolicy(undefined, { sideEffects: true });
      expect(policy.idempotent).toBe(false);
      expect(policy.retry).toBeUndefined();
      expect(policy.idempotencyKey).toBe(true);
    });

    it("keeps a fallback object whole instead of merging it", () => {
      expect(mergeToolPolicies({ fallback: { message: "a" } }, { fallback: { tool: "b" } }).fallback).toEqual({ tool: "b" });
    });
  });

  describe("with invalid values", () => {
    it.each([
      [{ timeoutMs: 0 }, "policies.x.timeoutMs"],
      [{ timeoutMs: "fast" }, "policies.x.timeoutMs"],
      [{ retry: { maxAttempts: 1.5 } }, "policies.x.retry.maxAttempts"],
      [{ retry: { initialDelayMs: 500, maxDelayMs: 100 } }, "policies.x.retry.maxDelayMs"],
      [{ retry: { jitter: "random" } }, "policies.x.retry.jitter"],
      [{ retry: { attempts: 3 } }, "policies.x.retry.attempts"],
      [{ circuitBreaker: { failureThreshold: 0 } }, "policies.x.circuitBreaker.failureThreshold"],
      [{ cache: { ttlMs: -1 } }, "policies.x.cache.ttlMs"],
      [{ cache: { store: {} } }, "policies.x.cache.store"],
      [{ bulkhead: { maxQueued: -1 } }, "policies.x.bulkhead.maxQueued"],
      [{ bulkhead: { releaseOnTimeout: "yes" } }, "policies.x.bulkhead.releaseOnTimeout"],
      [{ maxCallsPerRun: 0 }, "policies.x.maxCallsPerRun"],
      [{ fallback: 42 }, "policies.x.fallback"],
      [{ resultChecks: { requiredFields: [""] } }, "policies.x.resultChecks.requiredFields"],
      [{ timeout: 100 }, "policies.x.timeout"],
      [{ sideEffects: true, cache: true }, "policies.x.cache"],
      [{ timeoutMs: Number.NaN }, "policies.x.timeoutMs"],
      [{ timeoutMs: -Infinity }, "policies.x.timeoutMs"],
      [{ timeoutMs: 3_000_000_000 }, "policies.x.timeoutMs"],
      [{ retry: { maxDelayMs: 5_000_000_000 } }, "policies.x.retry.maxDelayMs"],
      [{ retry: { initialDelayMs: Number.NaN } }, "policies.x.retry.initialDelayMs"],
    ])("rejects %p naming %s", (override, field) => {
      expect(fieldOf(() => resolveToolPolicy(undefined, override as never, "policies.x"))).toBe(field);
    });

    it("names NaN as NaN in the message (JSON would print null)", () => {
      expect(() => resolveToolPolicy(undefined, { timeoutMs: Number.NaN }, "policies.x")).toThrow(/must be a number \(got NaN\)/);
    });

    it("accepts Infinity (no deadline) and the longest timer delay", () => {
      expect(resolveToolPolicy(undefined, { timeoutMs: Number.POSITIVE_INFINITY }).timeoutMs).toBe(Number.POSITIVE_INFINITY);
      expect(resolveToolPolicy(undefined, { timeoutMs: MAX_TIMER_MS }).timeoutMs).toBe(MAX_TIMER_MS);
    });
  });
});

describe("resolveToolExecutorOptions", () => {
  describe("with invalid options", () => {
    it.each([
      [{ policies: { search: { timeoutMs: -5 } } }, "policies.search.timeoutMs"],
      [{ defaults: { retry: { maxAttempts: 0 } } }, "defaults.retry.maxAttempts"],
      [{ metrics: {} }, "metrics"],
      [{ maxTrackedRuns: 0 }, "maxTrackedRuns"],
      [{ formatObservation: "json" }, "formatObservation"],
      [{ timeoutMs: 5 }, "timeoutMs"],
    ])("fails fast on %p naming %s", (options, field) => {
      expect(fieldOf(() => resolveToolExecutorOptions(options as never))).toBe(field);
    });
  });
});
