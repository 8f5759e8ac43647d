import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeRequiring } from "@reins/testing";
import { Redis } from "ioredis";
import { startRedis, type TestRedis } from "./__fixtures__/redis-server";
import { bundleSideEffectReplica, runSideEffectReplica, type ReplicaEnd } from "./__fixtures__/side-effect-fleet";
import type { KillPoint, SideEffectJob } from "./__fixtures__/side-effect-replica";

/**
 * Several Node processes race on one side-effect call (same thread, tool call id and input)
 * through a RedisSideEffectLedger on a real redis-server; the "payment provider" is a file each
 * effect appends a line to. A first replica is killed (SIGKILL) at one point of the call; then 5
 * replicas resume the same call at once.
 */
describeRequiring([{ program: "redis-server" }], "RedisSideEffectLedger across processes", () => {
  let redis: TestRedis;
  let bundle: string;
  let client: Redis;
  let effectsFile: string;

  beforeAll(async () => {
    bundle = await bundleSideEffectReplica();
  }, 30_000);

  beforeEach(async () => {
    redis = await startRedis();
    client = new Redis(redis.url);
    effectsFile = join(mkdtempSync(join(tmpdir(), "reins-effects-")), "effects.log");
  });

  afterEach(async () => {
    client.disconnect();
    await redis.stop();
  });

  const job = (killAt?: KillPoint): SideEffectJob => ({ redisUrl: redis.url, effectsFile, threadId: "thread-1", toolCallId: "call_pay_1", amount: 10, deadlineMs: 5_000, ...(killAt !== undefined ? { killAt } : {}) });
  const effects = (): string[] => (existsSync(effectsFile) ? readFileSync(effectsFile, "utf8").trim().split("\n").filter((line) => line !== "") : []);
  const race = (count: number): Promise<ReplicaEnd[]> => Promise.all(Array.from({ length: count }, () => runSideEffectReplica(bundle, job())));
  const outcomes = (ends: ReplicaEnd[]): unknown[] => ends.map((end) => ("report" in end ? end.report.outcome : end.signal));
  /** Ends the dead holder's lease now (what Redis' PX expiry does after deadlineMs + 5 s), so the test does not wait. */
  const expireLeases = async (): Promise<void> => {
    const leases = await client.keys("reins:side-effect:*:lease");
    if (leases.length > 0) await client.del(...leases);
  };

  it("8 processes racing on one call: the tool runs once, every process gets the same ToolMessage content", async () => {
    const ends = await race(8);
    expect(effects()).toHaveLength(1);
    expect(ends).toEqual(Array(8).fill({ report: { content: "Paid 10 EUR.", outcome: "success" } }));
  }, 60_000);

  it.each<[KillPoint, number, string]>([
    ["before_claim", 1, "success"],
    ["after_claim", 0, "in_doubt"],
    ["after_effect", 1, "in_doubt"],
    ["after_result", 1, "success"],
  ])("a holder killed %s, then 5 processes resuming at once: %i effect(s) in all, each resumer gets %s", async (killAt, expectedEffects, expectedOutcome) => {
    const first = await runSideEffectReplica(bundle, job(killAt));
    expect(first).toEqual({ signal: "SIGKILL" });
    await expireLeases();
    const ends = await race(5);
    expect(effects()).toHaveLength(expectedEffects);
    expect(outcomes(ends)).toEqual(Array(5).fill(expectedOutcome));
    if (expectedOutcome === "in_doubt") for (const end of ends) expect("report" in end && end.report.content).toMatch(/MAY ALREADY HAVE HAPPENED/);
    // Every effect carried the same idempotency key (thread + call id), for the provider to dedupe.
    expect(new Set(effects().map((line) => line.split(" ")[2])).size).toBeLessThanOrEqual(1);
  }, 60_000);
});
