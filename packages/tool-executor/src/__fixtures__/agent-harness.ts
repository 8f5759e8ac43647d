import { AgentExecutor, createReactAgent } from "@langchain/classic/agents";
import type { AgentStep } from "@langchain/core/agents";
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { PromptTemplate } from "@langchain/core/prompts";
import type { StructuredToolInterface, ToolInterface } from "@langchain/core/tools";
import { REACT_PROMPT_TEMPLATE, ScriptedChatModel, type ScriptedReply } from "./scripted-chat-model";

/** Which `AgentExecutor` loop runs the agent (`streamEvents` drives the `stream()` loop under an event handler). */
export type ExecutorPath = "invoke" | "stream" | "streamEvents";

/** What one scripted agent run produced. */
export interface AgentRunResult {
  readonly output: unknown;
  readonly steps: AgentStep[];
  readonly model: ScriptedChatModel;
}

/**
 * Runs the STOCK `createReactAgent` + `AgentExecutor` from `@langchain/classic/agents` over
 * `tools` with a scripted model, through `invoke()` or `stream()`.
 */
export async function runStockAgent(options: {
  tools: StructuredToolInterface[];
  replies: readonly ScriptedReply[];
  path: ExecutorPath;
  callbacks?: BaseCallbackHandler[];
  maxIterations?: number;
  /** `configurable` and `metadata` of the run's config (who the user is, …). */
  configurable?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}): Promise<AgentRunResult> {
  const model = new ScriptedChatModel({ replies: options.replies });
  const prompt = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);
  // The stock agent types its tools as string-input; object-schema tools work at run time.
  const agent = await createReactAgent({ llm: model, tools: options.tools as ToolInterface[], prompt });
  const executor = new AgentExecutor({
    agent,
    tools: options.tools,
    returnIntermediateSteps: true,
    maxIterations: options.maxIterations ?? 10,
  });
  const input = { input: "test question" };
  const config =
    options.callbacks === undefined && options.configurable === undefined && options.metadata === undefined
      ? undefined
      : { callbacks: options.callbacks, configurable: options.configurable, metadata: options.metadata };
  if (options.path === "streamEvents") {
    let output: unknown;
    const steps: AgentStep[] = [];
    for await (const event of executor.streamEvents(input, { ...config, version: "v2" })) {
      // Each tool run's end carries its observation; the top-level chain's end carries the output.
      if (event.event === "on_tool_end") {
        steps.push({ action: { tool: event.name, toolInput: event.data.input as string, log: "" }, observation: event.data.output });
      } else if (event.event === "on_chain_end") {
        // The top-level chain ends last.
        const ended = event.data.output as { output?: unknown } | undefined;
        if (ended !== null && typeof ended === "object" && "output" in ended) output = ended.output;
      }
    }
    return { output, steps, model };
  }
  if (options.path === "invoke") {
    const result = await executor.invoke(input, config);
    return { output: result.output, steps: result.intermediateSteps as AgentStep[], model };
  }
  const steps: AgentStep[] = [];
  let output: unknown;
  for await (const chunk of await executor.stream(input, config)) {
    const record = chunk as Record<string, unknown>;
    // Step chunks carry the new steps; the final chunk repeats them all next to `output`.
    if ("output" in record) output = record.output;
    else if (Array.isArray(record.intermediateSteps)) steps.push(...(record.intermediateSteps as AgentStep[]));
  }
  return { output, steps, model };
}
