import { describeRequiring } from "@reins/testing";
import { startRedis, type TestRedis } from "./__fixtures__/redis-server";
import { bundleReplica, runReplicas, startUpstream } from "./__fixtures__/fleet";

/**
 * Fleet cases: separate Node processes (an esbuild bundle of `__fixtures__/fleet-replica.ts`)
 * sharing one real redis-server, against a fake upstream service that counts what reaches it.
 */
describeRequiring([{ program: "redis-server" }], "a fleet of replicas on one Redis", () => {
  let redis: TestRedis;
  let bundle: string;

  beforeAll(async () => {
    bundle = await bundleReplica();
  });

  beforeEach(async () => {
    redis = await startRedis();
  });

  afterEach(async () => {
    await redis.stop();
  });

  it("10 replicas sharing a RedisCircuitStore let at most 14 requests reach a dead service in 8 s", async () => {
    const upstream = await startUpstream();
    try {
      const startAtMs = Date.now() + 3_000;
      const jobs = Array.from({ length: 10 }, () => ({
        mode: "breaker" as const,
        redisUrl: redis.url,
        upstreamUrl: upstream.url,
        durationMs: 8_000,
        intervalMs: 100,
        startAtMs,
        shared: true,
      }));
      const reports = await runReplicas(bundle, jobs);
      const arrivals = upstream.counts.deadArrivals;
      // Requests within 8 s of the first one (each replica calls for 8 s from the common start).
      const reached = arrivals.filter((at) => at - arrivals[0] < 8_000).length;
      const outcomes = reports.reduce<Record<string, number>>((sum, report) => {
        for (const [outcome, count] of Object.entries(report.outcomes)) sum[outcome] = (sum[outcome] ?? 0) + count;
        return sum;
      }, {});
      process.stdout.write(`breaker fleet: ${reached} requests reached the dead service in 8 s (${arrivals.length} in all); outcomes ${JSON.stringify(outcomes)}\n`);
      expect(reached).toBeGreaterThanOrEqual(3);
      expect(reached).toBeLessThanOrEqual(14);
      // Every replica saw the circuit open, and none saw a raw error past the threshold.
      expect(reports.every((report) => (report.outcomes.circuit_open ?? 0) > 0)).toBe(true);
      expect(outcomes.error).toBe(arrivals.length);
    } finally {
      await upstream.close();
    }
  }, 40_000);

  it("4 processes × 5 runs sharing a RateLimiterRedis of 10/s: at most 15 % of upstream requests get 429 and no call fails; a 429 with Retry-After: 1 is not retried sooner than 1 s", async () => {
    const upstream = await startUpstream(10);
    try {
      const jobs = Array.from({ length: 4 }, () => ({ mode: "quota" as const, redisUrl: redis.url, upstreamUrl: upstream.url, runs: 5, callsPerRun: 3, pointsPerSecond: 10 }));
      const reports = await runReplicas(bundle, jobs);
      const total = upstream.counts.requests["/quota"] ?? 0;
      const share = upstream.counts.rejected429 / total;
      const successes = reports.reduce((sum, report) => sum + (report.outcomes.success ?? 0), 0);
      const failures = reports.reduce((sum, report) => sum + Object.entries(report.outcomes).filter(([outcome]) => outcome !== "success").reduce((n, [, count]) => n + count, 0), 0);
      process.stdout.write(`quota fleet: ${upstream.counts.rejected429}/${total} upstream requests got 429 (${(share * 100).toFixed(1)} %); ${successes} calls succeeded, ${failures} failed\n`);
      expect(successes).toBe(60);
      expect(failures).toBe(0);
      expect(share).toBeLessThanOrEqual(0.15);
      // Retries of one call (same query) after a 429 came at least ~1 s later.
      const gaps = Object.values(upstream.counts.quotaArrivals).flatMap((arrivals) => arrivals.slice(1).map((at, index) => at - arrivals[index]));
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(990);
    } finally {
      await upstream.close();
    }
  }, 40_000);

  it("4 cold processes over 5 keys run the tool at most 6 times (a lease per key)", async () => {
    const upstream = await startUpstream();
    try {
      const keys = ["a", "b", "c", "d", "e"];
      const reports = await runReplicas(
        bundle,
        Array.from({ length: 4 }, () => ({ mode: "cache" as const, redisUrl: redis.url, upstreamUrl: upstream.url, keys })),
      );
      const runs = Object.values(upstream.counts.computed).reduce((sum, count) => sum + count, 0);
      process.stdout.write(`cache fleet: ${runs} tool runs for 4 processes × 5 keys (${JSON.stringify(upstream.counts.computed)})\n`);
      expect(Object.keys(upstream.counts.computed).sort()).toEqual(keys);
      expect(runs).toBeLessThanOrEqual(6);
      expect(reports.every((report) => (report.outcomes.success ?? 0) + (report.outcomes.cached ?? 0) === 5)).toBe(true);
    } finally {
      await upstream.close();
    }
  }, 40_000);
});
