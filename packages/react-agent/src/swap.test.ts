// What a LangChain.js user tries when swapping Reins' createReactAgent into an existing
// AgentExecutor setup: a plain LLM, every handleParsingErrors form, streamEvents, earlyStoppingMethod.
import { AgentExecutor, createReactAgent as createStockReactAgent } from "@langchain/classic/agents";
import { OutputParserException } from "@langchain/core/output_parsers";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicTool } from "@langchain/core/tools";
import { ScriptedChatModel, ScriptedLLM } from "@reins/testing";
import { createReactAgent } from "./index";
import { capitalTool } from "./__fixtures__/scripted-runs";
import { REACT_PROMPT_TEMPLATE } from "@reins/core";

// LangChain's hwchase17/react prompt, verbatim.
const REACT_PROMPT = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);


async function lastChunk(stream: AsyncIterable<Record<string, unknown>>): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  for await (const chunk of stream) last = chunk;
  return last;
}

describe("createReactAgent as a swap for LangChain's", () => {
  describe("with a plain LLM (string completions), as the stock createReactAgent accepts", () => {
    it.each(["invoke", "stream"] as const)("runs the ReAct loop on %s with the stop sequence bound", async (path) => {
      const calls: string[] = [];
      const llm = new ScriptedLLM({
        replies: [" I should look it up.\nAction: capital\nAction Input: France", " I now know the final answer\nFinal Answer: Paris"],
      });
      const agent = await createReactAgent({ llm, tools: [capitalTool(calls)], prompt: REACT_PROMPT });
      const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true });
      const result =
        path === "invoke"
          ? await executor.invoke({ input: "capital of France?" }, { callbacks: agent.callbacks })
          : await lastChunk(await executor.stream({ input: "capital of France?" }, { callbacks: agent.callbacks }));
      expect(result).toMatchObject({ output: "Paris", stopReason: "final_answer" });
      expect(calls).toEqual(["France"]);
      expect(llm.calls[0].stop).toEqual(["\nObservation:"]);
      expect(llm.calls[1].prompt).toContain("Action Input: France\n\nObservation: Paris\nThought: ");
    });
  });

  describe("with each handleParsingErrors form (given to createReactAgent; the executor needs none)", () => {
    const unknownTool = "Thought: look it up\nAction: wikipedia\nAction Input: France";

    type HandleParsingErrors = NonNullable<Parameters<typeof createReactAgent>[0]["handleParsingErrors"]>;

    async function runWith(handleParsingErrors: HandleParsingErrors | undefined, executorHandles?: boolean) {
      const llm = new ScriptedChatModel({ chunkChars: 7, replies: [unknownTool, "Thought: done\nFinal Answer: Paris"] });
      const agent = await createReactAgent({ llm, tools: [capitalTool()], prompt: REACT_PROMPT, ...(handleParsingErrors === undefined ? {} : { handleParsingErrors }) });
      const executor = new AgentExecutor({ agent, tools: agent.tools, ...(executorHandles === undefined ? {} : { handleParsingErrors: executorHandles }) });
      const result = await executor.invoke({ input: "capital of France?" });
      return { result, retryPrompt: llm.calls[1]?.prompt ?? "", agent };
    }

    it("false: throws the parser's OutputParserException out of plan, so the executor's stock default throws it out of invoke", async () => {
      const error = await runWith(false).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OutputParserException);
      expect((error as Error).message).toContain("'wikipedia' is not a valid tool");
      expect((error as Error).message).toContain("capital");
    });

    it("false, with the executor's handleParsingErrors: true: LangChain feeds the parser's observation back", async () => {
      const { result, retryPrompt } = await runWith(false, true);
      expect(result.output).toBe("Paris");
      expect(retryPrompt).toContain(`${unknownTool}\n\nObservation: 'wikipedia' is not a valid tool.`);
    });

    it("true (the default): the model gets the parser's specific corrective observation and its own reply", async () => {
      const { result, retryPrompt, agent } = await runWith(undefined);
      expect(result.output).toBe("Paris");
      expect(result.stopReason).toBe("final_answer");
      expect(retryPrompt).toContain(`${unknownTool}\n\nObservation: 'wikipedia' is not a valid tool.`);
      expect(agent.runContext.size).toBe(0);
    });

    it("a string: used as the observation", async () => {
      const { result, retryPrompt } = await runWith("Check your output and make sure it conforms!");
      expect(result.output).toBe("Paris");
      expect(retryPrompt).toContain("Observation: Check your output and make sure it conforms!");
    });

    it("a function: gets the parser's exception (with its observation) and its result is the observation", async () => {
      const seen: unknown[] = [];
      const { result, retryPrompt } = await runWith((error) => {
        seen.push(error);
        return `Fix this: ${error.observation ?? ""}`;
      });
      expect(result.output).toBe("Paris");
      expect(seen[0]).toBeInstanceOf(OutputParserException);
      expect(retryPrompt).toContain("Observation: Fix this: 'wikipedia' is not a valid tool.");
    });
  });

  describe("with streamEvents (v2)", () => {
    it("carries stopReason in the executor's last on_chain_stream chunk (on_chain_end unwraps the lone output)", async () => {
      const repeat = "Thought: again\nAction: capital\nAction Input: France";
      const llm = new ScriptedChatModel({ chunkChars: 7, replies: [repeat, repeat, repeat, repeat] });
      const agent = await createReactAgent({ llm, tools: [capitalTool()], prompt: REACT_PROMPT });
      const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true });
      const chunks: Array<Record<string, unknown>> = [];
      let endOutput: unknown;
      for await (const event of executor.streamEvents({ input: "capital of France?" }, { version: "v2", callbacks: agent.callbacks })) {
        if (event.name !== "AgentExecutor") continue;
        if (event.event === "on_chain_stream") chunks.push(event.data.chunk as Record<string, unknown>);
        if (event.event === "on_chain_end") endOutput = event.data.output;
      }
      const last = chunks[chunks.length - 1];
      expect(last.stopReason).toBe("repeat");
      expect(last.output).toContain("- capital(France): Paris");
      expect(endOutput).toBe(last.output);
      expect(agent.runContext.size).toBe(0);
    });
  });

  describe("with a maxIterations below loopControl.maxSteps", () => {
    const outputs = Array.from({ length: 10 }, (_, index) => `Thought: try ${index}\nAction: capital\nAction Input: Country ${index}`);

    it("ends with LangChain's own stop answer and no stopReason (the executor stops first, as the README says)", async () => {
      const agent = await createReactAgent({ llm: new ScriptedChatModel({ chunkChars: 7, replies: outputs }), tools: [capitalTool()], prompt: REACT_PROMPT });
      const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true, maxIterations: 4 });
      const result = await executor.invoke({ input: "q" }, { callbacks: agent.callbacks });
      expect(result.output).toBe("Agent stopped due to max iterations.");
      expect(result.stopReason).toBeUndefined();
      expect(agent.runContext.size).toBe(0);
    });

    it("ends gracefully with stopReason max_steps once loopControl.maxSteps is below it", async () => {
      const agent = await createReactAgent({
        llm: new ScriptedChatModel({ chunkChars: 7, replies: outputs }),
        tools: [capitalTool()],
        prompt: REACT_PROMPT,
        loopControl: { maxSteps: 3 },
      });
      const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true, maxIterations: 4 });
      const result = await executor.invoke({ input: "q" }, { callbacks: agent.callbacks });
      expect(result.stopReason).toBe("max_steps");
      expect(result.output).toContain("I reached the maximum number of steps");
      expect(result.output).toContain("- capital(Country 0): No capital known for Country 0.");
    });
  });

  describe("with earlyStoppingMethod", () => {
    it('"generate" fails as it does for the stock createReactAgent (no runnable agent supports it)', async () => {
      const outputs = ["Thought: a\nAction: capital\nAction Input: France", "Thought: b\nAction: capital\nAction Input: Japan"];
      const ours = await createReactAgent({ llm: new ScriptedChatModel({ chunkChars: 7, replies: outputs }), tools: [capitalTool()], prompt: REACT_PROMPT });
      const stock = await createStockReactAgent({ llm: new ScriptedChatModel({ chunkChars: 7, replies: outputs }), tools: [capitalTool()], prompt: REACT_PROMPT });
      const run = async (agent: typeof ours | typeof stock, tools: DynamicTool[] | typeof ours.tools, callbacks?: typeof ours.callbacks) =>
        new AgentExecutor({ agent, tools, maxIterations: 1, earlyStoppingMethod: "generate" })
          .invoke({ input: "q" }, { callbacks })
          .catch((caught: unknown) => (caught as Error).message);
      const stockMessage = await run(stock, [capitalTool()]);
      expect(stockMessage).toBe("Invalid stopping method: generate");
      expect(await run(ours, ours.tools, ours.callbacks)).toBe(stockMessage);
    });
  });
});
