import type { RunnableConfig } from "@langchain/core/runnables";
import { DynamicTool, ToolInputParsingException, type StructuredToolInterface } from "@langchain/core/tools";
import { ToolExecutionError, ToolResultCheckError, ToolValidationError } from "./errors";
import { isRecord, type CallResult, type ExecutorContext, type ToolState } from "./executor-context";
import { toError } from "./normalize-error";
import { checkToolResult } from "./result-check";

/** Id of the ToolCall the wrapper sends to a `content_and_artifact` tool, to recognise its reply. */
const INNER_TOOL_CALL_ID = "reins-tool-executor-inner-call";

const CONTENT_AND_ARTIFACT = Symbol("reins.tool-executor.content-and-artifact");

/** A `content_and_artifact` tool's reply, unwrapped from the ToolMessage LangChain built. */
interface ContentAndArtifact {
  readonly [CONTENT_AND_ARTIFACT]: true;
  readonly content: unknown;
  readonly artifact: unknown;
}

function isContentAndArtifact(value: unknown): value is ContentAndArtifact {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[CONTENT_AND_ARTIFACT] === true;
}

/** A LangGraph direct output (`Command`, `ToolMessage`) a tool may return. */
export function isDirectToolOutput(value: unknown): boolean {
  return isRecord(value) && value.lc_direct_tool_output === true;
}

/**
 * Calls the original tool once and checks its result.
 *
 * @returns the tool's value (a `content_and_artifact` reply unwrapped)
 * @throws {ToolValidationError} when the tool's own schema rejects the input
 * @throws {ToolResultCheckError} when a result check fails
 * @throws {ToolExecutionError} for anything else the tool throws or returns as an `Error`
 */
export async function callOriginal(state: ToolState, toolInput: unknown, signal: AbortSignal, config: RunnableConfig): Promise<unknown> {
  const toolName = state.name;
  const innerConfig: RunnableConfig = {
    signal,
    callbacks: config.callbacks,
    tags: config.tags,
    metadata: config.metadata,
    configurable: config.configurable,
    runName: config.runName,
  };
  let value: unknown;
  try {
    if (state.directFunc !== undefined) value = await state.directFunc(toolInput as string, undefined, innerConfig);
    else if (state.contentAndArtifact) {
      // Called with a ToolCall so LangChain returns a ToolMessage carrying the artifact.
      const toolCall = { id: INNER_TOOL_CALL_ID, name: toolName, args: state.kind === "string" ? { input: toolInput } : toolInput, type: "tool_call" };
      value = await state.original.invoke(toolCall as never, innerConfig);
    } else value = await state.original.invoke(toolInput as never, innerConfig);
  } catch (thrown) {
    if (thrown instanceof ToolInputParsingException) {
      throw new ToolValidationError({ toolName, issues: [{ path: "", message: thrown.message }], toolInput, cause: thrown });
    }
    throw new ToolExecutionError({ toolName, cause: toError(thrown) });
  }
  if (value instanceof Error) throw new ToolExecutionError({ toolName, cause: value });
  const context = { toolName, toolInput };
  if (state.contentAndArtifact && isRecord(value) && value.tool_call_id === INNER_TOOL_CALL_ID) {
    const unwrapped: ContentAndArtifact = { [CONTENT_AND_ARTIFACT]: true, content: value.content, artifact: value.artifact };
    const failure = await checkToolResult(state.policy, context, unwrapped.content);
    if (failure !== undefined) throw new ToolResultCheckError({ toolName, label: failure.label, detail: failure.detail, status: failure.status });
    return unwrapped;
  }
  if (isDirectToolOutput(value)) return value;
  const failure = await checkToolResult(state.policy, context, value);
  if (failure !== undefined) {
    throw new ToolResultCheckError({ toolName, label: failure.label, detail: failure.detail, status: failure.status });
  }
  return value;
}

/**
 * The result of a successful call: the observation, the raw value the cache stores, the artifact.
 * `runId` (the call's top-level run, when known) reaches `formatObservation`.
 */
export function successResult(executor: Pick<ExecutorContext, "format">, state: ToolState, toolInput: unknown, value: unknown, runId: string | undefined): CallResult {
  const context = { toolName: state.name, toolInput, ...(runId !== undefined ? { runId } : {}) };
  if (isContentAndArtifact(value)) {
    return { observation: executor.format(value.content, context), outcome: "success", raw: value.content, artifact: value.artifact };
  }
  if (isDirectToolOutput(value)) return { observation: "", outcome: "success", direct: value, raw: value, artifact: value };
  return { observation: executor.format(value, context), outcome: "success", raw: value, artifact: value };
}

/**
 * The function of a plain `DynamicTool` (the class `tool()` builds for string input), when calling
 * it directly is exactly what `invoke()` would end up doing: no callbacks or default config on the
 * tool, plain content responses, `_call` not overridden. Skipping LangChain's second round of
 * config merging, schema parsing and callback setup saves about 10 µs per call; the executor has
 * already done that work for the wrapper. Any other tool goes through `invoke()`.
 */
export function directFuncOf(tool: StructuredToolInterface): DynamicTool["func"] | undefined {
  if (!(tool instanceof DynamicTool)) return undefined;
  if (Object.getPrototypeOf(tool) !== DynamicTool.prototype) return undefined;
  const fields = tool as unknown as Record<string, unknown>;
  if (fields.callbacks !== undefined || fields.defaultConfig !== undefined || fields.verbose === true) return undefined;
  if (tool.responseFormat !== undefined && tool.responseFormat !== "content") return undefined;
  if (typeof tool.func !== "function") return undefined;
  return tool.func.bind(tool);
}
