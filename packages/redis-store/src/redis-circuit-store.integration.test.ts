import { createHash } from "node:crypto";
import { DynamicTool } from "@langchain/core/tools";
import type { ReinsEvent } from "@reins/core";
import { describeRequiring } from "@reins/testing";
import { ToolExecutor } from "@reins/tool-executor";
import { createClient } from "@redis/client";
import { createAgentMetrics } from "@reins/metrics";
import { Registry } from "prom-client";
import { Redis } from "ioredis";
import { startRedis, type TestRedis } from "./__fixtures__/redis-server";
import { RedisCircuitStore, RedisResultStore, RedisStoreOptionsError } from "./index";

/** A tool whose service is down (503), counting the requests that reach it. */
function deadService(name = "payments"): { tool: DynamicTool; reached: () => number } {
  let reached = 0;
  return {
    reached: () => reached,
    tool: new DynamicTool({
      name,
      description: name,
      func: async () => {
        reached += 1;
        throw Object.assign(new Error("Service Unavailable"), { status: 503 });
      },
    }),
  };
}

async function timedInvoke(call: () => Promise<unknown>): Promise<{ answer: string; ms: number }> {
  const started = Date.now();
  const answer = String(await call());
  return { answer, ms: Date.now() - started };
}

describe("RedisCircuitStore options", () => {
  it("fails fast naming the field", () => {
    expect(() => new RedisCircuitStore({ client: {} as never })).toThrow(RedisStoreOptionsError);
    expect(() => new RedisCircuitStore({ client: {} as never })).toThrow(/Invalid RedisCircuitStore option "client"/);
    expect(() => new RedisCircuitStore({ client: { call: async () => null }, operationTimeoutMs: -1 })).toThrow(/"operationTimeoutMs"/);
  });
});

describeRequiring([{ program: "redis-server" }], "RedisCircuitStore against a real redis-server", () => {
  let redis: TestRedis;
  const clients: Redis[] = [];
  const newClient = (): Redis => {
    const client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 250, lazyConnect: false });
    client.on("error", () => undefined);
    clients.push(client);
    return client;
  };
  const ready = (client: Redis): Promise<unknown> => (client.status === "ready" ? Promise.resolve() : new Promise((resolve) => client.once("ready", resolve)));
  /**
   * Ends the open window of `key`'s circuit now, as if its halfOpenAfterMs had passed: the windows
   * are a minute long, so no call lands after one by chance on a slow machine, and none is waited out.
   */
  const endOpenWindow = async (key: string): Promise<void> => {
    const raw = newClient();
    await ready(raw);
    expect(Number(await raw.hget(key, "openUntil"))).toBeGreaterThan(0);
    await raw.hset(key, "openUntil", 1);
  };

  beforeEach(async () => {
    redis = await startRedis();
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await redis.stop();
  });

  it("opens for every replica together and lets one probe per window through the fleet", async () => {
    const events: ReinsEvent[] = [];
    const services = [deadService(), deadService(), deadService()];
    const replicas = await Promise.all(
      services.map(async (service) => {
        const client = newClient();
        await ready(client);
        const store = new RedisCircuitStore({ client, keyPrefix: "test:circuit:" });
        const executor = new ToolExecutor({ onEvent: (event) => events.push(event), policies: { payments: { retry: false, circuitBreaker: { failureThreshold: 2, halfOpenAfterMs: 60_000, store } } } });
        return { executor, tool: executor.wrap([service.tool])[0] };
      }),
    );
    const reachedTotal = (): number => services.reduce((sum, service) => sum + service.reached(), 0);
    await replicas[0].tool.invoke("a");
    await replicas[1].tool.invoke("a");
    // Two failures from two replicas opened it: the third replica is refused without a request.
    expect(String(await replicas[2].tool.invoke("a"))).toMatch(/unavailable right now/);
    expect(reachedTotal()).toBe(2);
    // A replica learns the shared state at its next call: the first has not called since.
    expect(replicas.map((replica) => replica.executor.circuitStateOf("payments"))).toEqual(["closed", "open", "open"]);
    await endOpenWindow("test:circuit:{payments}");
    // All replicas at once after the window: exactly one probe reaches the service.
    await Promise.all(replicas.map((replica) => replica.tool.invoke("a")));
    expect(reachedTotal()).toBe(3);
    const raw = newClient();
    await ready(raw);
    expect((await raw.keys("*")).sort()).toEqual(["test:circuit:{payments}"]);
    expect(await raw.pttl("test:circuit:{payments}")).toBeGreaterThan(0);
  });

  it("bounds a planted state by its own halfOpenAfterMs: openUntil ten years ahead, or a probe lease without TTL, holds one window at most", async () => {
    const client = newClient();
    await ready(client);
    const raw = newClient();
    await ready(raw);
    const tenYearsMs = 10 * 365 * 24 * 3_600_000;
    await raw.hset("reins:circuit:{search}", "openUntil", String(Date.now() + tenYearsMs), "failures", "0");
    const store = new RedisCircuitStore({ client });
    const settings = { failureThreshold: 2, halfOpenAfterMs: 200 };
    const first = await store.acquire("search", settings);
    expect(first.state).toBe("open");
    expect(first.state === "open" && first.retryAfterMs).toBeLessThanOrEqual(200);
    // Repaired in Redis: the hash got a TTL and an openUntil within one window.
    expect(await raw.pttl("reins:circuit:{search}")).toBeGreaterThan(0);
    expect(Number(await raw.hget("reins:circuit:{search}", "openUntil"))).toBeLessThanOrEqual(Date.now() + 1_000);
    await new Promise((resolve) => setTimeout(resolve, 250));
    // A probe lease planted without a TTL is cut back too: the next window lets a probe through.
    await raw.set("reins:circuit:{search}:probe", "planted");
    const blocked = await store.acquire("search", settings);
    expect(blocked.state === "open" && blocked.retryAfterMs).toBeLessThanOrEqual(200);
    expect(await raw.pttl("reins:circuit:{search}:probe")).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await store.acquire("search", settings)).state).toBe("half_open");
  });

  it("closes for the fleet when the probe succeeds; validation errors and 4xx answers do not count", async () => {
    let healthy = false;
    let reached = 0;
    const flaky = new DynamicTool({
      name: "search",
      description: "search",
      func: async (input) => {
        reached += 1;
        if (input === "bad") throw Object.assign(new Error("Not Found"), { status: 404 });
        if (!healthy) throw Object.assign(new Error("Bad Gateway"), { status: 502 });
        return "ok";
      },
    });
    const client = newClient();
    await ready(client);
    const store = new RedisCircuitStore({ client });
    const executor = new ToolExecutor({ policies: { search: { retry: false, circuitBreaker: { failureThreshold: 2, halfOpenAfterMs: 60_000, store } } } });
    const [search] = executor.wrap([flaky]);
    for (let index = 0; index < 5; index += 1) await search.invoke("bad");
    expect(executor.circuitStateOf("search")).toBe("closed");
    await search.invoke("x");
    await search.invoke("x");
    expect(executor.circuitStateOf("search")).toBe("open");
    healthy = true;
    await endOpenWindow("reins:circuit:{search}");
    expect(await search.invoke("x")).toBe("ok");
    expect(executor.circuitStateOf("search")).toBe("closed");
    expect(reached).toBe(8);
  });

  it("works with a node-redis client (@redis/client 6): the circuit scripts, the cache and its lease", async () => {
    const nodeRedis = createClient({ url: redis.url });
    nodeRedis.on("error", () => undefined);
    await nodeRedis.connect();
    try {
      const store = new RedisCircuitStore({ client: nodeRedis });
      const settings = { failureThreshold: 1, halfOpenAfterMs: 10_000 };
      expect(await store.acquire("search", settings)).toEqual({ state: "closed" });
      expect(await store.record("search", { state: "closed" }, "failure", settings)).toBe("open");
      const permit = await store.acquire("search", settings);
      expect(permit.state).toBe("open");
      expect(permit.state === "open" && permit.retryAfterMs).toBeGreaterThan(9_000);

      let runs = 0;
      const results = new RedisResultStore({ client: nodeRedis });
      const lookup = new DynamicTool({ name: "lookup", description: "lookup", func: async (input) => `value ${input} #${(runs += 1)}` });
      const [first] = new ToolExecutor({ policies: { lookup: { cache: { store: results, ttlMs: 60_000, scope: "global" } } } }).wrap([lookup]);
      const [second] = new ToolExecutor({ policies: { lookup: { cache: { store: results, ttlMs: 60_000, scope: "global" } } } }).wrap([lookup]);
      expect(await first.invoke("k")).toBe("value k #1");
      expect(await second.invoke("k")).toBe("value k #1");
      expect(runs).toBe(1);
      expect(results.failures).toEqual({ get: 0, set: 0, delete: 0, claim: 0, release: 0 });
      const hashedKey = `sha256:${createHash("sha256").update(JSON.stringify(["global", "lookup", 's"k"'])).digest("hex")}`;
      expect(await nodeRedis.pTTL(`reins:tool:${hashedKey}`)).toBeGreaterThan(59_000);
      expect(await nodeRedis.exists(`reins:tool:lease:${hashedKey}`)).toBe(0);
    } finally {
      nodeRedis.destroy();
    }
  });

  for (const fault of ["killed", "paused", "slow"] as const) {
    it(`answers each call within 2 s while Redis is ${fault}, falls back to the local breaker and emits circuit_store_error`, async () => {
      const events: ReinsEvent[] = [];
      const service = deadService();
      const client = newClient();
      await ready(client);
      const store = new RedisCircuitStore({ client, operationTimeoutMs: 200 });
      const metrics = createAgentMetrics({ registry: new Registry() });
      const executor = new ToolExecutor({ metrics, onEvent: (event) => events.push(event), policies: { payments: { retry: false, circuitBreaker: { failureThreshold: 2, halfOpenAfterMs: 30_000, store } } } });
      const [payments] = executor.wrap([service.tool]);
      await payments.invoke("a");
      if (fault === "killed") await redis.stop();
      if (fault === "paused") redis.pause();
      if (fault === "slow") {
        const blocker = newClient();
        await ready(blocker);
        void blocker.call("DEBUG", "SLEEP", "3").catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      try {
        const answers = [];
        for (let index = 0; index < 4; index += 1) answers.push(await timedInvoke(() => payments.invoke("a")));
        expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(2_000);
        // The local breaker took over: two failures opened it, the rest were refused without a request.
        expect(service.reached()).toBe(3);
        expect(answers.at(-1)?.answer).toMatch(/unavailable right now/);
        expect(executor.circuitStateOf("payments")).toBe("open");
        const storeErrors = events.filter((event) => event.type === "circuit_store_error");
        expect(storeErrors.length).toBeGreaterThanOrEqual(4);
        expect(store.failures.acquire).toBeGreaterThanOrEqual(4);
        expect(await metrics.registry.metrics()).toMatch(new RegExp(`react_agent_circuit_store_errors_total\\{tool="payments",operation="acquire"\\} ${store.failures.acquire}\\n`));
        if (fault !== "killed") {
          // Redis answers again (a PING with no timeout returns once its sleep is over, or once it
          // runs again after resume): the shared state decides again, with no further store error.
          if (fault === "paused") redis.resume();
          const waiting = new Redis(redis.url, { maxRetriesPerRequest: 0 });
          try {
            await waiting.ping();
          } finally {
            waiting.disconnect();
          }
          const failuresBefore = store.failures.acquire;
          await payments.invoke("a");
          expect(store.failures.acquire).toBe(failuresBefore);
          expect(events.filter((event) => event.type === "circuit_store_error")).toHaveLength(storeErrors.length);
        }
      } finally {
        if (fault === "paused") redis.resume();
      }
    });
  }

  it("answers a cached call within 2 s while Redis is paused (lease and get fail open)", async () => {
    let runs = 0;
    const lookup = new DynamicTool({ name: "lookup", description: "lookup", func: async (input) => `value ${input} #${(runs += 1)}` });
    const store = new RedisResultStore({ url: redis.url, operationTimeoutMs: 200 });
    try {
      const [wrapped] = new ToolExecutor({ policies: { lookup: { cache: { store, ttlMs: 60_000, scope: "global" } } } }).wrap([lookup]);
      expect(await wrapped.invoke("k")).toBe("value k #1");
      redis.pause();
      const answer = await timedInvoke(() => wrapped.invoke("other"));
      redis.resume();
      expect(answer.answer).toBe("value other #2");
      expect(answer.ms).toBeLessThan(2_000);
    } finally {
      redis.resume();
      await store.close();
    }
  });
});
