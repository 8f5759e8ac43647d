import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { DynamicTool, tool } from "@langchain/core/tools";
import { RunContextStore, type ReinsEvent, type ToolCallEvent } from "@reins/core";
import { z } from "zod";
import { runStockAgent, type ExecutorPath } from "./__fixtures__/agent-harness";
import { never, settleWithFakeTimers } from "./__fixtures__/fake-time";
import { actionReply, finalReply } from "./__fixtures__/scripted-chat-model";
import { ToolExecutor } from "./index";

class NoopHandler extends BaseCallbackHandler {
  name = "noop";
}

/**
 * Stands in for LoopControlHandler: registers the top-level run in the store at chain start and
 * queues a note for the model at each agent action. Awaited by LangChain (raiseError: true).
 */
class RunRegisteringHandler extends BaseCallbackHandler {
  name = "run-registering";
  readonly topLevelRunIds: string[] = [];

  constructor(private readonly store: RunContextStore) {
    super({ raiseError: true });
  }

  async handleChainStart(_chain: unknown, _inputs: unknown, runId: string, parentRunId?: string): Promise<void> {
    if (parentRunId === undefined) {
      this.topLevelRunIds.push(runId);
      this.store.start(runId);
    }
  }

  async handleAgentAction(_action: unknown, runId: string): Promise<void> {
    this.store.contextOf(runId)?.loop.pendingNotes.push("Note: you are repeating yourself.");
  }
}

function stringTool(name: string, behaviours: Array<(input: string) => unknown>): { tool: DynamicTool; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    tool: new DynamicTool({
      name,
      description: `${name} tool`,
      func: async (input) => {
        calls.push(input);
        return (await behaviours[Math.min(calls.length - 1, behaviours.length - 1)](input)) as string;
      },
    }),
  };
}

function toolCallEvents(events: ReinsEvent[]): ToolCallEvent[] {
  return events.filter((event): event is ToolCallEvent => event.type === "tool_call");
}

function expectModelFacing(observation: string): void {
  expect(observation.trim()).not.toBe("");
  expect(observation).not.toMatch(/undefined|\[object Object\]|\n\s+at /);
}

afterEach(() => {
  jest.useRealTimers();
});

describe.each<ExecutorPath>(["invoke", "stream"])("ToolExecutor with the stock AgentExecutor (%s path)", (path) => {
  describe("a tool that never resolves", () => {
    it("settles within timeoutMs × attempts + backoff and the model reads a timeout observation", async () => {
      jest.useFakeTimers();
      const calls: string[] = [];
      const hanging = {
        calls,
        // Hangs until its signal aborts (an idempotent read that honours cancellation).
        tool: new DynamicTool({
          name: "slow_search",
          description: "slow",
          func: (input, _runManager, config) => {
            calls.push(input);
            return new Promise<string>((_resolve, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
          },
        }),
      };
      const executor = new ToolExecutor({ defaults: { timeoutMs: 1000, idempotent: true, retry: { maxAttempts: 2, initialDelayMs: 100, maxDelayMs: 100, jitter: "none" } } });
      const run = runStockAgent({
        path,
        tools: executor.wrap([hanging.tool]),
        replies: [actionReply("slow_search", "weather in Paris"), finalReply("I could not look it up.")],
      });
      const { value, elapsedMs } = await settleWithFakeTimers(run, { stepMs: 5 });
      expect(elapsedMs).toBeLessThanOrEqual(1000 * 2 + 100 + 20);
      expect(hanging.calls).toHaveLength(2);
      expect(value.steps[0].observation).toMatch(/"slow_search" did not answer within 1 s \(tried 2 times\)/);
      expect(value.model.prompts[1]).toContain('Observation: Tool "slow_search" did not answer');
      expect(value.output).toBe("I could not look it up.");
    });
  });

  describe("tools that throw non-errors", () => {
    it.each([
      ["a string", "rate limited by upstream"],
      ["an object", { detail: "upstream exploded" }],
      ["undefined", undefined],
    ])("gives the model a non-empty, meaningful observation when the tool throws %s", async (_label, thrown) => {
      const thrower = stringTool("lookup", [
        () => {
          throw thrown;
        },
      ]);
      const executor = new ToolExecutor({ defaults: { retry: false } });
      const result = await runStockAgent({ path, tools: executor.wrap([thrower.tool]), replies: [actionReply("lookup", "x"), finalReply("done")] });
      const observation = result.steps[0].observation as string;
      expectModelFacing(observation);
      expect(observation).toMatch(/^Tool "lookup" failed: /);
      expect(observation).toMatch(/change the input, use another tool, or answer/);
    });
  });

  describe("a flaky HTTP tool (503, 503, 200)", () => {
    it("succeeds on the third attempt", async () => {
      jest.useFakeTimers();
      const events: ReinsEvent[] = [];
      const flaky = stringTool("weather", [
        () => {
          throw { status: 503, message: "Service Unavailable" };
        },
        () => {
          throw { status: 503, message: "Service Unavailable" };
        },
        () => JSON.stringify({ status: 200, body: '{"temp":18}' }),
      ]);
      const executor = new ToolExecutor({ onEvent: (event) => events.push(event), defaults: { retry: { maxAttempts: 3, initialDelayMs: 50, jitter: "full" } } });
      const { value } = await settleWithFakeTimers(
        runStockAgent({ path, tools: executor.wrap([flaky.tool]), replies: [actionReply("weather", "Paris"), finalReply("18")] }),
      );
      expect(flaky.calls).toHaveLength(3);
      expect(value.steps[0].observation).toBe('{"status":200,"body":"{\\"temp\\":18}"}');
      expect(toolCallEvents(events).map((event) => event.outcome)).toEqual(["success"]);
      expect(events.filter((event) => event.type === "tool_retry")).toHaveLength(2);
    });
  });

  describe("a dead service behind a circuit breaker", () => {
    it("answers without calling the tool once open, and a half-open probe closes the circuit", async () => {
      jest.useFakeTimers();
      let healthy = false;
      const dead = stringTool("inventory", [
        () => {
          if (healthy) return "12 in stock";
          throw { status: 500, message: "Internal Server Error" };
        },
      ]);
      const executor = new ToolExecutor({ defaults: { retry: false, circuitBreaker: { failureThreshold: 2, halfOpenAfterMs: 30_000 } } });
      const { value } = await settleWithFakeTimers(
        runStockAgent({
          path,
          tools: executor.wrap([dead.tool]),
          replies: [
            actionReply("inventory", "sku-1"),
            actionReply("inventory", "sku-1"),
            actionReply("inventory", "sku-1"),
            () => {
              healthy = true;
              jest.setSystemTime(Date.now() + 30_001);
              return actionReply("inventory", "sku-1");
            },
            finalReply("12"),
          ],
        }),
      );
      expect(dead.calls).toHaveLength(3);
      const observations = value.steps.map((step) => step.observation as string);
      expect(observations[2]).toMatch(/"inventory" is unavailable right now/);
      expect(observations[3]).toBe("12 in stock");
      expect(executor.circuitStateOf("inventory")).toBe("closed");
    });
  });

  describe("a side-effect tool", () => {
    /** The token of the latest dry run in the prompt (the model's own earlier guesses come first). */
    const lastToken = (prompt: string): string => [...prompt.matchAll(/DRY RUN[^\n]*"confirm": "(ok-[0-9a-f]{8})"/g)].pop()?.[1] ?? "none";

    it("never runs on a confirmation written before the dry run, and runs once confirmed with the dry run's token", async () => {
      const sent: unknown[] = [];
      const sendEmail = tool(
        async (input: { to: string }) => {
          sent.push(input);
          return `sent to ${input.to}`;
        },
        { name: "send_email", description: "Sends an email.", schema: z.object({ to: z.string() }) },
      );
      const executor = new ToolExecutor({ policies: { send_email: { sideEffects: true } } });
      const result = await runStockAgent({
        path,
        tools: executor.wrap([sendEmail]),
        callbacks: [new NoopHandler()],
        replies: [
          actionReply("send_email", '{"to": "a@example.com", "confirm": "ok-00000000"}'),
          (prompt) => actionReply("send_email", `{"to": "a@example.com", "confirm": "${lastToken(prompt)}"}`),
          (prompt) => actionReply("send_email", `{"to": "a@example.com", "confirm": "${lastToken(prompt)}"}`),
          finalReply("sent"),
        ],
      });
      const observations = result.steps.map((step) => step.observation as string);
      expect(observations[0]).toMatch(/^DRY RUN: tool "send_email".*"confirm": "ok-[0-9a-f]{8}"/);
      expect(observations[0]).not.toContain("ok-00000000");
      expect(observations[1]).toBe("sent to a@example.com");
      expect(observations[2]).toMatch(/already run with this input in this task/);
      expect(sent).toEqual([{ to: "a@example.com" }]);
    });
  });

  describe("more concurrent calls than the bulkhead allows", () => {
    it("gives the extra call a clear rejection", async () => {
      jest.useFakeTimers();
      const slow = stringTool("render", [() => new Promise((resolve) => setTimeout(() => resolve("rendered"), 500))]);
      const executor = new ToolExecutor({ defaults: { bulkhead: { maxConcurrent: 1, maxQueued: 0 } } });
      const tools = executor.wrap([slow.tool]);
      const runs = Promise.all([
        runStockAgent({ path, tools, replies: [actionReply("render", "page 1"), finalReply("ok")] }),
        runStockAgent({ path, tools, replies: [actionReply("render", "page 2"), finalReply("ok")] }),
      ]);
      const { value } = await settleWithFakeTimers(runs);
      const observations = value.map((result) => result.steps[0].observation as string).sort();
      expect(observations[0]).toMatch(/^Tool "render" is busy \(1 calls already running and its queue is full\)/);
      expect(observations[1]).toBe("rendered");
      expect(slow.calls).toHaveLength(1);
    });
  });

  describe("run identity", () => {
    it("counts maxCallsPerRun per AgentExecutor invocation (tool run's parent run id)", async () => {
      const events: ReinsEvent[] = [];
      const search = stringTool("search", [(input) => `r:${input}`]);
      const executor = new ToolExecutor({ onEvent: (event) => events.push(event), policies: { search: { maxCallsPerRun: 2 } } });
      const tools = executor.wrap([search.tool]);
      const replies = [actionReply("search", "1"), actionReply("search", "2"), actionReply("search", "3"), finalReply("done")];
      const first = await runStockAgent({ path, tools, replies, callbacks: [new NoopHandler()] });
      await runStockAgent({ path, tools, replies: [actionReply("search", "4"), finalReply("done")], callbacks: [new NoopHandler()] });
      expect(first.steps[2].observation).toMatch(/already called 2 times in this task/);
      expect(search.calls).toEqual(["1", "2", "4"]);
      const runIds = toolCallEvents(events).map((event) => event.runId);
      expect(new Set(runIds.slice(0, 3)).size).toBe(1);
      expect(runIds[3]).not.toBe(runIds[0]);
      expect(runIds.every((runId) => typeof runId === "string")).toBe(true);
    });
  });

  describe("with a run registered in the RunContextStore", () => {
    it("finds the run from the tool's run manager and appends the run's pending notes", async () => {
      const store = new RunContextStore();
      const handler = new RunRegisteringHandler(store);
      const events: ReinsEvent[] = [];
      const search = stringTool("search", [(input) => `r:${input}`]);
      const executor = new ToolExecutor({ runContext: store, onEvent: (event) => events.push(event) });
      const result = await runStockAgent({
        path,
        tools: executor.wrap([search.tool]),
        replies: [actionReply("search", "1"), finalReply("done")],
        callbacks: [handler],
      });
      expect(result.steps[0].observation).toBe("r:1\n\nNote: you are repeating yourself.");
      expect(handler.topLevelRunIds).toHaveLength(1);
      expect(toolCallEvents(events)[0].runId).toBe(handler.topLevelRunIds[0]);
      expect(store.contextOf(handler.topLevelRunIds[0])?.loop.pendingNotes).toEqual([]);
    });
  });

  describe("when the loop controller has stopped the run", () => {
    it("answers the stop note without calling the tool", async () => {
      const store = new RunContextStore();
      const handler = new RunRegisteringHandler(store);
      const stopping = new (class extends BaseCallbackHandler {
        name = "stopping";
        constructor() {
          super({ raiseError: true });
        }
        async handleAgentAction(_action: unknown, runId: string): Promise<void> {
          const context = store.contextOf(runId);
          if (context !== undefined) context.loop.stop = { reason: "repeat", message: "Repeated action." };
        }
      })();
      const events: ReinsEvent[] = [];
      const search = stringTool("search", [(input) => `r:${input}`]);
      const executor = new ToolExecutor({ runContext: store, onEvent: (event) => events.push(event) });
      const result = await runStockAgent({
        path,
        tools: executor.wrap([search.tool]),
        replies: [actionReply("search", "1"), finalReply("done")],
        callbacks: [handler, stopping],
      });
      expect(search.calls).toEqual([]);
      expect(result.steps[0].observation).toMatch(/^Tool "search" was not called: this task is being stopped/);
      expect(toolCallEvents(events).map((event) => [event.outcome, event.runId])).toEqual([["rejected", handler.topLevelRunIds[0]]]);
    });
  });

  describe("a returnDirect tool", () => {
    it("passes returnDirect through, so the run ends on the tool's observation", async () => {
      const direct = new DynamicTool({ name: "final_lookup", description: "Answers directly.", returnDirect: true, func: async () => "the direct answer" });
      const executor = new ToolExecutor();
      const result = await runStockAgent({ path, tools: executor.wrap([direct]), replies: [actionReply("final_lookup", "x")] });
      expect(result.model.prompts).toHaveLength(1);
      expect(result.steps.map((step) => step.observation)).toEqual(["the direct answer"]);
      // The stock stream() loop overwrites a returnDirect output with the step chunk (LangChain
      // behaviour, AgentExecutorIterator._processNextStepOutput), so only invoke() reports it.
      expect(result.output).toBe(path === "invoke" ? "the direct answer" : undefined);
    });
  });
});

describe.each<ExecutorPath>(["invoke", "stream", "streamEvents"])("ToolExecutor cache scope with the stock AgentExecutor (%s path)", (path) => {
  /** `my_orders` answers with the orders of whoever the run is for (the app's own lookup). */
  function ordersTool(): { tool: DynamicTool; calls: string[]; setUser: (user: string) => void } {
    let user = "";
    const calls: string[] = [];
    return {
      calls,
      setUser: (next) => {
        user = next;
      },
      tool: new DynamicTool({
        name: "my_orders",
        description: "The user's orders",
        func: async (input) => {
          calls.push(`${user}:${input}`);
          return `orders of ${user} (${input})`;
        },
      }),
    };
  }
  // streamEvents always attaches its own handler; the other paths get one only when the caller passes callbacks.
  const callbacks = (): BaseCallbackHandler[] | undefined => (path === "streamEvents" ? undefined : [new NoopHandler()]);

  describe("by default (scope run)", () => {
    it("serves a repeat within one run from the cache", async () => {
      const orders = ordersTool();
      orders.setUser("alice");
      const executor = new ToolExecutor({ defaults: { cache: true } });
      const result = await runStockAgent({
        path,
        callbacks: callbacks(),
        tools: executor.wrap([orders.tool]),
        replies: [actionReply("my_orders", "recent"), actionReply("my_orders", "recent"), finalReply("done")],
      });
      expect(orders.calls).toEqual(["alice:recent"]);
      expect(result.steps.map((step) => step.observation)).toEqual(["orders of alice (recent)", "orders of alice (recent)"]);
    });

    it("never serves one user's result to another user's run", async () => {
      const orders = ordersTool();
      const executor = new ToolExecutor({ defaults: { cache: true } });
      const tools = executor.wrap([orders.tool]);
      const observations: unknown[] = [];
      for (const user of ["alice", "bob"]) {
        orders.setUser(user);
        const result = await runStockAgent({ path, callbacks: callbacks(), configurable: { user_id: user }, tools, replies: [actionReply("my_orders", "recent"), finalReply("done")] });
        observations.push(result.steps[0].observation);
      }
      expect(orders.calls).toEqual(["alice:recent", "bob:recent"]);
      expect(observations).toEqual(["orders of alice (recent)", "orders of bob (recent)"]);
    });
  });

  if (path !== "streamEvents") {
    describe("when the path hands the tool no run id (no callbacks)", () => {
      it("does not cache (fail safe) and logs why, once", async () => {
        const orders = ordersTool();
        orders.setUser("alice");
        const warnings: string[] = [];
        const executor = new ToolExecutor({ logger: { warn: (message) => warnings.push(message) }, defaults: { cache: true } });
        await runStockAgent({
          path,
          tools: executor.wrap([orders.tool]),
          replies: [actionReply("my_orders", "recent"), actionReply("my_orders", "recent"), finalReply("done")],
        });
        expect(orders.calls).toEqual(["alice:recent", "alice:recent"]);
        expect(warnings.filter((message) => message.includes("not cached: the call carries no run id"))).toHaveLength(1);
      });
    });
  }

  describe("with a scope function over metadata (reaches the tool on every path that has callbacks)", () => {
    it("shares entries between runs of one user and keeps users apart", async () => {
      const orders = ordersTool();
      const executor = new ToolExecutor({ defaults: { cache: { scope: (context) => context.metadata?.user_id as string | undefined } } });
      const tools = executor.wrap([orders.tool]);
      const observations: unknown[] = [];
      for (const user of ["alice", "alice", "bob"]) {
        orders.setUser(user);
        const result = await runStockAgent({ path, callbacks: callbacks(), metadata: { user_id: user }, tools, replies: [actionReply("my_orders", "recent"), finalReply("done")] });
        observations.push(result.steps[0].observation);
      }
      expect(orders.calls).toEqual(["alice:recent", "bob:recent"]);
      expect(observations).toEqual(["orders of alice (recent)", "orders of alice (recent)", "orders of bob (recent)"]);
    });
  });
});
