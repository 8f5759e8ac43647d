import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fingerprintObservation } from "@reins/core";
import { newRunRecord, reinsRunSchema, resultFactsOf, runMessagesOf } from "./run-record";

const tool = (id: string, name: string, content: string, metadata?: Record<string, unknown>) =>
  new ToolMessage({ content, tool_call_id: id, name, ...(metadata !== undefined ? { metadata } : {}) });

describe("newRunRecord", () => {
  it("starts the run at the thread's new input: the messages after the last AI or tool message", () => {
    const messages = [
      new HumanMessage({ content: "first", id: "h1" }),
      new AIMessage({ content: "answer", id: "a1" }),
      new HumanMessage({ content: "second", id: "h2" }),
      new HumanMessage({ content: "more", id: "h3" }),
    ];
    const record = newRunRecord("run-2", messages, 5_000);
    expect(record).toMatchObject({ runId: "run-2", inputMessageId: "h2", inputMessageIndex: 2, startedAtMs: 5_000, activeMs: 0, modelCalls: 0, steps: [], notes: [] });
    expect(runMessagesOf(record, messages).map((message) => message.id)).toEqual(["h2", "h3"]);
    // What the checkpointer saves is what the schema accepts.
    expect(reinsRunSchema.parse(record)).toEqual(record);
  });

  it("keeps all messages when the input was trimmed away, and uses the index when messages have no ids", () => {
    const record = newRunRecord("run-1", [new HumanMessage({ content: "q", id: "gone" })], 0);
    const later = [new HumanMessage({ content: "summary", id: "s" }), new AIMessage({ content: "x", id: "a" })];
    expect(runMessagesOf(record, later)).toHaveLength(2);
    const anonymous = newRunRecord("run-3", [new AIMessage("a"), new HumanMessage("q")], 0);
    expect(anonymous.inputMessageId).toBeUndefined();
    expect(runMessagesOf(anonymous, [new AIMessage("a"), new HumanMessage("q"), new AIMessage("b")])).toHaveLength(2);
  });
});


describe("resultFactsOf", () => {
  it("reads the observation without the loop notes (metadata.reinsNotesAt), its fingerprint and outcome", () => {
    const facts = resultFactsOf(tool("1", "search", "Paris.\n\n[Loop notice] You called search twice.", { reinsOutcome: "success", reinsNotesAt: 6 }));
    expect(facts).toEqual({ observation: "Paris.", fingerprint: fingerprintObservation("Paris."), outcome: "success", failed: false });
    // An offset past the text is ignored rather than trusted.
    expect(resultFactsOf(tool("2", "search", "short", { reinsNotesAt: 99 })).observation).toBe("short");
  });
});
