/**
 * A Reins `createAgent` graph for LangGraph's server (`langgraph.json` names it `agent`).
 *
 * The graph passes no checkpointer: the server owns persistence (the CLI's in-memory store on
 * `langgraph dev`, Postgres on the Agent Server), and Reins' run record (`reinsRun`) is graph state,
 * so it is saved with every checkpoint. Everything else comes from the environment:
 *
 * | variable | what it does | default |
 * |---|---|---|
 * | `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `OPENAI_MODEL` | the model (OpenAI or any Chat Completions server, `reins-replay` included) | OpenAI, `gpt-4o-mini` |
 * | `REDIS_URL` | one Redis for every replica: shared circuit breakers (`RedisCircuitStore`) and the `lookup_order` cache (`RedisResultStore`) | unset: both per process |
 * | `REINS_METRICS_PORT` | serve Reins' Prometheus metrics on this port (`GET /metrics`) | unset: no metrics server |
 * | `REINS_METRICS_HOST` | the metrics server's bind address | `127.0.0.1` |
 */
import { ChatOpenAI } from "@langchain/openai";
import { createReinsMiddleware } from "@reins/agent-middleware";
import { createAgentMetrics, startMetricsServer } from "@reins/metrics";
import { RedisCircuitStore, RedisResultStore } from "@reins/redis-store";
import type { ToolPolicy } from "@reins/tool-executor";
import { Redis } from "ioredis";
import { createAgent, humanInTheLoopMiddleware, tool } from "langchain";
import { z } from "zod";

const ORDERS: Record<string, { status: string; totalUsd: number }> = {
  "A-1001": { status: "delivered", totalUsd: 42 },
  "A-1002": { status: "in transit", totalUsd: 120 },
};

const lookupOrder = tool(
  async ({ orderId }) => {
    const order = ORDERS[orderId];
    return order === undefined ? `No order ${orderId}.` : JSON.stringify({ orderId, ...order });
  },
  { name: "lookup_order", description: "Looks up an order by its id (e.g. A-1001).", schema: z.object({ orderId: z.string() }) },
);

const refund = tool(async ({ orderId, amountUsd }) => `Refunded ${amountUsd} USD on order ${orderId}.`, {
  name: "refund",
  description: "Refunds an amount on an order. Needs a human's approval.",
  schema: z.object({ orderId: z.string(), amountUsd: z.number() }),
});

const searchFaq = tool(async ({ query }) => `No FAQ entry matches "${query}".`, {
  name: "search_faq",
  description: "Searches the help-center FAQ.",
  schema: z.object({ query: z.string() }),
});

// One Redis client per process; commands fail at once while Redis is down instead of queueing
// (docs/guides/fleet.md). Without REDIS_URL, breakers and the cache stay in this process.
const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 0 }) : undefined;
const circuitStore = redis === undefined ? undefined : new RedisCircuitStore({ client: redis });
const resultStore = redis === undefined ? undefined : new RedisResultStore({ client: redis });

const shared = (policy: ToolPolicy): ToolPolicy => ({
  ...policy,
  circuitBreaker: { failureThreshold: 5, halfOpenAfterMs: 30_000, ...(circuitStore === undefined ? {} : { store: circuitStore }) },
});

const metrics = createAgentMetrics();
if (process.env.REINS_METRICS_PORT) {
  // Served by this graph's process; one port per server process (the Agent Server runs one per container).
  await startMetricsServer({ registry: metrics.registry, port: Number(process.env.REINS_METRICS_PORT), host: process.env.REINS_METRICS_HOST ?? "127.0.0.1" });
}

export const graph = createAgent({
  model: new ChatOpenAI({ model: process.env.OPENAI_MODEL ?? "gpt-4o-mini", temperature: 0 }),
  tools: [lookupOrder, refund, searchFaq],
  systemPrompt: "You are a support agent for an online shop. Look orders up before you refund them.",
  middleware: [
    createReinsMiddleware({
      toolExecutor: {
        policies: {
          lookup_order: shared({ timeoutMs: 5_000, ...(resultStore === undefined ? {} : { cache: { store: resultStore, ttlMs: 60_000, scope: "global" } }) }),
          refund: shared({ timeoutMs: 10_000, maxCallsPerRun: 1 }),
          search_faq: shared({ timeoutMs: 5_000 }),
        },
      },
      loopControl: { maxSteps: 10 },
      metrics,
    }),
    // A refund waits for a human: the run pauses at an interrupt until a client resumes it with
    // Command({ resume: { decisions: [{ type: "approve" }] } }) (or "reject").
    humanInTheLoopMiddleware({ interruptOn: { refund: true } }),
  ],
});
