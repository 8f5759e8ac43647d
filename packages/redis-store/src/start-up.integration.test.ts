import { createConnection, createServer, type Server, type Socket } from "node:net";
import { DynamicTool } from "@langchain/core/tools";
import type { ReinsEvent } from "@reins/core";
import { describeRequiring } from "@reins/testing";
import { ToolExecutor } from "@reins/tool-executor";
import { Redis } from "ioredis";
import { startRedis, type TestRedis } from "./__fixtures__/redis-server";
import { RedisCircuitStore, RedisResultStore } from "./index";

/**
 * A busy start-up: a TCP proxy in front of redis-server that holds every new connection's traffic
 * for `holdMs` before passing it on, as a loaded machine (or a far Redis) does. The client's
 * connection and ready check then take longer than `operationTimeoutMs`.
 */
async function slowProxy(target: string, holdMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.pause();
    const timer = setTimeout(() => {
      const upstream = createConnection({ host: hostname, port: Number(port) });
      sockets.add(upstream);
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
      client.pipe(upstream).pipe(client);
      client.resume();
    }, holdMs);
    client.on("close", () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const url = `redis://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const lookup = () => new DynamicTool({ name: "lookup", description: "Looks up.", func: async (input) => `result for ${input}` });

describeRequiring([{ program: "redis-server" }], "a Redis store's first operations while the connection is still being made (a busy start-up)", () => {
  let redis: TestRedis;
  let proxy: Awaited<ReturnType<typeof slowProxy>>;
  let warn: jest.SpyInstance;
  const cleanups: Array<() => unknown> = [];

  beforeEach(async () => {
    redis = await startRedis();
    proxy = await slowProxy(redis.url, 400);
    warn = jest.spyOn(console, "warn").mockImplementation(() => {});
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    warn.mockRestore();
    await proxy.close();
    await redis.stop();
  });

  it("RedisCircuitStore on the app's client waits for it: no failed operation, no outage warning, and no error listener added", async () => {
    // As the docs configure it: no offline queue, so a command sent before `ready` would fail at once.
    const client = new Redis(proxy.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    const appErrors: unknown[] = [];
    client.on("error", (error) => appErrors.push(error));
    cleanups.push(() => client.disconnect());
    const listenersBefore = client.listenerCount("error");
    const store = new RedisCircuitStore({ client });
    const events: ReinsEvent[] = [];
    const [tool] = new ToolExecutor({ onEvent: (event) => events.push(event), policies: { lookup: { circuitBreaker: { failureThreshold: 3, halfOpenAfterMs: 1000, store } } } }).wrap([lookup()]);
    const answers = await Promise.all(["a", "b", "c", "d"].map((input) => tool.invoke(input)));
    expect(answers).toEqual(["result for a", "result for b", "result for c", "result for d"]);
    expect(store.failures).toEqual({ acquire: 0, record: 0 });
    expect(events.filter((event) => event.type === "circuit_store_error" || event.type === "store_outage")).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
    expect(client.listenerCount("error")).toBe(listenersBefore);
    expect(appErrors).toEqual([]);
  });

  it("RedisResultStore with its own client does not count the connection in the first operation's 250 ms", async () => {
    const store = new RedisResultStore({ url: proxy.url, operationTimeoutMs: 250 });
    cleanups.push(() => store.close());
    const events: ReinsEvent[] = [];
    const [tool] = new ToolExecutor({ onEvent: (event) => events.push(event), defaults: { cache: { ttlMs: 60_000, scope: "global", store } } }).wrap([lookup()]);
    const answers = await Promise.all(["a", "b", "a"].map((input) => tool.invoke(input)));
    expect(answers).toEqual(["result for a", "result for b", "result for a"]);
    expect(store.failures).toEqual({ get: 0, set: 0, delete: 0, claim: 0, release: 0 });
    expect(events.filter((event) => event.type === "tool_cache_error" || event.type === "store_outage")).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });
});

describeRequiring([{ program: "redis-server" }], "a Redis store outage after start-up", () => {
  it("is still reported once when Redis really stops (and once when it is back)", async () => {
    const redis = await startRedis();
    const warn = jest.spyOn(console, "warn").mockImplementation(() => {});
    const client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    client.on("error", () => undefined);
    try {
      await new Promise((resolve) => client.once("ready", resolve));
      const store = new RedisCircuitStore({ client, operationTimeoutMs: 100 });
      const events: ReinsEvent[] = [];
      const [tool] = new ToolExecutor({ onEvent: (event) => events.push(event), policies: { lookup: { circuitBreaker: { failureThreshold: 3, halfOpenAfterMs: 1000, store } } } }).wrap([lookup()]);
      await tool.invoke("a");
      redis.pause();
      for (const input of ["b", "c", "d"]) expect(await tool.invoke(input)).toBe(`result for ${input}`);
      redis.resume();
      await tool.invoke("e");
      expect(events.filter((event) => event.type === "store_outage").map((event) => (event.type === "store_outage" ? event.status : ""))).toEqual(["down", "recovered"]);
      expect(warn).toHaveBeenCalledTimes(2);
    } finally {
      warn.mockRestore();
      client.disconnect();
      await redis.stop();
    }
  });
});
