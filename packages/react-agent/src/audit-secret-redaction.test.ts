import { AgentExecutor } from "@langchain/classic/agents";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicTool } from "@langchain/core/tools";
import { REACT_PROMPT_TEMPLATE, type ReinsEvent } from "@reins/core";
import { ScriptedChatModel } from "@reins/testing";
import { createReactAgent } from "./index";

const REACT_PROMPT = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);
// Built at run time so no secret-looking literal sits in the source.
const GITHUB_TOKEN = `ghp_${"a1B2c3D4e5F6".repeat(3)}`;

describe("createReactAgent", () => {
  describe("with an audit sink and a tool whose result carries a secret", () => {
    it("writes no secret to the audit trail and reports the redaction as a secret_redaction event", async () => {
      const records: unknown[] = [];
      const events: ReinsEvent[] = [];
      const leaky = new DynamicTool({ name: "env", description: "Reads the environment.", func: async () => `GITHUB_TOKEN=${GITHUB_TOKEN}` });
      const agent = await createReactAgent({
        llm: new ScriptedChatModel({ replies: ["Thought: read it.\nAction: env\nAction Input: all", "Final Answer: done"] }),
        tools: [leaky],
        prompt: REACT_PROMPT,
        onEvent: (event) => events.push(event),
        loopControl: { audit: { sink: (record) => records.push(record) } },
      });
      await new AgentExecutor({ agent, tools: agent.tools }).invoke({ input: "q" });
      expect(records.length).toBeGreaterThanOrEqual(2);
      expect(JSON.stringify(records)).not.toContain(GITHUB_TOKEN);
      expect(JSON.stringify(records)).toContain("[redacted github_token]");
      expect(events).toContainEqual(expect.objectContaining({ type: "secret_redaction", surface: "audit", kinds: ["github_token"] }));
    });
  });
});
