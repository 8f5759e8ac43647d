/**
 * The health ratios of docs/metrics.md on createAgent with parallel tool calls: one model turn is
 * one `thought` and, when it calls tools, one `action` however many calls it makes, so
 * `action + finish ≤ thought` holds and the thought/action gap reads 0 for a healthy run, as on the
 * classic path. Tool and cycle durations are recorded (issue 26).
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { Registry } from "prom-client";
import { z } from "zod/v4";
import { createAgentMetrics } from "@reins/metrics";
import { createReinsMiddleware } from "./index";

const lookup = tool(async ({ query }: { query: string }) => `Capital of ${query}: ${query === "france" ? "Paris" : "Tokyo"}.`, {
  name: "lookup",
  description: "Look up a country's capital",
  schema: z.object({ query: z.string() }),
});

async function valueOf(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((candidate) => candidate.name === name);
  const values = (metric?.values ?? []) as Array<{ value: number; labels: Record<string, string | number>; metricName?: string }>;
  return values
    .filter((value) => Object.entries(labels).every(([key, expected]) => String(value.labels[key]) === expected))
    .reduce((sum, value) => sum + value.value, 0);
}

describe("createAgent step counts with parallel tool calls (docs/metrics.md invariant)", () => {
  it("counts one thought per model turn and one action per turn that calls tools; records tool and cycle durations", async () => {
    const registry = new Registry();
    const model = fakeModel()
      .respondWithTools([
        { name: "lookup", args: { query: "france" }, id: "a" },
        { name: "lookup", args: { query: "japan" }, id: "b" },
        { name: "lookup", args: { query: "peru" }, id: "c" },
      ])
      .respond(new AIMessage("Paris, Tokyo and Lima."));
    const agent = createAgent({ model, tools: [lookup], middleware: [createReinsMiddleware({ metrics: createAgentMetrics({ registry }) })] });
    const result = await agent.invoke({ messages: [new HumanMessage("Capitals of France, Japan and Peru?")] });
    expect(result.stopReason).toBe("final_answer");

    const thought = await valueOf(registry, "react_agent_steps_total", { step: "thought" });
    const action = await valueOf(registry, "react_agent_steps_total", { step: "action" });
    const finish = await valueOf(registry, "react_agent_steps_total", { step: "finish" });
    expect({ thought, action, finish }).toEqual({ thought: 2, action: 1, finish: 1 });
    expect(action + finish).toBeLessThanOrEqual(thought);
    // The documented gap: 1 − (action + finish) / thought; 0 is healthy.
    expect(1 - (action + finish) / thought).toBe(0);
    // The calls themselves are counted by tool_calls_total.
    expect(await valueOf(registry, "react_agent_tool_calls_total", { tool: "lookup", outcome: "success" })).toBe(3);

    const exposition = await registry.metrics();
    const count = (phase: string) => Number(new RegExp(`react_agent_step_duration_seconds_count\\{phase="${phase}"\\} (\\d+)`).exec(exposition)?.[1] ?? "0");
    expect({ llm: count("llm"), tool: count("tool"), cycle: count("cycle") }).toEqual({ llm: 2, tool: 3, cycle: 2 });
  });
});
