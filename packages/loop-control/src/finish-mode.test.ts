import { AgentExecutor, BaseSingleActionAgent } from "@langchain/classic/agents";
import type { AgentAction, AgentFinish, AgentStep } from "@langchain/core/agents";
import type { CallbackManager } from "@langchain/core/callbacks/manager";
import type { ChainValues } from "@langchain/core/utils/types";
import { DynamicTool } from "@langchain/core/tools";
import { RunContextStore, buildLoopStopFinish, runIdsFrom, type ReinsEvent } from "@reins/core";
import { LoopControlHandler } from "./index";

/**
 * The contract Reins' createReactAgent follows in `mode: "finish"`, shown with a minimal agent:
 * before planning, look up the run's decision in the shared RunContextStore and, if the run must
 * stop, return `buildLoopStopFinish(...)` instead of calling the model.
 */
class StubbornAgent extends BaseSingleActionAgent {
  lc_namespace = ["reins", "tests"];
  plans = 0;

  constructor(private readonly runContext: RunContextStore) {
    super();
  }

  get inputKeys(): string[] {
    return ["input"];
  }

  async plan(steps: AgentStep[], _inputs: ChainValues, callbackManager?: CallbackManager): Promise<AgentAction | AgentFinish> {
    const decision = runIdsFrom(callbackManager)
      .map((runId) => this.runContext.contextOf(runId)?.loop.stop)
      .find((stop) => stop !== undefined);
    if (decision !== undefined) return buildLoopStopFinish(decision, steps, { escapeHatch: "Type 'human' to reach a person." });
    this.plans += 1;
    return { tool: "search", toolInput: "weather in Paris", log: "I should search.\nAction: search\nAction Input: weather in Paris" };
  }
}

describe("LoopControlHandler", () => {
  describe('in mode "finish" with an agent that checks the run decision', () => {
    it("ends the run with a graceful answer carrying stopReason, without throwing", async () => {
      const runContext = new RunContextStore();
      const events: ReinsEvent[] = [];
      const handler = new LoopControlHandler({ mode: "finish", runContext, onEvent: (event) => events.push(event) });
      const agent = new StubbornAgent(runContext);
      let calls = 0;
      const search = new DynamicTool({
        name: "search",
        description: "Searches.",
        func: async () => {
          calls += 1;
          return "22 °C";
        },
      });
      const executor = new AgentExecutor({ agent, tools: [search] });
      const result = await executor.invoke({ input: "Weather in Paris?" }, { callbacks: [handler] });
      expect(result.stopReason).toBe("repeat");
      expect(result.output).toBe(
        [
          "I stopped because I kept repeating the same step without getting new information.",
          "What I found so far:",
          "- search(weather in Paris): 22 °C",
          "",
          "Type 'human' to reach a person.",
        ].join("\n"),
      );
      expect(agent.plans).toBe(4);
      // Without a ToolExecutor nothing refuses the call the stop was decided on: it ran too.
      expect(calls).toBe(4);
      expect(events.at(-1)).toMatchObject({ type: "run_end", status: "stopped", stopReason: "repeat" });
      // The graceful answer is a stop (stops_total), not the model's final answer.
      expect(events.filter((event) => event.type === "step" && event.step === "finish")).toHaveLength(0);
      expect(runContext.size).toBe(0);
      expect(runContext.linkCount).toBe(0);
    });
  });
});
