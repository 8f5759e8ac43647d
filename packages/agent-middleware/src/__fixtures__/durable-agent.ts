import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { createAgent, humanInTheLoopMiddleware } from "langchain";
import { z } from "zod/v4";
import type { ReinsEventListener } from "@reins/core";
import { createReinsMiddleware, type ReinsMiddlewareLogger } from "../index";

/**
 * The agent of the durable-run tests (`durable-runs.integration.test.ts`), built the same way in every process:
 * a model that never answers and charges a new amount each turn (so only the call cap and the
 * step budget can end the run, never the repeat detector), a side-effect tool that writes each
 * execution to a ledger file (what really happened, across processes), and optionally LangChain's
 * human-in-the-loop middleware pausing every charge for approval.
 */

/** A chat model that calls `charge` with a new amount on every turn, from the messages alone (no process state). */
export class ChargingModel extends BaseChatModel {
  calls = 0;

  _llmType(): string {
    return "reins-charging";
  }

  bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls += 1;
    const turn = messages.filter((message) => AIMessage.isInstance(message)).length + 1;
    const message = new AIMessage({ id: `reins-charging-${randomUUID()}`, content: "", tool_calls: [{ name: "charge", args: { amount: turn }, id: `call_${turn}`, type: "tool_call" }] });
    return { generations: [{ text: "", message }] };
  }
}

/** The ledger's executions, one amount per line. */
export function ledgerOf(path: string): number[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map(Number);
}

/** Options of {@link buildDurableAgent}. */
export interface DurableAgentOptions {
  readonly checkpointer: BaseCheckpointSaver;
  readonly ledgerPath: string;
  /** Pause every `charge` call for approval (`humanInTheLoopMiddleware`). */
  readonly approval?: boolean;
  /** End the process (exit code 17) right after this execution's side effect, before its result is saved. */
  readonly crashAtExecution?: number;
  readonly maxCallsPerRun?: number;
  readonly maxSteps?: number;
  /** The run's time budget, in ms. @default none */
  readonly maxDurationMs?: number;
  /** The middleware's clock (epoch ms). @default Date.now */
  readonly now?: () => number;
  /** The middleware's `stateKey`. @default unset (and REINS_STATE_KEY, when set in the environment) */
  readonly stateKey?: string | readonly string[];
  readonly onEvent?: ReinsEventListener;
  readonly logger?: ReinsMiddlewareLogger;
  /** `false`: the same agent without Reins (a thread saved before Reins was added). */
  readonly reins?: false;
}

/** Builds the durable-run test agent. */
export function buildDurableAgent(options: DurableAgentOptions) {
  const charge = tool(
    async ({ amount }: { amount: number }) => {
      appendFileSync(options.ledgerPath, `${amount}\n`);
      const executions = ledgerOf(options.ledgerPath).length;
      if (options.crashAtExecution !== undefined && executions === options.crashAtExecution) process.exit(17);
      return `Charged ${amount} USD (receipt ${executions}).`;
    },
    { name: "charge", description: "Charge the customer's card", schema: z.object({ amount: z.number() }) },
  );
  const model = new ChargingModel({});
  const reins = createReinsMiddleware({
    toolExecutor: { policies: { charge: { maxCallsPerRun: options.maxCallsPerRun ?? 3 } } },
    loopControl: {
      maxSteps: options.maxSteps ?? 8,
      ...(options.maxDurationMs !== undefined ? { maxDurationMs: options.maxDurationMs } : {}),
      ...(options.now !== undefined ? { now: options.now } : {}),
    },
    ...(options.stateKey !== undefined ? { stateKey: options.stateKey } : {}),
    ...(options.onEvent !== undefined ? { onEvent: options.onEvent } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  // Always the same middleware tuple (one agent type); without approval, nothing is interrupted.
  const approval = humanInTheLoopMiddleware({ interruptOn: options.approval === true ? { charge: true } : {} });
  const agent =
    options.reins === false
      ? (createAgent({ model, tools: [charge], middleware: [approval] as const, checkpointer: options.checkpointer }) as unknown as ReturnType<typeof reinsAgent>)
      : reinsAgent();
  function reinsAgent() {
    return createAgent({ model, tools: [charge], middleware: [reins, approval] as const, checkpointer: options.checkpointer });
  }
  return { agent, model };
}
