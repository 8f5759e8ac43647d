import type { AgentAction } from "@langchain/core/agents";
import type { Serialized } from "@langchain/core/load/serializable";
import type { LLMResult } from "@langchain/core/outputs";
import type { LoopControlHandler } from "../loop-control-handler";

const SERIALIZED: Serialized = { lc: 1, type: "not_implemented", id: ["test"] };

/** One synthetic step of a run. */
export interface DriverStep {
  readonly tool: string;
  readonly toolInput: unknown;
  /** The tool's output; `undefined` = no tool run (an invalid tool name). */
  readonly observation?: string;
  readonly thought?: string;
  readonly usage?: { inputTokens: number; outputTokens: number };
  /** The model's whole text for the step (the action's `log`); built from `thought` when absent. */
  readonly log?: string;
  /** Extra fields on the AgentAction (e.g. `repairs`). */
  readonly extra?: Record<string, unknown>;
}

/**
 * Drives a `LoopControlHandler` the way AgentExecutor's callbacks do, with synthetic run ids:
 * executor chain start → per step (agent chain, chat model start/end, agent action, tool
 * start/end) → agent end → chain end, or chain error when the handler throws.
 */
export class RunDriver {
  private counter = 0;
  /**
   * @param pause - awaited between callbacks, so concurrent drivers interleave
   */
  constructor(
    private readonly handler: LoopControlHandler,
    readonly runId: string,
    private readonly pause: () => Promise<void> = async () => undefined,
  ) {}

  private id(kind: string): string {
    this.counter += 1;
    return `${this.runId}:${kind}:${this.counter}`;
  }

  async start(): Promise<void> {
    await this.pause();
    await this.handler.handleChainStart(SERIALIZED, { input: "q" }, this.runId, undefined);
  }

  /** Plans (model call) and acts. Throws whatever the handler throws (a stop error). */
  async plan(step: DriverStep): Promise<AgentAction> {
    const agentRunId = this.id("agent");
    // Runtime argument order: (chain, inputs, runId, parentRunId, …).
    await this.pause();
    await this.handler.handleChainStart(SERIALIZED, {}, agentRunId, this.runId);
    const llmRunId = this.id("llm");
    await this.pause();
    await this.handler.handleChatModelStart(SERIALIZED, [], llmRunId, agentRunId, { invocation_params: { model: "replay" } });
    const thought = step.thought ?? `I should use ${step.tool}.`;
    const log =
      step.log ??
      `${thought}\nAction: ${step.tool}\nAction Input: ${typeof step.toolInput === "string" ? step.toolInput : JSON.stringify(step.toolInput)}`;
    const output: LLMResult = {
      generations: [[{ text: log }]],
      ...(step.usage !== undefined
        ? { llmOutput: { tokenUsage: { promptTokens: step.usage.inputTokens, completionTokens: step.usage.outputTokens } } }
        : {}),
    };
    await this.pause();
    await this.handler.handleLLMEnd(output, llmRunId, agentRunId);
    await this.pause();
    await this.handler.handleChainEnd({}, agentRunId, this.runId);
    const action = { tool: step.tool, toolInput: step.toolInput as string, log, ...(step.extra ?? {}) } as AgentAction;
    await this.pause();
    await this.handler.handleAgentAction(action, this.runId, undefined);
    return action;
  }

  async act(step: DriverStep): Promise<void> {
    if (step.observation === undefined) return;
    const toolRunId = this.id("tool");
    await this.pause();
    await this.handler.handleToolStart(SERIALIZED, String(step.toolInput), toolRunId, this.runId, undefined, undefined, step.tool);
    await this.pause();
    await this.handler.handleToolEnd(step.observation, toolRunId, this.runId);
  }

  /** A full step; returns the stop error if the handler threw one (and reports it as the executor would). */
  async step(step: DriverStep): Promise<unknown> {
    try {
      await this.plan(step);
    } catch (error) {
      await this.pause();
      await this.handler.handleChainError(error as Error, this.runId);
      return error;
    }
    await this.act(step);
    return undefined;
  }

  /**
   * The model answers: agent chain, model call (with optional reported usage), then the agent
   * finish and the run's end, as AgentExecutor reports a Final Answer.
   */
  async answer(output: string, usage?: { inputTokens: number; outputTokens: number }): Promise<void> {
    const agentRunId = this.id("agent");
    await this.pause();
    await this.handler.handleChainStart(SERIALIZED, {}, agentRunId, this.runId);
    const llmRunId = this.id("llm");
    await this.pause();
    await this.handler.handleChatModelStart(SERIALIZED, [], llmRunId, agentRunId, { invocation_params: { model: "replay" } });
    const text = `I now know the final answer.\nFinal Answer: ${output}`;
    await this.pause();
    await this.handler.handleLLMEnd(
      {
        generations: [[{ text }]],
        ...(usage !== undefined
          ? { llmOutput: { tokenUsage: { promptTokens: usage.inputTokens, completionTokens: usage.outputTokens } } }
          : {}),
      },
      llmRunId,
      agentRunId,
    );
    await this.pause();
    await this.handler.handleChainEnd({}, agentRunId, this.runId);
    await this.pause();
    await this.handler.handleAgentEnd({ returnValues: { output }, log: text }, this.runId);
    await this.pause();
    await this.handler.handleChainEnd({ output }, this.runId);
  }

  async finish(output = "done", extra: Record<string, unknown> = {}): Promise<void> {
    await this.pause();
    await this.handler.handleAgentEnd({ returnValues: { output, ...extra }, log: `Final Answer: ${output}` }, this.runId);
    await this.pause();
    await this.handler.handleChainEnd({ output, ...extra }, this.runId);
  }
}
