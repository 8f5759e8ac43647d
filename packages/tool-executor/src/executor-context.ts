import type { RunnableConfig } from "@langchain/core/runnables";
import type { DynamicTool, StructuredTool, StructuredToolInterface } from "@langchain/core/tools";
import type { ReinsEvent, ToolCallOutcome } from "@reins/core";
import type { BulkheadPolicy, CircuitBreakerPolicy, TimeoutPolicy } from "cockatiel";
import type { ToolResultStore } from "./result-store";
import type { SharedBreaker } from "./shared-breaker";
import type { ToolInputKind } from "./tool-input";
import type { ResolvedToolPolicy } from "./tool-policy";
import type { ResolvedToolExecutorOptions, ToolExecutorLogger } from "./tool-executor-options";
import type { RunHandle } from "./run-slots";

/** A tool returned by `ToolExecutor.wrap`: the original's name, description and schema. */
export type WrappedTool = StructuredTool;

/** Everything the executor knows about one wrapped tool. */
export interface ToolState {
  readonly name: string;
  readonly original: StructuredToolInterface;
  readonly policy: ResolvedToolPolicy;
  readonly kind: ToolInputKind;
  /** The schema the wrapped tool exposes (original, plus `confirm` for side-effect object tools). */
  readonly schema: unknown;
  readonly breaker: CircuitBreakerPolicy | undefined;
  /** The fleet-shared breaker (`circuitBreaker.store`), with `breaker` as its local fallback. */
  readonly sharedBreaker?: SharedBreaker | undefined;
  readonly bulkhead: BulkheadPolicy | undefined;
  readonly timeout: TimeoutPolicy | undefined;
  /** The original tool answers `[content, artifact]` (`responseFormat: "content_and_artifact"`). */
  readonly contentAndArtifact: boolean;
  /** A plain `DynamicTool`'s function, called directly (see `directFuncOf`). */
  readonly directFunc: DynamicTool["func"] | undefined;
  readonly store: ToolResultStore | undefined;
  wrapped: WrappedTool;
}

/** How one call ended: the observation for the model and the facts for operators. */
export interface CallResult {
  readonly observation: string;
  readonly outcome: ToolCallOutcome;
  readonly error?: Error;
  /** The raw result of a successful call (what the cache stores). */
  readonly raw?: unknown;
  /** The `ToolMessage` artifact: the tool's own artifact (`content_and_artifact`), else the raw result. */
  readonly artifact?: unknown;
  /** A LangGraph direct output (`Command`, `ToolMessage`) returned by the tool, passed through. */
  readonly direct?: unknown;
  /** How many times the original tool was started (0: the circuit, bulkhead or caller stopped it first). */
  readonly toolCalls?: number;
}

/** What the cache-scope function and the cache key see of the call's config and input. */
export interface CallFacts {
  readonly configurable: Readonly<Record<string, unknown>> | undefined;
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
  readonly sourceText: string | undefined;
}

/** What the stages of a call use from their executor: options, tools, diagnostics, formatting. */
export interface ExecutorContext {
  readonly options: ResolvedToolExecutorOptions;
  /** The wrapped tool of that name (for `{ tool }` fallbacks). */
  stateOf(toolName: string): ToolState | undefined;
  /** The names of the wrapped tools, for messages. */
  toolNames(): string[];
  log(level: keyof ToolExecutorLogger, message: string, fields?: Record<string, unknown>): void;
  emit(event: ReinsEvent): void;
  /** A successful result as observation text (`formatObservation`, guarded); `runId`: the call's top-level run, when known. */
  format(value: unknown, context: { toolName: string; toolInput: unknown; runId?: string }): string;
  /** Per tool, the run of the latest call started: the run a circuit change is reported under. */
  readonly lastRunIdOfTool: Map<string, string | undefined>;
  /** Runs a tool's resilience chain (used by the `{ tool }` fallback). */
  runResilient(state: ToolState, toolInput: unknown, config: RunnableConfig, run: RunHandle): Promise<CallResult>;
}

/** Settlement of an abandoned call is awaited only to free its bulkhead slot or let a retry start. */
export function ignore(): void {
  // Nothing to do: the outcome was already reported.
}
