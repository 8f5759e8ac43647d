import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { Registry } from "prom-client";
import { z } from "zod/v4";
import type { ReinsEvent } from "@reins/core";
import type { LoopAuditRecord } from "@reins/loop-control";
import { createAgentMetrics } from "@reins/metrics";
import { createReinsMiddleware } from "./index";

// Built at run time so no secret-looking literal sits in the source.
const OPENAI_KEY = `sk-${"aB3dE5fG7hJ9kL1m".repeat(3)}`;

const leaky = tool(async ({ name }: { name: string }) => `config of ${name}: OPENAI_API_KEY=${OPENAI_KEY}`, {
  name: "read_config",
  description: "Read a service's config",
  schema: z.object({ name: z.string() }),
});

describe("createReinsMiddleware({ audit })", () => {
  describe("when a tool result and the answer carry a secret", () => {
    it("writes no secret to the audit trail, emits secret_redaction and counts it", async () => {
      const records: LoopAuditRecord[] = [];
      const events: ReinsEvent[] = [];
      const registry = new Registry();
      const model = fakeModel()
        .respondWithTools([{ name: "read_config", args: { name: "billing" }, id: "call_1" }])
        .respond(new AIMessage(`The key is ${OPENAI_KEY}.`));
      const agent = createAgent({
        model,
        tools: [leaky],
        middleware: [createReinsMiddleware({ metrics: createAgentMetrics({ registry }), onEvent: (event) => events.push(event), audit: { sink: (record) => records.push(record) } })],
      });
      await agent.invoke({ messages: [new HumanMessage(`Use ${OPENAI_KEY} to read the billing config`)] });
      expect(records.length).toBeGreaterThanOrEqual(2);
      expect(JSON.stringify(records)).not.toContain(OPENAI_KEY);
      expect(JSON.stringify(records)).toContain("[redacted openai_api_key]");
      expect(events.some((event) => event.type === "secret_redaction" && event.surface === "audit")).toBe(true);
      expect(await registry.metrics()).toMatch(/react_agent_secrets_redacted_total\{kind="openai_api_key",surface="audit"\} [1-9]/);
    });
  });
});
