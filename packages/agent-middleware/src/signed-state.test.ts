import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent, humanInTheLoopMiddleware } from "langchain";
import { z } from "zod/v4";
import type { ReinsEvent } from "@reins/core";
import { buildDurableAgent, ledgerOf } from "./__fixtures__/durable-agent";
import { addConfirmedCall, TAMPERINGS, tamperCheckpoint, type TamperingName } from "./__fixtures__/checkpoint-tampering";
import { createReinsMiddleware, ReinsMiddlewareOptionsError } from "./index";

/**
 * Signed guard state (issue 33), in one process: a paused thread's checkpoint edited through the
 * saver's API (MemorySaver), then resumed by the same agent object (the run is live here) and by a
 * rebuilt one. `signed-state.integration.test.ts` does the same across processes on SQLite.
 */

const KEY = "k".repeat(40);
const NEW_KEY = "n".repeat(40);
/** The agent's LangGraph state API (getState, getStateHistory). */
interface StateApi {
  getState(config: object): Promise<{ values: Record<string, unknown> }>;
  getStateHistory(config: object): AsyncIterable<{ values: Record<string, unknown> }>;
}
const stateApi = (agent: unknown): StateApi => agent as StateApi;
const APPROVE = () => new Command({ resume: { decisions: [{ type: "approve" }] } });

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), "reins-signed-"));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

/** A run paused for approval after two executions of `charge` (cap 3, 8 model calls). */
async function pausedRun(stateKey: string | readonly string[] | undefined, threadId: string) {
  const checkpointer = new MemorySaver();
  const ledgerPath = path.join(directory, "ledger.txt");
  const events: ReinsEvent[] = [];
  const built = buildDurableAgent({ checkpointer, ledgerPath, approval: true, onEvent: (event) => events.push(event), ...(stateKey !== undefined ? { stateKey } : {}) });
  const config = { configurable: { thread_id: threadId } };
  let result = await built.agent.invoke({ messages: [new HumanMessage("Charge me.")] }, config);
  for (let approvals = 0; approvals < 2; approvals += 1) result = await built.agent.invoke(APPROVE(), config);
  expect(result.__interrupt__).toBeDefined();
  expect(ledgerOf(ledgerPath)).toEqual([1, 2]);
  return { checkpointer, ledgerPath, events, config, agent: built.agent, threadId };
}

describe("createReinsMiddleware with a stateKey", () => {
  describe.each(["stripOutcomes", "moveInputMessageId", "clearSteps", "resetModelCalls", "removeRecord"] as TamperingName[])("a paused thread edited in the store (%s)", (name) => {
    it("is refused on resume by the same agent: stops with state_tampered and a run_state event, no further execution", async () => {
      const run = await pausedRun(KEY, `same-${name}`);
      await tamperCheckpoint(run.checkpointer, run.threadId, TAMPERINGS[name]);
      const result = await run.agent.invoke(APPROVE(), run.config);
      expect(result.stopReason).toBe("state_tampered");
      expect(ledgerOf(run.ledgerPath)).toEqual([1, 2]);
      const refusals = run.events.filter((event) => event.type === "run_state" && event.verdict === "tampered");
      expect(refusals.length).toBeGreaterThan(0);
      expect(run.events.some((event) => event.type === "run_end" && event.stopReason === "state_tampered")).toBe(true);
    });

    it("is refused on resume by a rebuilt agent", async () => {
      const run = await pausedRun(KEY, `rebuilt-${name}`);
      await tamperCheckpoint(run.checkpointer, run.threadId, TAMPERINGS[name]);
      const events: ReinsEvent[] = [];
      const rebuilt = buildDurableAgent({ checkpointer: run.checkpointer, ledgerPath: run.ledgerPath, approval: true, stateKey: KEY, onEvent: (event) => events.push(event) });
      const result = await rebuilt.agent.invoke(APPROVE(), run.config);
      expect(result.stopReason).toBe("state_tampered");
      expect(ledgerOf(run.ledgerPath)).toEqual([1, 2]);
      expect(events.some((event) => event.type === "run_state" && event.verdict === "tampered")).toBe(true);
    });
  });

  describe("a Command({ resume, update }) that resets the record", () => {
    it("is refused: stops with state_tampered, no further execution", async () => {
      const run = await pausedRun(KEY, "command-reset");
      const state = await stateApi(run.agent).getState(run.config);
      const reset = { ...(state.values.reinsRun as Record<string, unknown>), modelCalls: 0, steps: [], calls: [] };
      const result = await run.agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] }, update: { reinsRun: reset } }), run.config);
      expect(result.stopReason).toBe("state_tampered");
      expect(ledgerOf(run.ledgerPath)).toEqual([1, 2]);
      expect(result.reinsRunId).toBe((state.values.reinsRun as { runId: string }).runId);
    });

    it("is refused when the update replaces the record with the run's own older signed record", async () => {
      const run = await pausedRun(KEY, "command-rollback");
      const history = [];
      for await (const snapshot of stateApi(run.agent).getStateHistory(run.config)) history.push(snapshot);
      const older = history.map((snapshot) => snapshot.values.reinsRun as { modelCalls: number } | undefined).find((record) => record !== undefined && record.modelCalls === 1);
      expect(older).toBeDefined();
      const result = await run.agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] }, update: { reinsRun: older } }), run.config);
      expect(result.stopReason).toBe("state_tampered");
      expect(ledgerOf(run.ledgerPath)).toEqual([1, 2]);
    });
  });

  describe("a run's input that sets reinsRun", () => {
    it("is refused with state_tampered before any model call", async () => {
      const events: ReinsEvent[] = [];
      const model = fakeModel().respond(new AIMessage("Never asked."));
      const agent = createAgent({ model, tools: [], middleware: [createReinsMiddleware({ stateKey: KEY, onEvent: (event) => events.push(event) })], checkpointer: new MemorySaver() });
      const forged = { runId: "forged", inputMessageIndex: 0, startedAtMs: 0, activeMs: 0, modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, notedBudgets: [], steps: [], notes: [] };
      const result = await agent.invoke({ messages: [new HumanMessage("Hi")], reinsRun: forged } as never, { configurable: { thread_id: "input" } });
      expect(result.stopReason).toBe("state_tampered");
      expect(result.reinsRunId).not.toBe("forged");
      expect(events.some((event) => event.type === "run_state" && event.verdict === "tampered")).toBe(true);
    });
  });

  describe("a Command({ resume, update }) that sets reinsRunId", () => {
    it("is refused: the run id the state reports is the signed record's", async () => {
      const run = await pausedRun(KEY, "command-run-id");
      const result = await run.agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] }, update: { reinsRunId: "not-issued-by-reins" } }), run.config);
      expect(result.stopReason).toBe("state_tampered");
      expect(result.reinsRunId).toBe(result.reinsRun?.runId);
      expect(result.reinsRunId).not.toBe("not-issued-by-reins");
      expect(ledgerOf(run.ledgerPath)).toEqual([1, 2]);
    });
  });

  describe("a run whose input message was trimmed away (as summarization does)", () => {
    it("is not refused for the earlier runs' signed replies it now sees, and keeps its own call cap", async () => {
      const checkpointer = new MemorySaver();
      const ledgerPath = path.join(directory, "ledger.txt");
      const config = { configurable: { thread_id: "trimmed" } };
      const { agent } = buildDurableAgent({ checkpointer, ledgerPath, approval: true, stateKey: KEY, maxCallsPerRun: 2 });
      // Run 1: two approvals, then the cap refuses the third charge; it ends at its step budget.
      let result = await agent.invoke({ messages: [new HumanMessage("First order.")] }, config);
      for (let resumes = 0; result.stopReason === undefined && resumes < 20; resumes += 1) result = await agent.invoke(APPROVE(), config);
      expect(result.stopReason).toBe("max_steps");
      expect(ledgerOf(ledgerPath)).toHaveLength(2);
      // Run 2 pauses at its first charge; its input message is then removed from the saved thread.
      result = await agent.invoke({ messages: [new HumanMessage("Second order.")] }, config);
      expect(result.__interrupt__).toBeDefined();
      await tamperCheckpoint(checkpointer, "trimmed", (values) => {
        values.messages = (values.messages as BaseMessage[]).filter((message) => !(HumanMessage.isInstance(message) && message.content === "Second order."));
      });
      for (let resumes = 0; resumes < 20; resumes += 1) {
        result = await buildDurableAgent({ checkpointer, ledgerPath, approval: true, stateKey: KEY, maxCallsPerRun: 2 }).agent.invoke(APPROVE(), config);
        if (result.stopReason !== undefined) break;
      }
      expect(result.stopReason).toBe("max_steps");
      // Run 2's own cap of 2: two more executions, not zero (run 1's calls are not counted) and not more.
      expect(ledgerOf(ledgerPath)).toHaveLength(4);
    });
  });

  describe("keys", () => {
    it("rotates: a run signed with the old key resumes under [new, old], and is refused under [new] alone", async () => {
      const run = await pausedRun(KEY, "rotation");
      const rotated = buildDurableAgent({ checkpointer: run.checkpointer, ledgerPath: run.ledgerPath, approval: true, stateKey: [NEW_KEY, KEY] });
      const resumed = await rotated.agent.invoke(APPROVE(), run.config);
      expect(resumed.stopReason).toBeUndefined();
      expect(resumed.__interrupt__).toBeDefined();
      expect(ledgerOf(run.ledgerPath)).toEqual([1, 2, 3]);
      // The first signature written back here was made with the old key's successor, and the older outcomes with the old key.
      const newOnly = buildDurableAgent({ checkpointer: run.checkpointer, ledgerPath: run.ledgerPath, approval: true, stateKey: NEW_KEY });
      const refused = await newOnly.agent.invoke(APPROVE(), run.config);
      expect(refused.stopReason).toBe("state_tampered");
      expect(ledgerOf(run.ledgerPath)).toEqual([1, 2, 3]);
    });

    it("rejects a short key with an error naming the option and the minimum length", () => {
      expect(() => createReinsMiddleware({ stateKey: "too-short" })).toThrow(ReinsMiddlewareOptionsError);
      expect(() => createReinsMiddleware({ stateKey: "too-short" })).toThrow("Invalid createReinsMiddleware option 'stateKey': must be at least 32 characters (got 9)");
      expect(() => createReinsMiddleware({ stateKey: [KEY, "short"] })).toThrow("'stateKey[1]'");
    });

    it("rejects a short key in REINS_STATE_KEY, naming the variable", () => {
      const previous = process.env.REINS_STATE_KEY;
      process.env.REINS_STATE_KEY = `${KEY},short`;
      try {
        expect(() => createReinsMiddleware()).toThrow("'REINS_STATE_KEY (entry 2)'");
      } finally {
        if (previous === undefined) delete process.env.REINS_STATE_KEY;
        else process.env.REINS_STATE_KEY = previous;
      }
    });
  });

  describe("a confirmed call added to the paused AI message with the token read from the checkpoint", () => {
    const buildPayAgent = (checkpointer: MemorySaver, ledger: number[], stateKey: string | undefined) => {
      const pay = tool(async ({ amount }: { amount: number }) => (ledger.push(amount), `Paid ${amount}.`), { name: "pay", description: "Pay", schema: z.object({ amount: z.number() }) });
      const lookup = tool(async ({ query }: { query: string }) => `Facts about ${query}.`, { name: "lookup", description: "Look up", schema: z.object({ query: z.string() }) });
      const model = fakeModel()
        .respondWithTools([{ name: "pay", args: { amount: 500 }, id: "dry" }])
        .respondWithTools([{ name: "lookup", args: { query: "refund policy" }, id: "ask" }])
        .respond(new AIMessage("Done."));
      const reins = createReinsMiddleware({ toolExecutor: { policies: { pay: { sideEffects: true } } }, ...(stateKey !== undefined ? { stateKey } : {}) });
      return createAgent({ model, tools: [pay, lookup], middleware: [reins, humanInTheLoopMiddleware({ interruptOn: { lookup: true } })], checkpointer });
    };

    it("never runs: the run stops with state_tampered in the same process", async () => {
      const checkpointer = new MemorySaver();
      const ledger: number[] = [];
      const agent = buildPayAgent(checkpointer, ledger, KEY);
      const config = { configurable: { thread_id: "added-call" } };
      const paused = await agent.invoke({ messages: [new HumanMessage("Pay 500 if the policy allows.")] }, config);
      expect(paused.__interrupt__).toBeDefined();
      expect(paused.messages.some((message) => ToolMessage.isInstance(message) && message.metadata?.reinsOutcome === "dry_run")).toBe(true);
      await tamperCheckpoint(checkpointer, "added-call", (values) => addConfirmedCall(values, "pay", { amount: 500 }, "added"));
      const result = await agent.invoke(APPROVE(), config);
      expect(ledger).toEqual([]);
      expect(result.stopReason).toBe("state_tampered");
      const added = result.messages.find((message) => ToolMessage.isInstance(message) && message.tool_call_id === "added") as ToolMessage | undefined;
      expect(added?.status).toBe("error");
    });
  });
});

describe("createReinsMiddleware with a stateKey, a paused call edited with the token read from the checkpoint", () => {
  it("runs, but never as confirmed: the side-effect tool gives it a dry run", async () => {
    const checkpointer = new MemorySaver();
    const ledger: number[] = [];
    const pay = tool(async ({ amount }: { amount: number }) => (ledger.push(amount), `Paid ${amount}.`), { name: "pay", description: "Pay", schema: z.object({ amount: z.number() }) });
    const lookup = tool(async ({ query }: { query: string }) => `Facts about ${query}.`, { name: "lookup", description: "Look up", schema: z.object({ query: z.string() }) });
    const model = fakeModel()
      .respondWithTools([{ name: "pay", args: { amount: 500 }, id: "dry" }])
      .respondWithTools([{ name: "lookup", args: { query: "refund policy" }, id: "ask" }])
      .respond(new AIMessage("Done."));
    const reins = createReinsMiddleware({ toolExecutor: { policies: { pay: { sideEffects: true } } }, stateKey: KEY });
    const agent = createAgent({ model, tools: [pay, lookup], middleware: [reins, humanInTheLoopMiddleware({ interruptOn: { lookup: true } })], checkpointer });
    const config = { configurable: { thread_id: "edited-call" } };
    await agent.invoke({ messages: [new HumanMessage("Pay 500 if the policy allows.")] }, config);
    await tamperCheckpoint(checkpointer, "edited-call", (values) => {
      addConfirmedCall(values, "pay", { amount: 500 }, "unused");
      const paused = [...(values.messages as BaseMessage[])].reverse().find((message): message is AIMessage => AIMessage.isInstance(message)) as AIMessage;
      // The signed call "ask" becomes the confirmed payment (same id); the added call is dropped.
      const confirmed = paused.tool_calls?.find((call) => call.id === "unused");
      paused.tool_calls = [{ ...(confirmed as NonNullable<typeof confirmed>), id: "ask" }];
    });
    const result = await agent.invoke(APPROVE(), config);
    expect(ledger).toEqual([]);
    const answer = result.messages.find((message) => ToolMessage.isInstance(message) && message.tool_call_id === "ask") as ToolMessage | undefined;
    expect(answer?.metadata?.reinsOutcome).toBe("dry_run");
  });
});

describe("createReinsMiddleware on a thread saved before Reins (no run record)", () => {
  it("adopts it with counts rebuilt from its messages: the call cap and maxSteps still hold, and an event says so", async () => {
    const checkpointer = new MemorySaver();
    const ledgerPath = path.join(directory, "ledger.txt");
    const config = { configurable: { thread_id: "legacy" } };
    const plain = buildDurableAgent({ checkpointer, ledgerPath, approval: true, reins: false });
    await plain.agent.invoke({ messages: [new HumanMessage("Charge me.")] }, config);
    for (let approvals = 0; approvals < 3; approvals += 1) await plain.agent.invoke(APPROVE(), config);
    expect(ledgerOf(ledgerPath)).toEqual([1, 2, 3]);
    const events: ReinsEvent[] = [];
    let result = await buildDurableAgent({ checkpointer, ledgerPath, approval: true, onEvent: (event) => events.push(event) }).agent.invoke(APPROVE(), config);
    for (let resumes = 0; result.stopReason === undefined && resumes < 20; resumes += 1) {
      result = await buildDurableAgent({ checkpointer, ledgerPath, approval: true, onEvent: (event) => events.push(event) }).agent.invoke(APPROVE(), config);
    }
    // The cap of 3 was used before Reins: no execution after adoption.
    expect(ledgerOf(ledgerPath)).toEqual([1, 2, 3]);
    expect(result.stopReason).toBe("max_steps");
    expect(result.reinsRun?.modelCalls).toBe(8);
    expect(result.reinsRunId).toBe(result.reinsRun?.runId);
    const adopted = events.filter((event) => event.type === "run_state" && event.verdict === "legacy_adopted");
    expect(adopted).toHaveLength(1);
  });
});

describe("createReinsMiddleware without a stateKey", () => {
  it("refuses a first run whose input sets Reins' state keys (reinsRunId, stopReason)", async () => {
    const model = fakeModel().respond(new AIMessage("Never asked."));
    const agent = createAgent({ model, tools: [], middleware: [createReinsMiddleware()], checkpointer: new MemorySaver() });
    const result = await agent.invoke({ messages: [new HumanMessage("Hi")], reinsRunId: "chosen-by-caller", stopReason: "final_answer" } as never, { configurable: { thread_id: "input-keys" } });
    expect(result.stopReason).toBe("state_tampered");
    expect(result.reinsRunId).not.toBe("chosen-by-caller");
    expect(result.reinsRunId).toBe(result.reinsRun?.runId);
  });

  it("warns once through the logger that resumed protections are only as strong as the store", async () => {
    const previous = process.env.REINS_STATE_KEY;
    delete process.env.REINS_STATE_KEY;
    try {
      const warnings: string[] = [];
      const logger = { warn: (message: string) => warnings.push(message) };
      const checkpointer = new MemorySaver();
      const ledgerPath = path.join(directory, "ledger.txt");
      const config = { configurable: { thread_id: "unsigned" } };
      await buildDurableAgent({ checkpointer, ledgerPath, approval: true, logger }).agent.invoke({ messages: [new HumanMessage("Charge me.")] }, config);
      for (let resumes = 0; resumes < 3; resumes += 1) await buildDurableAgent({ checkpointer, ledgerPath, approval: true, logger }).agent.invoke(APPROVE(), config);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/only as strong as the checkpoint store's access control/);
    } finally {
      if (previous !== undefined) process.env.REINS_STATE_KEY = previous;
    }
  });
});
