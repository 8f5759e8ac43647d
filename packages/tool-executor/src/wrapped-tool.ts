import { isRecord, TOOL_OUTCOME_METADATA_KEY, toolMessageStatusOf } from "@reins/core";
import { CallbackManager, parseCallbackConfigArg, type CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import { ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { StructuredTool, Tool, type StructuredToolInterface } from "@langchain/core/tools";
import { isSimpleStringZodSchema } from "@langchain/core/utils/types";
import { type CallResult, type ExecutorContext, type ToolState, type WrappedTool } from "./executor-context";
import { MODEL_MESSAGES } from "./messages";
import { toError } from "./normalize-error";
import { previewText } from "./tool-input";

/** What a wrapped tool needs from its executor. */
export interface WrappedToolHost extends Pick<ExecutorContext, "log"> {
  /** The pipeline of one call; resolves to the observation and outcome, never rejects for tool failures. */
  execute(state: ToolState, rawInput: unknown, runManager: CallbackManagerForToolRun | undefined, config: RunnableConfig, toolCallId: string | undefined): Promise<CallResult>;
}

/** Same test as LangChain's `_isToolCall`: a `ToolCall` is tagged `type: "tool_call"`. */
function isToolCallShape(value: unknown): value is { args: unknown; id?: string; name: string } {
  return isRecord(value) && value.type === "tool_call" && "args" in value;
}

/**
 * A string-input tool: a `Tool` (`DynamicTool`, `tool()` without an object schema), also one built
 * with another copy of `@langchain/core` (recognised by its class chain), or a tool whose schema is
 * a plain zod string.
 */
export function isStringInputTool(tool: StructuredToolInterface): boolean {
  if (tool instanceof Tool || isSimpleStringZodSchema(tool.schema)) return true;
  for (let proto: unknown = Object.getPrototypeOf(tool), depth = 0; proto !== null && proto !== undefined && depth < 10; depth += 1) {
    const name = (proto as { constructor?: { name?: string } }).constructor?.name;
    if (name === "Tool" || name === "DynamicTool") return true;
    if (name === "StructuredTool") return false;
    proto = Object.getPrototypeOf(proto);
  }
  return false;
}

/**
 * The LangChain tool that stands in for the original: a `Tool` (string input) or `StructuredTool`
 * subclass with the original's name, description, schema, `returnDirect`, extras, metadata and
 * tags. Its `_call` is never used: `call` (which `invoke()` and the classic `AgentExecutor`'s
 * stream loop both go through) is shadowed on the instance, so the schema check, the callbacks and
 * the failure handling are the executor's: invalid input becomes an observation instead of a
 * `ToolInputParsingException` that would crash the `AgentExecutor`.
 */
export function createWrappedTool(host: WrappedToolHost, state: ToolState): WrappedTool {
  const fields = {
    name: state.original.name,
    description: state.original.description,
    returnDirect: state.original.returnDirect ?? false,
  };
  const wrapper: StructuredTool =
    state.kind === "string"
      ? new (class ReinsWrappedStringTool extends Tool {
          name = fields.name;
          description = fields.description;
          protected async _call(): Promise<string> {
            throw new Error("ReinsWrappedStringTool runs through call()");
          }
        })({ verboseParsingErrors: false })
      : new (class ReinsWrappedStructuredTool extends StructuredTool {
          name = fields.name;
          description = fields.description;
          schema = state.schema as StructuredTool["schema"];
          protected async _call(): Promise<string> {
            throw new Error("ReinsWrappedStructuredTool runs through call()");
          }
        })({ verboseParsingErrors: false });
  wrapper.returnDirect = fields.returnDirect;
  // LangChain's declaration of what runCall does with a ToolCall: the observation as content, the
  // full result as the ToolMessage's artifact (nothing the cleaner cut is lost on that path).
  wrapper.responseFormat = "content_and_artifact";
  // Provider-specific binding fields and metadata travel with the tool (e.g. cache-control extras).
  const source = state.original as unknown as Record<string, unknown>;
  const target = wrapper as unknown as Record<string, unknown>;
  for (const key of ["extras", "metadata", "tags"]) if (source[key] !== undefined) target[key] = source[key];
  if (state.kind === "string") (wrapper as unknown as { schema: unknown }).schema = state.original.schema;
  const call = (arg: unknown, configArg?: unknown, tags?: string[]): Promise<unknown> => runCall(host, state, wrapper, arg, configArg, tags);
  Object.defineProperty(wrapper, "call", { value: call, writable: true, configurable: true, enumerable: false });
  return wrapper;
}

/**
 * Runs one call of a wrapped tool with LangChain's callback protocol: one tool run per call, the
 * observation as `handleToolEnd` output, and a `ToolMessage` (status `error` on failure) when called
 * with a `ToolCall` (LangGraph's `ToolNode`, `createAgent`).
 */
async function runCall(host: WrappedToolHost, state: ToolState, wrapper: StructuredTool, arg: unknown, configArg: unknown, tags: string[] | undefined): Promise<unknown> {
  const config = parseCallbackConfigArg(configArg as Parameters<typeof parseCallbackConfigArg>[0]) as RunnableConfig & {
    toolCall?: { id?: string };
  };
  const toolCall = isToolCallShape(arg) ? arg : undefined;
  const rawInput = toolCall === undefined ? arg : toolCall.args;
  const toolCallId = toolCall?.id ?? config.toolCall?.id;
  const callbackManager = await CallbackManager.configure(
    config.callbacks,
    wrapper.callbacks,
    config.tags ?? tags,
    wrapper.tags,
    config.metadata,
    wrapper.metadata,
    { verbose: wrapper.verbose },
  );
  const callbackInput = isRecord(rawInput) ? rawInput : typeof rawInput === "string" ? rawInput : previewText(rawInput);
  const runManager = await callbackManager?.handleToolStart(
    wrapper.toJSON(),
    callbackInput as string | Record<string, unknown>,
    config.runId,
    undefined,
    undefined,
    undefined,
    config.runName ?? state.name,
    toolCallId,
  );
  let result: CallResult;
  try {
    result = await host.execute(state, rawInput, runManager, config, toolCallId);
  } catch (unexpected) {
    // Only a defect of this package gets here; report it to callbacks, then answer the model.
    const error = toError(unexpected);
    await runManager?.handleToolError(error);
    host.log("error", `Unexpected failure in the tool executor for tool "${state.name}".`, { toolName: state.name, error });
    return MODEL_MESSAGES.permanentError(state.name, "internal error in the tool executor");
  }
  if (result.direct !== undefined) {
    await runManager?.handleToolEnd(result.direct);
    return result.direct;
  }
  const output =
    toolCallId === undefined
      ? result.observation
      : new ToolMessage({
          content: result.observation,
          tool_call_id: toolCallId,
          name: state.name,
          status: toolMessageStatusOf(result.outcome),
          artifact: result.artifact,
          // The typed outcome travels with the message (and its checkpoint): readers never parse the wording.
          metadata: { [TOOL_OUTCOME_METADATA_KEY]: result.outcome },
        });
  await runManager?.handleToolEnd(output);
  return output;
}
