import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicTool } from "@langchain/core/tools";
import { REACT_PROMPT_TEMPLATE, combineRecorders, type ReinsEvent, type ReinsEventRecorder } from "@reins/core";
import { ScriptedChatModel } from "@reins/testing";
import { createReactAgent } from "./index";

const REACT_PROMPT = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);
const toolNamed = (name: string): DynamicTool => new DynamicTool({ name, description: `${name} tool`, func: async (input: string) => `${name}: ${input}` });

/** A recorder that keeps what agents register (the metrics' `tool` label values). */
function registeringRecorder(): ReinsEventRecorder & { readonly registered: string[] } {
  const registered: string[] = [];
  return { registered, record: (_event: ReinsEvent) => undefined, registerTools: (toolNames) => void registered.push(...toolNames) };
}

describe("createReactAgent", () => {
  describe("with a metrics recorder", () => {
    it("registers its tools as it is built, before any call", async () => {
      const metrics = registeringRecorder();
      await createReactAgent({ llm: new ScriptedChatModel({ replies: [] }), tools: [toolNamed("search"), toolNamed("weather")], prompt: REACT_PROMPT, metrics });
      expect(new Set(metrics.registered)).toEqual(new Set(["search", "weather"]));
    });

    it("registers through combineRecorders, each agent sharing the recorder registering its own", async () => {
      const metrics = registeringRecorder();
      await createReactAgent({ llm: new ScriptedChatModel({ replies: [] }), tools: [toolNamed("search")], prompt: REACT_PROMPT, metrics: combineRecorders([metrics]) });
      await createReactAgent({ llm: new ScriptedChatModel({ replies: [] }), tools: [toolNamed("weather")], prompt: REACT_PROMPT, metrics });
      expect(new Set(metrics.registered)).toEqual(new Set(["search", "weather"]));
    });
  });
});
