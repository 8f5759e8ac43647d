/**
 * One replica of the fleet budget cases, in its own Node process (run with `tsx`;
 * `budgets.integration.test.ts` spawns it) against a real redis-server:
 * - `user`: `runs` runs of one user, each on a new thread, with a user budget in a `RateLimiterRedis`;
 *   prints the stop reasons and scopes.
 * - `quota`: one run behind `createModelQuotaMiddleware` with a `RateLimiterRedis`; the model
 *   answers 429 with `Retry-After` first when `fail429` is set; prints when the model was called.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { Redis } from "ioredis";
import { createAgent } from "langchain";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { createModelQuotaMiddleware, createReinsMiddleware } from "../index";

interface ReplicaInput {
  readonly mode: "user" | "quota";
  readonly redisUrl: string;
  readonly runs?: number;
  readonly threadPrefix?: string;
  readonly maxModelCalls?: number;
  readonly startAtMs?: number;
  readonly fail429?: boolean;
  /** Start only once the fleet's cooldown is in Redis (the quota key's expiry at most 1 s). */
  readonly waitForCooldown?: boolean;
}

const input = JSON.parse(process.env.REINS_BUDGET_REPLICA ?? "{}") as ReplicaInput;
const redis = new Redis(input.redisUrl, { maxRetriesPerRequest: 1 });

async function userReplica(): Promise<object> {
  const counter = new RateLimiterRedis({ storeClient: redis, keyPrefix: "budget-it", points: Number.MAX_SAFE_INTEGER, duration: 0 });
  let model = fakeModel();
  for (let index = 0; index < (input.runs ?? 1); index += 1) model = model.respond(new AIMessage("An answer."));
  const agent = createAgent({
    model,
    tools: [],
    checkpointer: new MemorySaver(),
    middleware: [createReinsMiddleware({ budgets: { user: { key: (config) => config.configurable?.user_id, counter, window: "none", maxModelCalls: input.maxModelCalls ?? 5 } } })],
  });
  const stops: Array<[string | undefined, string | undefined]> = [];
  for (let run = 0; run < (input.runs ?? 1); run += 1) {
    const result = await agent.invoke({ messages: [new HumanMessage("Q?")] }, { configurable: { thread_id: `${input.threadPrefix ?? "t"}-${run}`, user_id: "alice" } });
    stops.push([result.stopReason, result.stopScope]);
  }
  return { stops };
}

async function quotaReplica(): Promise<object> {
  const requests = new RateLimiterRedis({ storeClient: redis, keyPrefix: "model-quota-it", points: 1000, duration: 60 });
  const calls: Array<{ atMs: number; status: number }> = [];
  const limited = Object.assign(new Error("429 Rate limit reached"), { status: 429, headers: new Headers({ "retry-after": "1" }) });
  let model = fakeModel();
  if (input.fail429 === true) model = model.respond(() => (calls.push({ atMs: Date.now(), status: 429 }), limited));
  model = model.respond(() => (calls.push({ atMs: Date.now(), status: 200 }), new AIMessage("An answer.")));
  const agent = createAgent({ model, tools: [], middleware: [createModelQuotaMiddleware({ requests, key: () => "gpt-4o-mini", maxWaitMs: 10_000 })] });
  const waitMs = (input.startAtMs ?? 0) - Date.now();
  if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
  for (let polls = 0; input.waitForCooldown === true; polls += 1) {
    const ttlMs = await redis.pttl("model-quota-it:gpt-4o-mini");
    if (ttlMs > 0 && ttlMs <= 1000) break;
    if (polls > 6000) throw new Error("no cooldown seen in 60 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await agent.invoke({ messages: [new HumanMessage("Q?")] });
  return { calls };
}

(input.mode === "user" ? userReplica() : quotaReplica())
  .then((report) => process.stdout.write(`${JSON.stringify(report)}\n`))
  .catch((error: unknown) => process.stdout.write(`${JSON.stringify({ error: error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error) })}\n`))
  .finally(() => redis.disconnect());
