import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { Registry } from "prom-client";
import { z } from "zod/v4";
import type { ReinsEvent } from "@reins/core";
import { readAuditTrail, renderTimelineHtml, renderTimelineText, type LoopAuditRecord } from "@reins/loop-control";
import { createAgentMetrics } from "@reins/metrics";
import { createReinsMiddleware, DUPLICATE_MESSAGE_ID_REPAIR } from "./index";

const lookup = tool(async ({ query }: { query: string }) => `Notes on ${query}.`, {
  name: "lookup",
  description: "Look something up",
  schema: z.object({ query: z.string() }),
});

const aiMessages = (messages: readonly BaseMessage[]): AIMessage[] => messages.filter((message): message is AIMessage => AIMessage.isInstance(message));

/**
 * One process's model: LangChain's `fakeModel()` numbers its tool-calling replies "0", "1", … from
 * 0 in every process (and for every new model), so a second process meets the first one's ids.
 */
const processModel = (turn: number) => fakeModel().respondWithTools([{ name: "lookup", args: { query: `topic ${turn}` }, id: `call_${turn}` }]).respond(new AIMessage({ content: `Answer ${turn}.`, id: "answer" }));

describe("createReinsMiddleware: message ids", () => {
  describe("when a thread is resumed by a second agent (another process) whose model reuses the first one's ids", () => {
    it("keeps every message of the thread, gives the reused ids fresh ones and records each as a duplicate_message_id repair", async () => {
      const checkpointer = new MemorySaver();
      const registry = new Registry();
      const metrics = createAgentMetrics({ registry });
      const events: ReinsEvent[] = [];
      const records: LoopAuditRecord[] = [];
      const config = { configurable: { thread_id: "resumed-thread" } };
      const agentOf = (turn: number) =>
        createAgent({
          model: processModel(turn),
          tools: [lookup],
          middleware: [createReinsMiddleware({ metrics, onEvent: (event) => events.push(event), audit: { sink: (record) => records.push(record) } })],
          checkpointer,
        });

      const first = await agentOf(1).invoke({ messages: [new HumanMessage("Question 1")] }, config);
      expect(aiMessages(first.messages).map((message) => message.id)).toEqual(["0", "answer"]);
      const second = await agentOf(2).invoke({ messages: [new HumanMessage("Question 2")] }, config);

      // fakeModel's tool-calling replies echo the prompt as their text; the answers are ours.
      expect(second.messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai", "human", "ai", "tool", "ai"]);
      expect(second.messages.filter((message) => message.getType() !== "ai").map((message) => message.content)).toEqual(["Question 1", "Notes on topic 1.", "Question 2", "Notes on topic 2."]);
      expect(aiMessages(second.messages).filter((message) => (message.tool_calls ?? []).length === 0).map((message) => message.content)).toEqual(["Answer 1.", "Answer 2."]);
      expect(aiMessages(second.messages).map((message) => message.tool_calls?.[0]?.id)).toEqual(["call_1", undefined, "call_2", undefined]);
      const ids = second.messages.map((message) => message.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.slice(0, 4)).toEqual(first.messages.map((message) => message.id));
      expect(aiMessages(second.messages).slice(2).map((message) => message.id)).toEqual([expect.stringMatching(/^reins-msg-/), expect.stringMatching(/^reins-msg-/)]);

      const repairs = events.filter((event) => event.type === "parser_repair");
      expect(repairs).toEqual([
        expect.objectContaining({ repair: DUPLICATE_MESSAGE_ID_REPAIR, runId: second.reinsRunId }),
        expect.objectContaining({ repair: DUPLICATE_MESSAGE_ID_REPAIR, runId: second.reinsRunId }),
      ]);
      expect(await registry.metrics()).toContain(`react_agent_parser_repairs_total{repair="${DUPLICATE_MESSAGE_ID_REPAIR}"} 2`);

      // The audit: on the second run's tool turn (reply-level) and on its finish record.
      const secondRun = records.filter((record) => record.runId === second.reinsRunId);
      expect(secondRun.map((record) => [record.outcome, record.repairs, record.replyRepairs])).toEqual([
        ["observed", [], [DUPLICATE_MESSAGE_ID_REPAIR]],
        ["finish", [DUPLICATE_MESSAGE_ID_REPAIR], undefined],
      ]);
      const trail = readAuditTrail(records.map((record) => JSON.stringify(record)).join("\n"));
      const run = trail.runs.find((each) => each.runId === second.reinsRunId);
      expect(run?.turns.map((turn) => turn.labels.map((label) => label.text))).toEqual([[`repaired: ${DUPLICATE_MESSAGE_ID_REPAIR}`], [`repaired: ${DUPLICATE_MESSAGE_ID_REPAIR}`]]);
      expect(renderTimelineText(trail)).toContain(`[repaired: ${DUPLICATE_MESSAGE_ID_REPAIR}]`);
    });
  });

  describe("when the model returns the same id on every turn of one run", () => {
    it("keeps every turn's reply and tool result in order", async () => {
      const same = (content: string, calls: Array<{ query: string; id: string }>) =>
        new AIMessage({ id: "chatcmpl-replay-1", content, tool_calls: calls.map((call) => ({ name: "lookup", args: { query: call.query }, id: call.id, type: "tool_call" as const })) });
      const model = fakeModel()
        .respond(same("", [{ query: "a", id: "c1" }]))
        .respond(same("", [{ query: "b", id: "c2" }]))
        .respond(same("Done.", []));
      const agent = createAgent({ model, tools: [lookup], middleware: [createReinsMiddleware()], checkpointer: new MemorySaver() });
      const result = await agent.invoke({ messages: [new HumanMessage("Look up a then b")] }, { configurable: { thread_id: "same-id" } });
      expect(result.messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai", "tool", "ai"]);
      expect(aiMessages(result.messages).map((message) => message.tool_calls?.[0]?.args)).toEqual([{ query: "a" }, { query: "b" }, undefined]);
      expect(aiMessages(result.messages)[0].id).toBe("chatcmpl-replay-1");
      expect(new Set(result.messages.map((message) => message.id)).size).toBe(6);
      expect(result.stopReason).toBe("final_answer");
    });
  });

  describe("when a reply's id is new to the thread", () => {
    it("keeps the reply and its id unchanged, with no repair", async () => {
      const events: ReinsEvent[] = [];
      const model = fakeModel().respond(new AIMessage({ id: "unique-1", content: "Hello." }));
      const agent = createAgent({ model, tools: [lookup], middleware: [createReinsMiddleware({ onEvent: (event) => events.push(event) })] });
      const result = await agent.invoke({ messages: [new HumanMessage("Hi")] });
      expect(aiMessages(result.messages).map((message) => message.id)).toEqual(["unique-1"]);
      expect(events.filter((event) => event.type === "parser_repair")).toEqual([]);
    });
  });
});

describe("createReinsMiddleware({ audit }): repairs of parallel calls", () => {
  it("puts a repair on the call it was applied to, not on the turn's other calls", async () => {
    const records: LoopAuditRecord[] = [];
    const model = fakeModel()
      .respondWithTools([
        { name: "lookup", args: { query: "plain" }, id: "plain_call" },
        { name: "Lookup", args: { query: "renamed" }, id: "repaired_call" },
        { name: "lookup", args: { query: "other" }, id: "other_call" },
      ])
      .respond(new AIMessage("Done."));
    const agent = createAgent({ model, tools: [lookup], middleware: [createReinsMiddleware({ audit: { sink: (record) => records.push(record) } })] });
    await agent.invoke({ messages: [new HumanMessage("Three lookups")] });
    const byCall = new Map(records.filter((record) => record.callId !== undefined).map((record) => [record.callId, record.repairs]));
    expect(byCall.get("plain_call")).toEqual([]);
    expect(byCall.get("other_call")).toEqual([]);
    expect(byCall.get("repaired_call")?.length).toBeGreaterThan(0);
    const html = renderTimelineHtml(readAuditTrail(records.map((record) => JSON.stringify(record)).join("\n")));
    expect(html.match(/class="badge repair"/g)).toHaveLength(1);
    expect(html).toMatch(/data-call-id="repaired_call"><div class="call-head"><code>[^<]*<\/code><span class="badge repair">repaired: /);
  });
});
