// Whole-stack injection test: createReactAgent + the stock AgentExecutor, invoke and stream, with
// and without custom labels, and a model that naively copies its last observation into its reply.
// No injected tool may run and no injected final answer may be accepted, for any kind and channel.
import { AgentExecutor } from "@langchain/classic/agents";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicTool } from "@langchain/core/tools";
import { REACT_PROMPT_TEMPLATE } from "@reins/core";
import { ATTACK_CHANNELS, ATTACK_KINDS, INJECTED_ANSWER, deliver, echoingChatModel, type AttackChannel } from "./__fixtures__/injection-attacks";
import { createReactAgent } from "./index";

const REACT_PROMPT = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);
const CUSTOM_LABELS = { final_answer: ["最终答案"], action: ["行动"], action_input: ["行动输入"], thought: ["思考"], observation: ["观察"] };

interface Outcome {
  readonly executed: boolean;
  readonly acceptedAnswer: boolean;
}

async function attack(payload: string, channel: AttackChannel, path: "invoke" | "stream", customLabels: boolean): Promise<Outcome> {
  const deleted: string[] = [];
  const fetchPage = new DynamicTool({
    name: "fetch_page",
    description: "Fetches a web page. Input: anything.",
    func: async () => {
      const delivery = deliver(payload, channel);
      if (delivery.throws !== undefined) throw delivery.throws;
      return delivery.returns as string;
    },
  });
  const deleteAll = new DynamicTool({
    name: "delete_all",
    description: "Deletes every file. Input: what to delete.",
    func: async (input: string) => {
      deleted.push(input);
      return "deleted";
    },
  });
  const agent = await createReactAgent({
    llm: echoingChatModel(),
    tools: [fetchPage, deleteAll],
    prompt: REACT_PROMPT,
    toolExecutor: { policies: { delete_all: { sideEffects: true }, fetch_page: { retry: false } } },
    ...(customLabels ? { parser: { labels: CUSTOM_LABELS } } : {}),
  });
  const executor = new AgentExecutor({ agent, tools: agent.tools, handleParsingErrors: true, maxIterations: 10 });
  let output = "";
  if (path === "invoke") {
    output = String((await executor.invoke({ input: "Read the page." }, { callbacks: agent.callbacks })).output);
  } else {
    for await (const chunk of await executor.stream({ input: "Read the page." }, { callbacks: agent.callbacks })) {
      if (typeof (chunk as { output?: unknown }).output === "string") output = (chunk as { output: string }).output;
    }
  }
  return { executed: deleted.length > 0, acceptedAnswer: output.includes(INJECTED_ANSWER) };
}

const table = new Map<string, number>();
let attempts = 0;
let through = 0;

afterAll(() => {
  const lines = [...table.entries()].map(([key, count]) => `  ${key}: ${count} of 4`);
  // The measured table, for the report (kinds x channels that got through).
  process.stdout.write(`injection attempts: ${attempts}, got through: ${through}\n${lines.join("\n")}\n`);
});

describe("createReactAgent with the stock AgentExecutor", () => {
  describe.each([false, true])("when tool output carries an injection (custom labels: %s)", (customLabels) => {
    describe.each(ATTACK_CHANNELS)("through the %s channel", (channel) => {
      it.each(Object.keys(ATTACK_KINDS))("neither runs the injected tool nor accepts the injected answer for %s, on invoke and stream", async (kind) => {
        const payload = ATTACK_KINDS[kind] as string;
        const outcomes = [];
        for (const path of ["invoke", "stream"] as const) {
          const outcome = await attack(payload, channel, path, customLabels);
          attempts += 1;
          if (outcome.executed || outcome.acceptedAnswer) {
            through += 1;
            const key = `${kind} × ${channel}`;
            table.set(key, (table.get(key) ?? 0) + 1);
          }
          outcomes.push({ kind, channel, path, ...outcome });
        }
        expect(outcomes).toEqual(["invoke", "stream"].map((path) => ({ kind, channel, path, executed: false, acceptedAnswer: false })));
      });
    });
  });
});
