import { createHash } from "node:crypto";
import { DynamicTool } from "@langchain/core/tools";
import { createAgentMetrics } from "@reins/metrics";
import { describeRequiring } from "@reins/testing";
import { Registry } from "prom-client";
import { ToolExecutor, type ToolExecutorOptions } from "@reins/tool-executor";
import { Redis } from "ioredis";
import { startRedis } from "./__fixtures__/redis-server";
import { RedisResultStore, RedisStoreOperationError, RedisStoreOptionsError, type RedisClientLike } from "./index";

/** `my_orders` answers with the orders of the user the call's metadata names; counts its calls. */
function ordersTool(): { tool: DynamicTool; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    tool: new DynamicTool({
      name: "my_orders",
      description: "The user's orders",
      func: async (input, _runManager, config) => {
        const user = String(config?.metadata?.user_id);
        calls.push(`${user}:${input}`);
        return `orders of ${user} (${input})`;
      },
    }),
  };
}

function executorOn(store: RedisResultStore, ttlMs = 60_000, extra: Partial<ToolExecutorOptions> = {}): ToolExecutor {
  return new ToolExecutor({ ...extra, defaults: { cache: { store, ttlMs, scope: (context) => context.metadata?.user_id as string | undefined } } });
}

describe("RedisResultStore", () => {
  describe("with invalid options", () => {
    it("fails fast naming the field", () => {
      expect(() => new RedisResultStore({ client: {} as RedisClientLike, operationTimeoutMs: 0 })).toThrow(RedisStoreOptionsError);
      expect(() => new RedisResultStore({ client: {} as RedisClientLike, operationTimeoutMs: 0 })).toThrow(/"operationTimeoutMs"/);
    });
  });

  describe("with the app's own client", () => {
    it("adds no listener to it, however many stores share it (the app listens to its own client)", () => {
      const client = new Redis({ lazyConnect: true });
      try {
        const before = client.listenerCount("error");
        for (let index = 0; index < 5; index += 1) new RedisResultStore({ client });
        expect(client.listenerCount("error")).toBe(before);
      } finally {
        client.disconnect();
      }
    });
  });

  describe("with a Redis that never answers", () => {
    it("fails each operation after operationTimeoutMs with a typed error, counts and reports it, and leaves no timer", async () => {
      jest.useFakeTimers();
      try {
        const errors: RedisStoreOperationError[] = [];
        const hung: RedisClientLike = { get: () => new Promise(() => undefined), set: () => new Promise(() => undefined), del: () => new Promise(() => undefined) };
        const store = new RedisResultStore({ client: hung, operationTimeoutMs: 100, onError: (error) => errors.push(error) });
        const pending = store.get("k");
        const gotten = expect(pending).rejects.toThrow(/^Redis get failed: no answer within 100 ms\.$/);
        await jest.advanceTimersByTimeAsync(100);
        await gotten;
        const setting = store.set("k", { value: 1, storedAtMs: 0 }, 1000);
        const set = expect(setting).rejects.toBeInstanceOf(RedisStoreOperationError);
        await jest.advanceTimersByTimeAsync(100);
        await set;
        expect(store.failures).toEqual({ get: 1, set: 1, delete: 0, claim: 0, release: 0 });
        expect(errors.map((error) => [error.operation, RedisStoreOperationError.isInstance(error)])).toEqual([
          ["get", true],
          ["set", true],
        ]);
        expect(jest.getTimerCount()).toBe(0);
      } finally {
        jest.useRealTimers();
      }
    });
  });
});

describeRequiring([{ program: "redis-server" }], "RedisResultStore against a real redis-server", () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  const stores: RedisResultStore[] = [];
  const newStore = (options: ConstructorParameters<typeof RedisResultStore>[0] = {}): RedisResultStore => {
    const store = new RedisResultStore({ url: redis.url, ...options });
    stores.push(store);
    return store;
  };

  beforeEach(async () => {
    redis = await startRedis();
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await redis.stop();
  });

  describe("two executor instances (two agent processes) on one Redis", () => {
    it("share a scoped entry, keep scopes apart, and key it by the SHA-256 of the scoped input (never the input itself)", async () => {
      const first = ordersTool();
      const second = ordersTool();
      const [inProcessA] = executorOn(newStore()).wrap([first.tool]);
      const [inProcessB] = executorOn(newStore()).wrap([second.tool]);
      expect(await inProcessA.invoke("recent", { metadata: { user_id: "alice" } })).toBe("orders of alice (recent)");
      expect(await inProcessB.invoke("recent", { metadata: { user_id: "alice" } })).toBe("orders of alice (recent)");
      expect(await inProcessB.invoke("recent", { metadata: { user_id: "bob" } })).toBe("orders of bob (recent)");
      expect(first.calls).toEqual(["alice:recent"]);
      expect(second.calls).toEqual(["bob:recent"]);

      const raw = new Redis(redis.url);
      try {
        const keys = (await raw.keys("*")).sort();
        const hashed = (scoped: unknown[]): string => `reins:tool:sha256:${createHash("sha256").update(JSON.stringify(scoped)).digest("hex")}`;
        expect(keys).toEqual([hashed(["scope:alice", "my_orders", 's"recent"']), hashed(["scope:bob", "my_orders", 's"recent"'])].sort());
        expect(keys.join(" ")).not.toMatch(/recent|alice|bob/);
        const ttl = await raw.pttl(keys[0]);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);
      } finally {
        await raw.quit();
      }
    });
  });

  describe("an entry stored under a key whose scoped input differs (a hash collision, or a copied entry)", () => {
    it("is refused on read: the entry's key check does not match, so the tool is called", async () => {
      const orders = ordersTool();
      const store = newStore();
      const [wrapped] = executorOn(store).wrap([orders.tool]);
      await wrapped.invoke("recent", { metadata: { user_id: "alice" } });
      const raw = new Redis(redis.url);
      try {
        const [aliceKey] = await raw.keys("*");
        const bobKey = `reins:tool:sha256:${createHash("sha256").update(JSON.stringify(["scope:bob", "my_orders", 's"recent"'])).digest("hex")}`;
        // Plant alice's entry (with its key check) under bob's key, as a colliding hash would.
        await raw.set(bobKey, (await raw.get(aliceKey)) as string, "PX", 60_000);
      } finally {
        await raw.quit();
      }
      expect(await wrapped.invoke("recent", { metadata: { user_id: "bob" } })).toBe("orders of bob (recent)");
      expect(orders.calls).toEqual(["alice:recent", "bob:recent"]);
    });
  });

  describe("a lease planted without a TTL by another writer of the namespace", () => {
    it("is cut back to this reader's leaseMs, so a miss waits at most that long and the lease then lapses", async () => {
      const raw = new Redis(redis.url);
      try {
        await raw.set("reins:tool:lease:k", "planted");
        const store = newStore({ lease: { leaseMs: 200, leaseWaitMs: 5_000, leasePollMs: 20 } });
        const started = Date.now();
        expect(await store.claim("k")).toBeUndefined();
        // The claim took the lease once the repaired one lapsed: well before leaseWaitMs.
        expect(Date.now() - started).toBeLessThan(2_000);
        expect(await raw.get("reins:tool:lease:k")).not.toBe("planted");
        await store.release("k");
      } finally {
        await raw.quit();
      }
    });
  });

  describe("a claim after another process stored the entry and released its lease", () => {
    it("serves that entry (looked up again under the new lease) and leaves no lease behind", async () => {
      const writer = newStore();
      const late = newStore();
      // The late process missed before the writer stored; the writer has stored and released since.
      expect(await late.get("k")).toBeUndefined();
      expect(await writer.claim("k")).toBeUndefined();
      await writer.set("k", { value: "computed once", storedAtMs: Date.now() }, 60_000);
      await writer.release("k");
      expect(await late.claim("k")).toEqual({ value: "computed once", storedAtMs: expect.any(Number) });
      const raw = new Redis(redis.url);
      try {
        expect(await raw.exists("reins:tool:lease:k")).toBe(0);
      } finally {
        await raw.quit();
      }
    });
  });

  describe("an entry past its TTL", () => {
    it("is gone from Redis and the tool is called again", async () => {
      const orders = ordersTool();
      const store = newStore();
      const [wrapped] = executorOn(store, 50).wrap([orders.tool]);
      await wrapped.invoke("recent", { metadata: { user_id: "alice" } });
      await new Promise((resolve) => setTimeout(resolve, 120));
      const raw = new Redis(redis.url);
      try {
        expect(await raw.keys("*")).toEqual([]);
      } finally {
        await raw.quit();
      }
      await wrapped.invoke("recent", { metadata: { user_id: "alice" } });
      expect(orders.calls).toEqual(["alice:recent", "alice:recent"]);
    });
  });

  describe("when Redis stops mid-run", () => {
    it("runs the calls as if uncached, warns once for the outage, counts each failure in the metrics, and never throws into the agent", async () => {
      const orders = ordersTool();
      const warnings: string[] = [];
      const metrics = createAgentMetrics({ registry: new Registry() });
      const store = newStore();
      const [wrapped] = executorOn(store, 60_000, { metrics, logger: { warn: (message) => warnings.push(message) } }).wrap([orders.tool]);
      const alice = { metadata: { user_id: "alice" } };
      await wrapped.invoke("recent", alice);
      expect(await wrapped.invoke("recent", alice)).toBe("orders of alice (recent)");
      expect(orders.calls).toHaveLength(1);
      await redis.stop();
      expect(await wrapped.invoke("recent", alice)).toBe("orders of alice (recent)");
      expect(await wrapped.invoke("recent", alice)).toBe("orders of alice (recent)");
      expect(orders.calls).toHaveLength(3);
      expect(store.failures.get).toBe(2);
      expect(store.failures.set).toBe(2);
      // One warning for the outage (each failure is logged at debug and counted below).
      expect(warnings).toEqual([expect.stringMatching(/^the cache store failed on get for tool "my_orders"/)]);
      const exposition = await metrics.registry.metrics();
      expect(exposition).toMatch(/react_agent_store_outages_total\{store="result_store"\} 1/);
      expect(exposition).toMatch(/react_agent_store_down\{store="result_store"\} 1/);
      expect(exposition).toMatch(/react_agent_tool_cache_errors_total\{tool="my_orders",operation="get"\} 2/);
      expect(exposition).toMatch(/react_agent_tool_cache_errors_total\{tool="my_orders",operation="set"\} 2/);
    });
  });

  describe("when Redis is slow (blocked by DEBUG SLEEP)", () => {
    it("gives up after operationTimeoutMs and calls the tool", async () => {
      const orders = ordersTool();
      const store = newStore({ operationTimeoutMs: 100 });
      const [wrapped] = executorOn(store).wrap([orders.tool]);
      const alice = { metadata: { user_id: "alice" } };
      await wrapped.invoke("recent", alice);
      const blocker = new Redis(redis.url);
      try {
        await blocker.ping();
        const sleeping = blocker.call("DEBUG", "SLEEP", "1");
        expect(await wrapped.invoke("recent", alice)).toBe("orders of alice (recent)");
        expect(orders.calls).toHaveLength(2);
        expect(store.failures.get).toBeGreaterThanOrEqual(1);
        await sleeping;
      } finally {
        await blocker.quit();
      }
    });
  });
});
