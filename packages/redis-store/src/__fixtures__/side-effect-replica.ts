/**
 * One replica racing on a side-effect call, run as its own Node process (bundled by
 * `side-effect-fleet.ts`). Reads its job from SIDE_EFFECT_JOB (JSON), calls the `pay` tool once
 * through a ToolExecutor with a RedisSideEffectLedger (thread + call id from the job), prints one
 * JSON line (the ToolMessage's content and typed outcome) and exits. `killAt` makes it SIGKILL
 * itself at one point: before the claim, after the claim, after the effect, after the result is stored.
 */
import { appendFileSync } from "node:fs";
import type { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { toolOutcomeOf } from "@reins/core";
import { idempotencyKeyOf, ToolExecutor, type SideEffectLedger } from "@reins/tool-executor";
import { Redis } from "ioredis";
import { z } from "zod";
import { RedisSideEffectLedger } from "../redis-side-effect-ledger";

/** Where a replica kills itself. */
export type KillPoint = "before_claim" | "after_claim" | "after_effect" | "after_result";

/** What the parent asks of a replica. */
export interface SideEffectJob {
  redisUrl: string;
  /** The file each effect appends one line to (the "payment provider"). */
  effectsFile: string;
  threadId: string;
  toolCallId: string;
  amount: number;
  deadlineMs: number;
  killAt?: KillPoint;
}

/** What a replica prints. */
export interface SideEffectReport {
  content: string;
  outcome: string | undefined;
}

function die(): never {
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable");
}

async function main(): Promise<void> {
  const job = JSON.parse(process.env.SIDE_EFFECT_JOB ?? "{}") as SideEffectJob;
  const client = new Redis(job.redisUrl, { maxRetriesPerRequest: 1 });
  client.on("error", () => undefined);
  // Connected before the race starts: a loaded machine's connection set-up is not what is under test.
  await client.ping();
  const redisLedger = new RedisSideEffectLedger({ client });
  // The kill points, around the real ledger's calls.
  const ledger: SideEffectLedger = {
    claim: async (key, holderId, ttlMs) => {
      if (job.killAt === "before_claim") die();
      const claim = await redisLedger.claim(key, holderId, ttlMs);
      if (job.killAt === "after_claim" && claim.state === "claimed") die();
      return claim;
    },
    complete: async (key, holderId, result, retentionMs) => {
      const stored = await redisLedger.complete(key, holderId, result, retentionMs);
      if (job.killAt === "after_result") die();
      return stored;
    },
    release: (key, holderId) => redisLedger.release(key, holderId),
    takeOver: (key, holderId, ttlMs) => redisLedger.takeOver(key, holderId, ttlMs),
    confirmationToken: (key, token, retentionMs) => redisLedger.confirmationToken(key, token, retentionMs),
    peekConfirmationToken: (key) => redisLedger.peekConfirmationToken(key),
  };
  const pay = tool(
    async ({ amount }: { amount: number }, config) => {
      appendFileSync(job.effectsFile, `${process.pid} ${amount} ${idempotencyKeyOf(config) ?? "-"}\n`);
      if (job.killAt === "after_effect") die();
      return `Paid ${amount} EUR.`;
    },
    { name: "pay", description: "Pay", schema: z.object({ amount: z.number() }) },
  );
  const executor = new ToolExecutor({
    sideEffectLedger: ledger,
    policies: { pay: { sideEffects: true, approve: (_call, context) => context.inDoubt !== true, deadlineMs: job.deadlineMs, timeoutMs: job.deadlineMs } },
  });
  const [wrapped] = executor.wrap([pay]);
  const message = (await wrapped.invoke({ name: "pay", args: { amount: job.amount }, id: job.toolCallId, type: "tool_call" }, { configurable: { thread_id: job.threadId } })) as ToolMessage;
  const report: SideEffectReport = { content: String(message.content), outcome: toolOutcomeOf(message) };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  client.disconnect();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
