import { AgentExecutor, createReactAgent } from "@langchain/classic/agents";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicTool } from "@langchain/core/tools";
import { BudgetExceededError, LoopControlHandler, LoopStoppedError, RunStoppedError } from "./index";
import { ReplayChatModel } from "@reins/testing";
import { REACT_PROMPT_TEMPLATE } from "@reins/core";

const PROMPT = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);

const REPEATED_ACTION = "I should look up the weather.\nAction: search\nAction Input: weather in Paris";

async function buildExecutor(
  replies: readonly string[],
  callbacks?: LoopControlHandler[],
): Promise<{ executor: AgentExecutor; toolCalls: string[] }> {
  const toolCalls: string[] = [];
  const search = new DynamicTool({
    name: "search",
    description: "Searches the web.",
    func: async (input: string) => {
      toolCalls.push(input);
      return "Paris: 22 °C, sunny";
    },
  });
  const llm = new ReplayChatModel({ replies });
  const agent = await createReactAgent({ llm, tools: [search], prompt: PROMPT });
  return { executor: new AgentExecutor({ agent, tools: [search], ...(callbacks ? { callbacks } : {}) }), toolCalls };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the run to be stopped");
}

describe("LoopControlHandler with the stock createReactAgent and AgentExecutor", () => {
  let consoleError: jest.SpyInstance;
  beforeEach(() => {
    // LangChain logs a raiseError handler's throw with console.error before propagating it.
    consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
  });
  afterEach(() => consoleError.mockRestore());

  describe("invoke() with the handler in the call's callbacks", () => {
    it("throws LoopStoppedError once the same call returned the same result 3 times, before a 4th runs, with the partial steps", async () => {
      const { executor, toolCalls } = await buildExecutor(Array(6).fill(REPEATED_ACTION));
      const handler = new LoopControlHandler();
      const error = await rejection(executor.invoke({ input: "Weather in Paris?" }, { callbacks: [handler] }));
      expect(LoopStoppedError.isInstance(error)).toBe(true);
      const stopped = error as LoopStoppedError;
      expect(stopped.stopReason).toBe("repeat");
      expect(toolCalls).toEqual(["weather in Paris", "weather in Paris", "weather in Paris"]);
      expect(stopped.steps.map((step) => [step.action.tool, step.action.toolInput, step.observation])).toEqual([
        ["search", "weather in Paris", "Paris: 22 °C, sunny"],
        ["search", "weather in Paris", "Paris: 22 °C, sunny"],
        ["search", "weather in Paris", "Paris: 22 °C, sunny"],
      ]);
      expect(handler.activeRunCount).toBe(0);
      expect(handler.runContext.size).toBe(0);
      expect(handler.runContext.linkCount).toBe(0);
      expect(consoleError).toHaveBeenCalled();
    });

    it("throws BudgetExceededError at the model call after maxSteps steps", async () => {
      const replies = ["a", "b", "c", "d"].map((city) => `I should check ${city}.\nAction: search\nAction Input: ${city}`);
      const { executor, toolCalls } = await buildExecutor(replies);
      const handler = new LoopControlHandler({ maxSteps: 2 });
      const error = await rejection(executor.invoke({ input: "Weather?" }, { callbacks: [handler] }));
      expect(BudgetExceededError.isInstance(error)).toBe(true);
      expect((error as BudgetExceededError).stopReason).toBe("max_steps");
      expect((error as BudgetExceededError).steps).toHaveLength(2);
      expect(toolCalls).toEqual(["a", "b"]);
      expect(handler.runContext.size).toBe(0);
    });

    it("lets a run with distinct actions finish normally", async () => {
      const { executor } = await buildExecutor([
        "I should search.\nAction: search\nAction Input: weather in Paris",
        "I now know the final answer.\nFinal Answer: 22 °C",
      ]);
      const handler = new LoopControlHandler();
      const result = await executor.invoke({ input: "Weather in Paris?" }, { callbacks: [handler] });
      expect(result.output).toBe("22 °C");
      expect(handler.runContext.size).toBe(0);
    });
  });

  describe("stream() with the handler in the call's callbacks", () => {
    it("throws the same typed error from the stream loop", async () => {
      const { executor, toolCalls } = await buildExecutor(Array(6).fill(REPEATED_ACTION));
      const handler = new LoopControlHandler();
      const chunks: unknown[] = [];
      const error = await rejection(
        (async () => {
          for await (const chunk of await executor.stream({ input: "Weather in Paris?" }, { callbacks: [handler] })) chunks.push(chunk);
        })(),
      );
      expect(LoopStoppedError.isInstance(error)).toBe(true);
      expect((error as LoopStoppedError).steps).toHaveLength(3);
      expect(toolCalls).toHaveLength(3);
      expect(chunks).toHaveLength(3);
      expect(handler.runContext.size).toBe(0);
    });
  });

  describe("with a chat model that reports usage_metadata", () => {
    it("counts the message's usage (not an estimate) and stops at the token budget", async () => {
      const replies = ["a", "b", "c"].map((city) => `I should check ${city}.\nAction: search\nAction Input: ${city}`);
      const search = new DynamicTool({ name: "search", description: "Searches.", func: async (input: string) => `result ${input}` });
      const llm = new ReplayChatModel({ replies, usage: { inputTokens: 400, outputTokens: 200 } });
      const agent = await createReactAgent({ llm, tools: [search], prompt: PROMPT });
      const executor = new AgentExecutor({ agent, tools: [search] });
      const usage: unknown[] = [];
      const handler = new LoopControlHandler({
        maxTokens: 1000,
        onEvent: (event) => {
          if (event.type === "token_usage") usage.push(event);
        },
      });
      const error = await rejection(executor.invoke({ input: "Weather?" }, { callbacks: [handler] }));
      expect(error).toMatchObject({ stopReason: "token_budget", used: 1200, limit: 1000 });
      expect((error as BudgetExceededError).steps).toHaveLength(1);
      expect(usage).toEqual([
        expect.objectContaining({ inputTokens: 400, outputTokens: 200, estimated: false }),
        expect.objectContaining({ inputTokens: 400, outputTokens: 200, estimated: false }),
      ]);
    });
  });

  describe("with a returnDirect tool", () => {
    it.each(["invoke", "stream"])("counts no model turn for the executor's finish (%s), so the thought/action gap stays 0", async (path) => {
      const lookup = new DynamicTool({ name: "lookup", description: "Looks up.", returnDirect: true, func: async () => "42" });
      const llm = new ReplayChatModel({ replies: ["I should look it up.\nAction: lookup\nAction Input: answer"] });
      const agent = await createReactAgent({ llm, tools: [lookup], prompt: PROMPT });
      const executor = new AgentExecutor({ agent, tools: [lookup] });
      const steps: Record<string, number> = { thought: 0, action: 0, observation: 0, finish: 0 };
      const ends: unknown[] = [];
      const handler = new LoopControlHandler({
        onEvent: (event) => {
          if (event.type === "step") steps[event.step] += 1;
          if (event.type === "run_end") ends.push(event);
        },
      });
      if (path === "invoke") {
        expect((await executor.invoke({ input: "?" }, { callbacks: [handler] })).output).toBe("42");
      } else {
        for await (const chunk of await executor.stream({ input: "?" }, { callbacks: [handler] })) expect(chunk).toBeDefined();
      }
      expect(steps).toEqual({ thought: 1, action: 1, observation: 1, finish: 0 });
      expect(ends).toEqual([expect.objectContaining({ status: "success", stopReason: "final_answer" })]);
    });
  });

  describe("stream() that the caller stops reading", () => {
    it("never ends the run, so its state is evicted when a run starts after runIdleTimeoutMs", async () => {
      const replies = ["a", "b", "c"].map((city) => `I should check ${city}.\nAction: search\nAction Input: ${city}`);
      let now = 0;
      const errors: unknown[] = [];
      const handler = new LoopControlHandler({ runIdleTimeoutMs: 60_000, now: () => now, onError: (error) => errors.push(error) });
      const abandoned = await buildExecutor(replies);
      for await (const chunk of await abandoned.executor.stream({ input: "Weather?" }, { callbacks: [handler] })) {
        expect(chunk).toBeDefined();
        break;
      }
      // LangChain reports neither an end nor an error for the abandoned run.
      expect(handler.activeRunCount).toBe(1);
      now = 60_000;
      const next = await buildExecutor(["I now know the final answer.\nFinal Answer: 22 °C"]);
      await next.executor.invoke({ input: "Weather?" }, { callbacks: [handler] });
      expect(handler.activeRunCount).toBe(0);
      expect(handler.runContext.size).toBe(0);
      expect(handler.runContext.linkCount).toBe(0);
      expect(errors).toEqual([expect.objectContaining({ name: "RunEvictedError", reason: "idle" })]);
    });
  });

  describe("handler given to the AgentExecutor constructor", () => {
    it("still stops the run (it sees actions, not observations)", async () => {
      const handler = new LoopControlHandler();
      const { executor, toolCalls } = await buildExecutor(Array(6).fill(REPEATED_ACTION), [handler]);
      const error = await rejection(executor.invoke({ input: "Weather in Paris?" }));
      expect(RunStoppedError.isInstance(error)).toBe(true);
      expect((error as RunStoppedError).stopReason).toBe("repeat");
      expect(toolCalls).toHaveLength(3);
      expect((error as RunStoppedError).steps.map((step) => step.observation)).toEqual(["", "", ""]);
      expect(handler.runContext.size).toBe(0);
    });
  });
});
