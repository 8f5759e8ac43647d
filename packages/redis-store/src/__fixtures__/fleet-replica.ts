/**
 * One replica of a test fleet, run as its own Node process (bundled by `fleet.ts`). Reads its job
 * from REPLICA_JOB (JSON), prints one JSON line with what it saw, and exits.
 */
import { DynamicTool } from "@langchain/core/tools";
import type { ReinsEvent } from "@reins/core";
import { ToolExecutor } from "@reins/tool-executor";
import { Redis } from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { RedisCircuitStore } from "../redis-circuit-store";
import { RedisResultStore } from "../redis-result-store";

/** What the parent asks of a replica. */
export type ReplicaJob =
  | { mode: "breaker"; redisUrl: string; upstreamUrl: string; durationMs: number; intervalMs: number; startAtMs: number; shared: boolean }
  | { mode: "quota"; redisUrl: string; upstreamUrl: string; runs: number; callsPerRun: number; pointsPerSecond: number }
  | { mode: "cache"; redisUrl: string; upstreamUrl: string; keys: string[] };

/** What a replica prints. */
export interface ReplicaReport {
  outcomes: Record<string, number>;
  maxLatencyMs: number;
  observations: string[];
  events: Record<string, number>;
}

/** An HTTP failure shaped like a fetch wrapper's error: status and the response headers. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
  ) {
    super(`HTTP ${status}`);
  }
}

function upstreamTool(name: string, url: (input: string) => string): DynamicTool {
  return new DynamicTool({
    name,
    description: name,
    func: async (input, _runManager, config) => {
      const response = await fetch(url(input), { signal: config?.signal });
      const body = await response.text();
      if (!response.ok) throw new HttpError(response.status, response.headers);
      return body;
    },
  });
}

/** A client that waits for Redis as long as it takes (the breaker case; see there). */
function patientClient(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 0 });
  client.on("error", () => undefined);
  return client;
}

async function main(): Promise<void> {
  const job = JSON.parse(process.env.REPLICA_JOB ?? "") as ReplicaJob;
  const client = new Redis(job.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 250 });
  client.on("error", () => undefined);
  await new Promise((resolve) => client.once("ready", resolve));
  const report: ReplicaReport = { outcomes: {}, maxLatencyMs: 0, observations: [], events: {} };
  const onEvent = (event: ReinsEvent): void => {
    report.events[event.type] = (report.events[event.type] ?? 0) + 1;
    if (event.type === "tool_call") report.outcomes[event.outcome] = (report.outcomes[event.outcome] ?? 0) + 1;
  };
  const timed = async (call: () => Promise<unknown>): Promise<void> => {
    const started = Date.now();
    const answer = String(await call());
    report.maxLatencyMs = Math.max(report.maxLatencyMs, Date.now() - started);
    if (report.observations.length < 3 && !report.observations.includes(answer)) report.observations.push(answer);
  };
  const stores: RedisResultStore[] = [];
  const clients: Redis[] = [client];
  try {
    if (job.mode === "breaker") {
      // The shared breaker is under test, not its fallback: Redis gets seconds to answer, so a slow
      // round trip on a loaded machine does not hand the decision to each replica's local breaker
      // (which would let more requests through; redis-circuit-store.integration.test.ts covers that).
      const patient = patientClient(job.redisUrl);
      clients.push(patient);
      const store = new RedisCircuitStore({ client: patient, operationTimeoutMs: 10_000 });
      const circuitBreaker = { failureThreshold: 3, halfOpenAfterMs: 2_000, ...(job.shared ? { store } : {}) };
      const executor = new ToolExecutor({ onEvent, policies: { payments: { retry: false, circuitBreaker } } });
      const [payments] = executor.wrap([upstreamTool("payments", () => `${job.upstreamUrl}/dead`)]);
      // Every replica starts at the same moment, however long its process took to boot.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, job.startAtMs - Date.now())));
      const endsAt = Date.now() + job.durationMs;
      while (Date.now() < endsAt) {
        await timed(() => payments.invoke("charge"));
        await new Promise((resolve) => setTimeout(resolve, job.intervalMs));
      }
    } else if (job.mode === "quota") {
      const limiter = new RateLimiterRedis({ storeClient: client, keyPrefix: "quota", points: job.pointsPerSecond, duration: 1 });
      const executor = new ToolExecutor({
        onEvent,
        policies: { quotes: { deadlineMs: 30_000, retry: { maxAttempts: 4, initialDelayMs: 100, maxDelayMs: 1_000 }, rateLimit: { limiter } } },
      });
      const [quotes] = executor.wrap([upstreamTool("quotes", (input) => `${job.upstreamUrl}/quota?q=${encodeURIComponent(input)}`)]);
      await Promise.all(
        Array.from({ length: job.runs }, async (_run, run) => {
          for (let call = 0; call < job.callsPerRun; call += 1) await timed(() => quotes.invoke(`${process.pid}-${run}-${call}`));
        }),
      );
    } else {
      const store = new RedisResultStore({ client, lease: { leaseMs: 5_000, leaseWaitMs: 3_000, leasePollMs: 25 } });
      stores.push(store);
      const executor = new ToolExecutor({ onEvent, policies: { lookup: { cache: { store, ttlMs: 60_000, scope: "global" } } } });
      const [lookup] = executor.wrap([upstreamTool("lookup", (input) => `${job.upstreamUrl}/compute?key=${encodeURIComponent(input)}`)]);
      await Promise.all(job.keys.map((key) => timed(() => lookup.invoke(key))));
    }
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    for (const each of clients) each.disconnect();
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
