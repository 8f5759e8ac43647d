/**
 * `ObservationCleaner`: `cleanObservation` with per-tool options, `observation_cleaned` events,
 * an audit hook for the raw value, and the LangChain glue (`format` for the ToolExecutor's
 * `formatObservation`, `toContentAndArtifact` and `wrapTool` for `content_and_artifact` tools).
 */
import { emitEvent, type ObservationCleanedEvent } from "@reins/core";
import { DynamicStructuredTool, DynamicTool, Tool, type StructuredToolInterface } from "@langchain/core/tools";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import { cleanWithResolvedOptions, type CleanedObservation } from "./clean-observation";
import { artifactNote } from "./messages";
import { estimateTokens } from "./tokens";
import { ObservationCleanerOptionsError } from "./errors";
import {
  resolveCleanObservationOptions,
  type CleanObservationOptions,
  type ObservationCleanerOptions,
  type ObservationContext,
} from "./observation-cleaner-options";

/**
 * Cleans tool results with per-tool options and reports every cleaning.
 *
 * @example
 * ```ts
 * const cleaner = new ObservationCleaner({
 *   maxChars: 4000,
 *   tools: { weather: { template: (data) => `Berlin now: ${data.current.temperature_2m} °C` } },
 *   metrics: createAgentMetrics(),
 *   onRawValue: ({ toolName, rawValue }) => auditLog.write({ toolName, rawValue }),
 * });
 * const executor = new ToolExecutor({ formatObservation: cleaner.format });
 * ```
 */
export class ObservationCleaner {
  /** The resolved defaults every tool starts from. */
  readonly defaults: Readonly<CleanObservationOptions>;
  private readonly perTool = new Map<string, Readonly<CleanObservationOptions>>();

  /**
   * @param options - cleaning defaults, per-tool overrides, sinks and hooks
   * @throws {ObservationCleanerOptionsError} when an option (or a per-tool option) is invalid
   */
  constructor(private readonly options: ObservationCleanerOptions = {}) {
    const { tools, metrics: _metrics, onEvent: _onEvent, onRawValue: _onRawValue, onHookError: _onHookError, artifacts, artifactToolName, ...cleaning } = options;
    if (artifacts !== undefined && (typeof artifacts !== "object" || typeof (artifacts as { save?: unknown }).save !== "function")) {
      throw new ObservationCleanerOptionsError({ field: "artifacts", value: artifacts, reason: "expected an ArtifactStore" });
    }
    if (artifactToolName !== undefined && (typeof artifactToolName !== "string" || !/^[A-Za-z0-9_.-]{1,64}$/.test(artifactToolName))) {
      throw new ObservationCleanerOptionsError({ field: "artifactToolName", value: artifactToolName, reason: "expected a tool name of letters, digits, _ . -" });
    }
    this.defaults = resolveCleanObservationOptions(cleaning);
    for (const [toolName, toolOptions] of Object.entries(tools ?? {})) {
      this.perTool.set(toolName, resolveCleanObservationOptions(toolOptions, this.defaults, `tools.${toolName}.`));
    }
  }

  /** The options used for `toolName` (its overrides merged over the defaults). */
  optionsFor(toolName: string | undefined): Readonly<CleanObservationOptions> {
    return (toolName !== undefined ? this.perTool.get(toolName) : undefined) ?? this.defaults;
  }

  /**
   * Cleans one value, emits `observation_cleaned` and calls `onRawValue`. Never throws.
   *
   * @param value - the tool's raw result
   * @param context - which tool produced it
   */
  clean(value: unknown, context: ObservationContext = {}): CleanedObservation {
    const result = this.cleanAndStore(value, context);
    const event: ObservationCleanedEvent = {
      type: "observation_cleaned",
      ...(context.toolName !== undefined ? { toolName: context.toolName } : {}),
      rawChars: result.rawChars,
      cleanChars: result.cleanChars,
      tokens: result.tokens,
      truncated: result.truncated,
      notes: result.notes,
      ...(context.runId !== undefined ? { runId: context.runId } : {}),
    };
    emitEvent(event, [this.options.metrics, this.options.onEvent], this.options.onHookError);
    if (this.options.onRawValue !== undefined) {
      try {
        this.options.onRawValue({ ...context, rawValue: value, observation: result });
      } catch (error) {
        this.options.onHookError?.(error);
      }
    }
    return result;
  }

  /** Cleans; a cut result goes to the artifact store and its observation says where. */
  private cleanAndStore(value: unknown, context: ObservationContext): CleanedObservation {
    const options = this.optionsFor(context.toolName);
    const result = cleanWithResolvedOptions(value, options, context);
    const store = this.options.artifacts;
    if (store === undefined || !result.truncated) return result;
    const stored = store.save(value, context.toolName);
    const note = artifactNote(stored.id, stored.chars, stored.lines, this.options.artifactToolName ?? "read_artifact");
    let cleaned = result;
    if (cleaned.text.length + note.length + 2 > options.maxChars) {
      // The note is part of the budget: clean again into what it leaves.
      cleaned = cleanWithResolvedOptions(value, { ...options, maxChars: Math.max(200, options.maxChars - note.length - 2) }, context);
    }
    const text = `${cleaned.text}\n\n${note}`;
    // The fingerprint stays the cleaned text's: the same result cut the same way repeats for loop control.
    return Object.freeze({ ...cleaned, text, cleanChars: text.length, tokens: cleaned.tokens + estimateTokens(note), tokensExact: false, artifactId: stored.id, notes: Object.freeze([...cleaned.notes, `kept the full result as artifact ${stored.id}`]) });
  }

  /**
   * The observation text for `result`: the signature of the ToolExecutor's `formatObservation`
   * option. Bound to the instance, so it can be passed as `cleaner.format`.
   */
  readonly format = (result: unknown, context: { toolName: string; toolInput?: unknown; runId?: string }): string =>
    this.clean(result, context).text;

  /**
   * A LangChain `content_and_artifact` pair: the cleaned text for the model, the raw value as the
   * artifact (kept on the `ToolMessage`, never sent to the model).
   */
  toContentAndArtifact(result: unknown, context: ObservationContext = {}): [string, unknown] {
    return [this.clean(result, context).text, result];
  }

  /**
   * Wraps a LangChain tool so it returns `content_and_artifact`: called with a tool call
   * (LangGraph `ToolNode`, `createAgent`) it yields a `ToolMessage` whose `content` is the cleaned
   * text and whose `artifact` is the raw value; called with plain input (classic `AgentExecutor`)
   * it returns the cleaned text (the raw value then reaches `onRawValue`). Name, description,
   * schema and `returnDirect` are kept.
   *
   * @param tool - any LangChain tool
   * @returns a new tool of the same name, description and schema, typed like the original so it
   *   drops into the same `tools` array; the original is not modified
   */
  wrapTool<T extends StructuredToolInterface>(tool: T): T {
    const call = async (toolInput: unknown, runManager?: CallbackManagerForToolRun, config?: RunnableConfig): Promise<[string, unknown]> => {
      // Without the outer tool call in its config the inner tool returns its raw value, not a ToolMessage.
      const { toolCall: _toolCall, ...innerConfig } = (config ?? {}) as RunnableConfig & { toolCall?: unknown };
      const raw: unknown = await tool.invoke(toolInput as never, { ...innerConfig, callbacks: runManager?.getChild() });
      return this.toContentAndArtifact(raw, { toolName: tool.name, toolInput });
    };
    const fields = {
      name: tool.name,
      description: tool.description,
      returnDirect: tool.returnDirect,
      responseFormat: "content_and_artifact" as const,
    };
    if (tool instanceof Tool) {
      return new DynamicTool({ ...fields, func: (toolInput, runManager, config) => call(toolInput, runManager, config) as never }) as unknown as T;
    }
    return new DynamicStructuredTool({
      ...fields,
      schema: tool.schema as never,
      func: (toolInput: unknown, runManager?: CallbackManagerForToolRun, config?: RunnableConfig) => call(toolInput, runManager, config) as never,
    }) as unknown as T;
  }
}
