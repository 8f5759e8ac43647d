import { spawn } from "node:child_process";
import path from "node:path";
import { describeRequiring, REPO_ROOT } from "@reins/testing";
import { startRedis, type TestRedis } from "../../redis-store/src/__fixtures__/redis-server";

/**
 * Budgets beyond one run and the fleet model quota across Node processes (each replica is
 * `__fixtures__/budget-replica.ts` under tsx) sharing one real redis-server.
 */

// Every replica is a Node process (tsx start-up included): seconds each on a shared machine.
jest.setTimeout(240_000);

const TSX = path.join(REPO_ROOT, "node_modules/.bin/tsx");
const REPLICA = path.join(__dirname, "__fixtures__/budget-replica.ts");

function replica(input: object): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [REPLICA], { cwd: REPO_ROOT, env: { ...process.env, REINS_BUDGET_REPLICA: JSON.stringify(input) }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = stdout.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || line === "") reject(new Error(`replica exited ${code}: ${stderr}`));
      else resolve(JSON.parse(line) as Record<string, unknown>);
    });
  });
}

describeRequiring([{ program: "redis-server" }], "budgets and the model quota across processes on one Redis", () => {
  let redis: TestRedis;
  beforeEach(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    await redis.stop();
  });

  it("a user's budget of 5 model calls holds across 3 processes run one after the other, each on new threads", async () => {
    const reports = [];
    for (let index = 0; index < 3; index += 1) reports.push(await replica({ mode: "user", redisUrl: redis.url, runs: 3, threadPrefix: `p${index}`, maxModelCalls: 5 }));
    expect(reports.map((report) => report.error)).toEqual([undefined, undefined, undefined]);
    const stops = reports.flatMap((report) => report.stops as Array<[string, string | null]>);
    expect(stops.filter(([reason]) => reason === "final_answer")).toHaveLength(5);
    expect(stops.filter(([reason, scope]) => reason === "max_steps" && scope === "user")).toHaveLength(4);
  });

  it("a 429 with Retry-After: 1 in one replica cools the fleet down once: no replica calls the model within the cooldown", async () => {
    // The other replicas start inside the cooldown (they poll Redis until the block is there).
    const [limited, ...others] = await Promise.all([
      replica({ mode: "quota", redisUrl: redis.url, fail429: true }),
      replica({ mode: "quota", redisUrl: redis.url, waitForCooldown: true }),
      replica({ mode: "quota", redisUrl: redis.url, waitForCooldown: true }),
    ]);
    expect([limited, ...others].map((report) => report.error)).toEqual([undefined, undefined, undefined]);
    const limitedCalls = limited?.calls as Array<{ atMs: number; status: number }>;
    expect(limitedCalls.map((call) => call.status)).toEqual([429, 200]);
    const cooldownStartMs = limitedCalls[0]?.atMs ?? 0;
    const afterCooldown = [limitedCalls[1], ...others.flatMap((report) => report.calls as Array<{ atMs: number; status: number }>)];
    // Each other replica called the model once, after the cooldown (Redis' expiry: ms precision).
    expect(afterCooldown).toHaveLength(3);
    for (const call of afterCooldown) expect((call?.atMs ?? 0) - cooldownStartMs).toBeGreaterThanOrEqual(950);
  });
});
