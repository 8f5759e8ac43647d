/**
 * One phase of a durable run, in its own Node process (run with `tsx`; `durable-runs.integration.test.ts`
 * spawns it): start the run, approve the paused call, or continue after a crash. Prints one JSON
 * line: the stop reason, whether the run is paused at an interrupt, the model calls, or the error.
 */
import { HumanMessage } from "@langchain/core/messages";
import { Command, type BaseCheckpointSaver } from "@langchain/langgraph";
import { buildDurableAgent } from "./durable-agent";
import { TAMPERINGS, tamperCheckpoint, type TamperingName } from "./checkpoint-tampering";

interface PhaseInput {
  readonly saver: "sqlite" | "postgres";
  readonly connection: string;
  readonly ledgerPath: string;
  readonly threadId: string;
  /** `tamper`: edit the thread's latest checkpoint through the saver's API (`tampering`), run nothing. */
  readonly phase: "start" | "approve" | "continue" | "tamper";
  readonly tampering?: TamperingName;
  /** The middleware's `stateKey`. */
  readonly stateKey?: string;
  readonly approval?: boolean;
  readonly crashAtExecution?: number;
}

async function saverOf(input: PhaseInput): Promise<{ saver: BaseCheckpointSaver; close: () => Promise<void> }> {
  if (input.saver === "sqlite") {
    const { SqliteSaver } = await import("@langchain/langgraph-checkpoint-sqlite");
    const saver = SqliteSaver.fromConnString(input.connection);
    return { saver, close: async () => saver.db.close() };
  }
  const { PostgresSaver } = await import("@langchain/langgraph-checkpoint-postgres");
  const saver = PostgresSaver.fromConnString(input.connection);
  await saver.setup();
  return { saver, close: () => saver.end() };
}

async function main(): Promise<void> {
  const raw = process.env.REINS_DURABLE_PHASE;
  if (raw === undefined) throw new Error("REINS_DURABLE_PHASE (the phase as JSON) is not set");
  const input = JSON.parse(raw) as PhaseInput;
  const { saver, close } = await saverOf(input);
  if (input.phase === "tamper") {
    try {
      await tamperCheckpoint(saver, input.threadId, TAMPERINGS[input.tampering ?? "resetModelCalls"]);
      process.stdout.write(`${JSON.stringify({ tampered: input.tampering })}\n`);
    } finally {
      await close();
    }
    return;
  }
  try {
    const { agent, model } = buildDurableAgent({
      checkpointer: saver,
      ledgerPath: input.ledgerPath,
      ...(input.approval === true ? { approval: true } : {}),
      ...(input.crashAtExecution !== undefined ? { crashAtExecution: input.crashAtExecution } : {}),
      ...(input.stateKey !== undefined ? { stateKey: input.stateKey } : {}),
    });
    const config = { configurable: { thread_id: input.threadId }, durability: "sync" as const };
    const request =
      input.phase === "start"
        ? { messages: [new HumanMessage("Charge the customer for every item.")] }
        : input.phase === "approve"
          ? new Command({ resume: { decisions: [{ type: "approve" }] } })
          : null;
    try {
      const result = await agent.invoke(request as never, config);
      process.stdout.write(
        `${JSON.stringify({ stopReason: result.stopReason ?? null, interrupted: result.__interrupt__ !== undefined, modelCalls: result.reinsRun?.modelCalls ?? null, processModelCalls: model.calls })}\n`,
      );
    } catch (error) {
      process.stdout.write(`${JSON.stringify({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })}\n`);
    }
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
