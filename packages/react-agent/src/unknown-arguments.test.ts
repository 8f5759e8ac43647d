// Classic createReactAgent: a call whose argument names are not its tool's gets a correction
// naming them and the expected ones, in every ReAct shape, instead of running with them dropped.
import { AgentExecutor } from "@langchain/classic/agents";
import { PromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { REACT_PROMPT_TEMPLATE } from "@reins/core";
import { ScriptedChatModel } from "@reins/testing";
import { createReactAgent } from "./index";
import { recordingWeatherTool, UNKNOWN_ARGUMENT_CASES, type Args } from "../../react-output-parser/src/__fixtures__/unknown-argument-cases";

const REACT_PROMPT = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);

const REACT_SHAPES: ReadonlyArray<readonly [string, (args: Args) => string]> = [
  ["Action / Action Input", (args) => `Thought: check\nAction: get_weather\nAction Input: ${JSON.stringify(args)}`],
  ["a JSON action blob", (args) => `\`\`\`json\n${JSON.stringify({ action: "get_weather", action_input: args })}\n\`\`\``],
  ["a <tool_call> tag", (args) => `<tool_call>\n${JSON.stringify({ name: "get_weather", arguments: args })}\n</tool_call>`],
];

const WRONG = UNKNOWN_ARGUMENT_CASES;

async function runOn(path: "invoke" | "stream", executor: AgentExecutor): Promise<void> {
  if (path === "invoke") {
    await executor.invoke({ input: "Weather in Oslo?" });
    return;
  }
  for await (const _chunk of await executor.stream({ input: "Weather in Oslo?" })) {
    // drained
  }
}

describe("createReactAgent: argument names the tool does not take", () => {
  describe.each(["invoke", "stream"] as const)("on executor.%s", (path) => {
    describe.each(WRONG)("%s", (_case, args, wrong) => {
      it.each(REACT_SHAPES)("answers %s with a correction naming the wrong and the expected names; the tool never runs", async (_shape, write) => {
        const ran: unknown[] = [];
        const weather = recordingWeatherTool(ran);
        const llm = new ScriptedChatModel({ replies: [write(args), "Thought: I will ask the user.\nFinal Answer: which city?"] });
        const agent = await createReactAgent({ llm, tools: [weather], prompt: REACT_PROMPT });
        await runOn(path, new AgentExecutor({ agent, tools: agent.tools, maxIterations: 4 }));
        expect(ran).toEqual([]);
        // The correction is the observation of the rejected step, in the model's next prompt.
        const next = llm.prompts[1] ?? "";
        expect(next).toContain("does not take");
        expect(next).toContain(JSON.stringify(wrong));
        expect(next).toContain('"city" (required)');
        expect(next).toContain('"days"');
      });
    });

    it.each(REACT_SHAPES)("runs %s with an extra name when the tool's schema takes undeclared names (passthrough)", async (_shape, write) => {
      const ran: unknown[] = [];
      const weather = tool(
        async (input: Args) => {
          ran.push(input);
          return "sunny";
        },
        { name: "get_weather", description: "Weather of a city", schema: z.object({ city: z.string() }).passthrough() },
      );
      const llm = new ScriptedChatModel({ replies: [write({ city: "Oslo", note: "x" }), "Thought: done\nFinal Answer: sunny"] });
      const agent = await createReactAgent({ llm, tools: [weather], prompt: REACT_PROMPT });
      await runOn(path, new AgentExecutor({ agent, tools: agent.tools, maxIterations: 4 }));
      expect(ran).toEqual([{ city: "Oslo", note: "x" }]);
    });
  });
});
