import { AgentExecutor } from "@langchain/classic/agents";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicStructuredTool, DynamicTool } from "@langchain/core/tools";
import { z } from "zod";
import { ScriptedChatModel } from "@reins/testing";
import { createReactAgent } from "./index";
import { REACT_PROMPT_TEMPLATE } from "@reins/core";

const REACT_PROMPT = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);

type Kind = "answer" | "repeat" | "cycle" | "garbled";
const KINDS: readonly Kind[] = ["answer", "repeat", "cycle", "garbled"];

/**
 * A chat model whose reply depends only on its prompt (the question names the run and its
 * behaviour; the number of observations so far is the step), after a random pause, so concurrent
 * runs interleave and any state shared between them shows up as a different result.
 */
function scriptedByPromptModel(): ScriptedChatModel {
  const reply = async (prompt: string): Promise<string> => {
    const question = prompt.slice(prompt.lastIndexOf("\nQuestion: ") + "\nQuestion: ".length);
    const [name, kind] = question.split("\n")[0].split(" ") as [string, Kind];
    const step = question.split("\nObservation:").length - 1;
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 4)));
    switch (kind) {
      case "answer":
        return step === 0 ? `Thought: look it up\nAction: capital\nAction Input: Japan` : `Thought: done\nFinal Answer: Tokyo for ${name}`;
      case "repeat":
        return `Thought: check again\nAction: capital\nAction Input: France`;
      case "cycle":
        return step % 2 === 0 ? `Thought: capital\nAction: capital\nAction Input: Germany` : `Thought: add\nAction: add\nAction Input: {"a": 1, "b": 2}`;
      case "garbled":
        return step === 0 ? `Thought: hmm\nAction: wikipedia\nAction Input: ${name}` : `Thought: fine\nFinal Answer: nothing for ${name}`;
    }
  };
  return new ScriptedChatModel({ replies: [reply], cycle: true, recordCalls: false });
}

function tools() {
  const capitals: Record<string, string> = { france: "Paris", japan: "Tokyo", germany: "Berlin" };
  return [
    new DynamicTool({
      name: "capital",
      description: "Capital city of a country.",
      func: async (input: string) => capitals[input.trim().toLowerCase()] ?? "unknown",
    }),
    new DynamicStructuredTool({
      name: "add",
      description: "Adds two numbers.",
      schema: z.object({ a: z.number(), b: z.number() }),
      func: async ({ a, b }: { a: number; b: number }) => String(a + b),
    }),
  ];
}

type Outcome = { output: unknown; stopReason: unknown; steps: Array<{ tool: string; observation: unknown }> };

async function runAll(path: "invoke" | "stream", concurrent: boolean): Promise<{ outcomes: Outcome[]; leftovers: [number, number] }> {
  const agent = await createReactAgent({
    llm: scriptedByPromptModel(),
    tools: tools(),
    prompt: REACT_PROMPT,
    toolExecutor: { policies: { capital: { maxCallsPerRun: 2 } } },
  });
  const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true, returnIntermediateSteps: true });
  const one = async (index: number): Promise<Outcome> => {
    const input = `run-${index} ${KINDS[index % KINDS.length]}`;
    let result: Record<string, unknown> = {};
    if (path === "invoke") {
      result = await executor.invoke({ input }, { callbacks: agent.callbacks });
    } else {
      for await (const chunk of await executor.stream({ input }, { callbacks: agent.callbacks })) result = { ...result, ...chunk };
    }
    const steps = ((result.intermediateSteps ?? []) as Array<{ action: { tool: string }; observation: unknown }>).map((step) => ({
      tool: step.action.tool,
      observation: step.observation,
    }));
    return { output: result.output, stopReason: result.stopReason, steps: path === "invoke" ? steps : [] };
  };
  const indices = Array.from({ length: 50 }, (_, index) => index);
  const outcomes: Outcome[] = [];
  if (concurrent) {
    outcomes.push(...(await Promise.all(indices.map(one))));
  } else {
    for (const index of indices) outcomes.push(await one(index));
  }
  return { outcomes, leftovers: [agent.runContext.size, agent.runContext.linkCount] };
}

describe("createReactAgent", () => {
  describe.each(["invoke", "stream"] as const)("with 50 concurrent executor.%s calls on one agent", (path) => {
    it("gives every run the result it gets alone: loop state, call caps and stop decisions do not cross runs", async () => {
      const serial = await runAll(path, false);
      const concurrent = await runAll(path, true);
      expect(concurrent.outcomes).toEqual(serial.outcomes);
      expect(serial.outcomes.map((outcome) => outcome.stopReason)).toEqual(
        Array.from({ length: 50 }, (_, index) => ({ answer: "final_answer", repeat: "repeat", cycle: "cycle", garbled: "final_answer" })[KINDS[index % 4]]),
      );
      expect(serial.outcomes[0].output).toBe("Tokyo for run-0");
      expect(serial.outcomes[1].output).toContain("- capital(France): Paris");
      expect(concurrent.leftovers).toEqual([0, 0]);
      expect(serial.leftovers).toEqual([0, 0]);
    }, 60_000);
  });
});
