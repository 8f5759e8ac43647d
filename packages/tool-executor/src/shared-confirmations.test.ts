import type { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { RunContextStore, toolOutcomeOf } from "@reins/core";
import { InMemorySideEffectLedger, ToolExecutor, type SideEffectLedger } from "./index";

/** Two replicas (executors with their own run stores) resuming the same run over one ledger. */
function replica(ledger: SideEffectLedger, executions: number[]) {
  const pay = tool(async ({ amount }: { amount: number }) => (executions.push(amount), `Paid ${amount}.`), {
    name: "pay",
    description: "Pay",
    schema: z.object({ amount: z.number() }),
  });
  const store = new RunContextStore();
  const [wrapped] = new ToolExecutor({ runContext: store, sideEffectLedger: ledger, policies: { pay: { sideEffects: true } } }).wrap([pay]);
  let calls = 0;
  return async (runId: string, args: Record<string, unknown>): Promise<ToolMessage> => {
    if (store.contextOf(runId) === undefined) store.start(runId);
    calls += 1;
    store.link(`tool-${calls}`, runId);
    return (await wrapped.invoke({ name: "pay", args, id: `call_${runId}_${calls}`, type: "tool_call" }, { runId: `tool-${calls}` })) as ToolMessage;
  };
}

const tokenIn = (message: ToolMessage): string => /"(ok-[0-9a-f]{8})"/.exec(String(message.content))?.[1] ?? "";

describe("confirmations in the side-effect ledger", () => {
  describe("a dry run in one replica, the confirmation in another replica resuming the same run", () => {
    it("runs the call with the token the first replica showed", async () => {
      const ledger = new InMemorySideEffectLedger();
      const executions: number[] = [];
      const first = replica(ledger, executions);
      const second = replica(ledger, executions);
      const dryRun = await first("run-1", { amount: 10 });
      expect(toolOutcomeOf(dryRun)).toBe("dry_run");
      const token = tokenIn(dryRun);
      expect(token).not.toBe("");
      const confirmed = await second("run-1", { amount: 10, confirm: token });
      expect(toolOutcomeOf(confirmed)).toBe("success");
      expect(executions).toEqual([10]);
    });

    it("shows the same token in every replica for the same run, tool and exact input", async () => {
      const ledger = new InMemorySideEffectLedger();
      const executions: number[] = [];
      const first = await replica(ledger, executions)("run-1", { amount: 10 });
      const second = await replica(ledger, executions)("run-1", { amount: 10 });
      expect(tokenIn(second)).toBe(tokenIn(first));
    });
  });

  describe("a token used outside what its dry run showed", () => {
    it("does not run the call in another run, or for another input", async () => {
      const ledger = new InMemorySideEffectLedger();
      const executions: number[] = [];
      const first = replica(ledger, executions);
      const second = replica(ledger, executions);
      const token = tokenIn(await first("run-1", { amount: 10 }));
      expect(toolOutcomeOf(await second("run-2", { amount: 10, confirm: token }))).toBe("dry_run");
      expect(toolOutcomeOf(await second("run-1", { amount: 11, confirm: token }))).toBe("dry_run");
      expect(executions).toEqual([]);
    });
  });
});
