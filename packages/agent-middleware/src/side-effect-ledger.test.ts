import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { z } from "zod/v4";
import { toolOutcomeOf } from "@reins/core";
import { InMemorySideEffectLedger, idempotencyKeyOf, sideEffectKey, type SideEffectLedger } from "@reins/tool-executor";
import { createReinsMiddleware } from "./index";

/**
 * `toolExecutor: { sideEffectLedger }` on the createAgent path: two replicas (two agents, each
 * with its own middleware and ToolExecutor) over one ledger, running the same thread and the same
 * tool call (what a resume re-runs after a crash).
 */
function replica(ledger: SideEffectLedger, paid: Array<string | undefined>) {
  const pay = tool(async ({ amount }: { amount: number }, config) => (paid.push(idempotencyKeyOf(config)), `Paid ${amount} EUR.`), {
    name: "pay",
    description: "Pay an order",
    schema: z.object({ amount: z.number() }),
  });
  const model = fakeModel()
    .respondWithTools([{ name: "pay", args: { amount: 30 }, id: "call_pay_1" }])
    .respond(new AIMessage("Done."));
  const agent = createAgent({
    model,
    tools: [pay],
    middleware: [createReinsMiddleware({ toolExecutor: { sideEffectLedger: ledger, policies: { pay: { sideEffects: true, approve: (_call, context) => context.inDoubt !== true } } } })],
  });
  return async (): Promise<ToolMessage> => {
    const result = await agent.invoke({ messages: [new HumanMessage("Pay order 42")] }, { configurable: { thread_id: "order-42" } });
    const message = (result.messages as BaseMessage[]).find((each) => ToolMessage.isInstance(each));
    if (message === undefined || !ToolMessage.isInstance(message)) throw new Error("no ToolMessage in the run");
    return message;
  };
}

describe("createReinsMiddleware with toolExecutor.sideEffectLedger", () => {
  describe("a second replica running the same thread and tool call", () => {
    it("gets the first replica's stored result (same ToolMessage content); the tool ran once, with an idempotency key", async () => {
      const ledger = new InMemorySideEffectLedger();
      const paid: Array<string | undefined> = [];
      const first = await replica(ledger, paid)();
      const second = await replica(ledger, paid)();
      expect(paid).toHaveLength(1);
      expect(paid[0]).toMatch(/^reins-[0-9a-f]{40}$/);
      expect(second.content).toBe(first.content);
      expect(toolOutcomeOf(second)).toBe("success");
    });
  });

  describe("a call whose earlier holder died after the claim", () => {
    it("is reported in doubt to the model and never run", async () => {
      let now = 1_000;
      const ledger = new InMemorySideEffectLedger({ now: () => now });
      await ledger.claim(sideEffectKey("thread:order-42", "pay", "call_pay_1", { amount: 30 }), "crashed-replica", 10);
      now += 11;
      const paid: Array<string | undefined> = [];
      const message = await replica(ledger, paid)();
      expect(paid).toEqual([]);
      expect(toolOutcomeOf(message)).toBe("in_doubt");
      expect(String(message.content)).toMatch(/MAY ALREADY HAVE HAPPENED/);
    });
  });
});
