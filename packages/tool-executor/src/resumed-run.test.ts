import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { RunContextStore, toolOutcomeOf } from "@reins/core";
import { ToolExecutor } from "./index";

/** What a host adapter (the createAgent middleware) needs from the executor to resume a run. */
describe("a run resumed from a checkpoint", () => {
  function setUp(resumed: ReadonlyMap<string, number> | undefined) {
    let executions = 0;
    const charge = tool(async ({ amount }: { amount: number }) => ((executions += 1), `Charged ${amount}.`), {
      name: "charge",
      description: "Charge a card",
      schema: z.object({ amount: z.number() }),
    });
    const store = new RunContextStore();
    const context = store.start("run-1");
    if (resumed !== undefined) context.resumedCallCounts = resumed;
    const [wrapped] = new ToolExecutor({ runContext: store, policies: { charge: { maxCallsPerRun: 3 } } }).wrap([charge]);
    let call = 0;
    const invoke = async (amount: number): Promise<ToolMessage> => {
      call += 1;
      store.link(`tool-${call}`, "run-1");
      return (await wrapped.invoke({ name: "charge", args: { amount }, id: `call_${call}`, type: "tool_call" }, { runId: `tool-${call}` })) as ToolMessage;
    };
    return { invoke, executions: () => executions };
  }

  it("counts maxCallsPerRun from the calls it made before (RunContext.resumedCallCounts)", async () => {
    const { invoke, executions } = setUp(new Map([["charge", 2]]));
    const first = await invoke(1);
    const second = await invoke(2);
    expect(executions()).toBe(1);
    expect(toolOutcomeOf(first)).toBe("success");
    expect(toolOutcomeOf(second)).toBe("rejected");
    expect(second.status).toBe("error");
  });

  it("without resumed counts, the run has its whole cap", async () => {
    const { invoke, executions } = setUp(undefined);
    const outcomes = [];
    for (let amount = 1; amount <= 4; amount += 1) outcomes.push(toolOutcomeOf(await invoke(amount)));
    expect(outcomes).toEqual(["success", "success", "success", "rejected"]);
    expect(executions()).toBe(3);
  });

  it("writes each call's typed outcome on the ToolMessage (metadata.reinsOutcome), which readers use instead of the wording", async () => {
    const { invoke } = setUp(undefined);
    const message = await invoke(5);
    expect(message.metadata).toEqual({ reinsOutcome: "success" });
    expect(toolOutcomeOf({ metadata: { reinsOutcome: "not-an-outcome" } })).toBeUndefined();
    expect(toolOutcomeOf(new ToolMessage({ content: "x", tool_call_id: "c" }))).toBeUndefined();
  });
});
