import { describeRequiring } from "@reins/testing";
import { Redis } from "ioredis";
import { startRedis, type TestRedis } from "./__fixtures__/redis-server";
import { RedisSideEffectLedger, RedisStoreOperationError, RedisStoreOptionsError } from "./index";

describe("RedisSideEffectLedger options", () => {
  it("refuses a client that can send no raw command, naming the field", () => {
    expect(() => new RedisSideEffectLedger({ client: {} as never })).toThrow(RedisStoreOptionsError);
    expect(() => new RedisSideEffectLedger({ client: {} as never })).toThrow(/client/);
  });
});

describeRequiring([{ program: "redis-server" }], "RedisSideEffectLedger against a real redis-server", () => {
  let redis: TestRedis;
  let client: Redis;

  beforeEach(async () => {
    redis = await startRedis();
    client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    client.on("error", () => undefined);
  });

  afterEach(async () => {
    client.disconnect();
    await redis.stop();
  });

  const result = { observation: "Paid 10 EUR.", outcome: "success" as const };

  describe("with an ioredis client", () => {
    it("claims a free key, answers held to another holder, done with the stored result after complete", async () => {
      const ledger = new RedisSideEffectLedger({ client });
      expect(await ledger.claim("k", "a", 10_000)).toEqual({ state: "claimed" });
      expect(await ledger.claim("k", "a", 10_000)).toEqual({ state: "claimed" });
      expect(await ledger.claim("k", "b", 10_000)).toEqual({ state: "held" });
      expect(await ledger.complete("k", "b", result, 60_000)).toBe(false);
      expect(await ledger.complete("k", "a", result, 60_000)).toBe(true);
      expect(await ledger.claim("k", "b", 10_000)).toEqual({ state: "done", result });
      expect(await ledger.complete("k", "a", { observation: "again", outcome: "success" }, 60_000)).toBe(false);
    });

    it("a claim whose lease expired without a result is in doubt; takeOver claims it; the late holder cannot complete after a take-over", async () => {
      const ledger = new RedisSideEffectLedger({ client });
      await ledger.claim("k", "dead", 1);
      await client.del("reins:side-effect:{k}:lease");
      expect(await ledger.claim("k", "b", 10_000)).toEqual({ state: "in_doubt" });
      expect(await ledger.takeOver("k", "b", 10_000)).toEqual({ state: "claimed" });
      expect(await ledger.complete("k", "dead", result, 60_000)).toBe(false);
      expect(await ledger.complete("k", "b", result, 60_000)).toBe(true);
    });

    it("a holder whose lease lapsed can still store its result (as long as no one took over)", async () => {
      const ledger = new RedisSideEffectLedger({ client });
      await ledger.claim("k", "slow", 10_000);
      await client.del("reins:side-effect:{k}:lease");
      expect(await ledger.complete("k", "slow", result, 60_000)).toBe(true);
      expect(await ledger.claim("k", "b", 10_000)).toEqual({ state: "done", result });
    });

    it("release frees the key (the tool never started), only for its holder", async () => {
      const ledger = new RedisSideEffectLedger({ client });
      await ledger.claim("k", "a", 10_000);
      await ledger.release("k", "b");
      expect(await ledger.claim("k", "b", 10_000)).toEqual({ state: "held" });
      await ledger.release("k", "a");
      expect(await ledger.claim("k", "b", 10_000)).toEqual({ state: "claimed" });
    });

    it("keeps the first confirmation token of a key", async () => {
      const ledger = new RedisSideEffectLedger({ client });
      expect(await ledger.peekConfirmationToken("t")).toBeUndefined();
      expect(await ledger.confirmationToken("t", "ok-1", 60_000)).toBe("ok-1");
      expect(await ledger.confirmationToken("t", "ok-2", 60_000)).toBe("ok-1");
      expect(await ledger.peekConfirmationToken("t")).toBe("ok-1");
    });

    it("adds no listener to the app's client", () => {
      const before = client.listenerCount("error");
      new RedisSideEffectLedger({ client });
      expect(client.listenerCount("error")).toBe(before);
    });

    it("fails a call within operationTimeoutMs when Redis does not answer (paused), with a RedisStoreOperationError", async () => {
      const ledger = new RedisSideEffectLedger({ client, operationTimeoutMs: 200 });
      await client.ping();
      redis.pause();
      try {
        const startedAt = Date.now();
        await expect(ledger.claim("k", "a", 10_000)).rejects.toBeInstanceOf(RedisStoreOperationError);
        expect(Date.now() - startedAt).toBeLessThan(2_000);
      } finally {
        redis.resume();
      }
    });
  });

  describe("with a node-redis-shaped client (sendCommand)", () => {
    it("sends the same scripts through sendCommand([command, ...args])", async () => {
      const commands: string[] = [];
      const nodeRedisLike = {
        sendCommand: (args: string[]) => (commands.push(args[0] ?? ""), client.call(args[0] ?? "", ...args.slice(1))),
      };
      const ledger = new RedisSideEffectLedger({ client: nodeRedisLike });
      expect(await ledger.claim("n", "a", 10_000)).toEqual({ state: "claimed" });
      expect(await ledger.complete("n", "a", result, 60_000)).toBe(true);
      expect(await ledger.claim("n", "b", 10_000)).toEqual({ state: "done", result });
      expect(commands).toEqual(["EVAL", "EVAL", "EVAL"]);
    });
  });
});
