import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createStateSigner } from "@reins/core";
import { newRunRecord } from "./run-record";
import { StateGuard, withoutConfirmation } from "./state-guard";

const KEY = "g".repeat(32);

/** A run: the human input, one signed reply with `calls`, and a ToolMessage per call with `outcomes[i]` (undefined: none). */
function signedRun(guard: StateGuard, calls: Array<{ id: string; name: string }>, outcomes: Array<string | undefined>) {
  const input = new HumanMessage({ content: "Go.", id: "h" });
  const record = { ...newRunRecord("run-1", [input], 0), modelCalls: 1 };
  const reply = guard.signReply(new AIMessage({ content: "", id: "a", tool_calls: calls.map((call) => ({ ...call, args: {}, type: "tool_call" as const })) }), "run-1", 1);
  const results = calls.map((call, index) => {
    const outcome = outcomes[index];
    const message = new ToolMessage({ content: "r", tool_call_id: call.id, name: call.name, ...(outcome !== undefined ? { metadata: { reinsOutcome: outcome } } : {}) });
    return guard.signOutcome(message, "run-1");
  });
  const messages: BaseMessage[] = [input, reply, ...results];
  return { record: guard.absorb(record, messages), messages };
}

describe("StateGuard", () => {
  describe("call counts", () => {
    it("counts the calls that passed the cap by their typed outcome, and an answer Reins did not write, by tool", () => {
      const guard = new StateGuard(undefined);
      const calls = ["success", "error", "rejected", "dry_run", "cached", "timeout", undefined].map((_, index) => ({ id: `c${index}`, name: index < 4 ? "charge" : "search" }));
      const { record } = signedRun(guard, calls, ["success", "error", "rejected", "dry_run", "cached", "timeout", undefined]);
      expect(Object.fromEntries(guard.callCounts(record))).toEqual({ charge: 2, search: 2 });
      expect(record.calls?.at(-1)?.outcome).toBe("external");
    });
  });

  describe("with a key", () => {
    const guard = new StateGuard(createStateSigner([KEY]));

    it("accepts the state it signed", () => {
      const { record, messages } = signedRun(guard, [{ id: "c1", name: "charge" }], ["success"]);
      expect(guard.tamperedReason(guard.seal(record), messages)).toBeUndefined();
    });

    it("refuses an outcome rewritten to one that escapes the cap (success → cached)", () => {
      const { record, messages } = signedRun(guard, [{ id: "c1", name: "charge" }], ["success"]);
      const result = messages.at(-1) as ToolMessage;
      result.metadata = { ...result.metadata, reinsOutcome: "cached" };
      expect(guard.tamperedReason(guard.seal(record), messages)).toMatch(/does not verify/);
    });

    it("refuses a correction removed from a reply (the reply's signature covers it)", () => {
      const { record, messages } = signedRun(guard, [{ id: "c1", name: "charge" }], ["invalid_input"]);
      const reply = messages[1] as AIMessage;
      const signed = guard.signReply(new AIMessage({ content: "", id: "a", tool_calls: reply.tool_calls, response_metadata: { reinsCorrections: { c1: "Use the right fields." } } }), "run-1", 1);
      signed.response_metadata = { ...signed.response_metadata, reinsCorrections: {} };
      expect(guard.tamperedReason(guard.seal(record), [messages[0] as BaseMessage, signed, ...messages.slice(2)])).toMatch(/no valid signature/);
    });

    it("refuses a record whose signature is missing its key's match (signed with another key)", () => {
      const other = new StateGuard(createStateSigner(["o".repeat(32)]));
      const { record, messages } = signedRun(guard, [{ id: "c1", name: "charge" }], ["success"]);
      expect(guard.tamperedReason(other.seal(record), messages)).toMatch(/record's signature does not verify/);
    });
  });
});

describe("withoutConfirmation", () => {
  it("drops confirm from object arguments and from a string-input tool's JSON text", () => {
    expect(withoutConfirmation({ amount: 5, confirm: "t" })).toEqual({ amount: 5 });
    expect(withoutConfirmation({ input: JSON.stringify({ input: "refund 42", confirm: "t" }) })).toEqual({ input: "refund 42" });
    expect(withoutConfirmation({ input: "plain text" })).toEqual({ input: "plain text" });
  });
});
