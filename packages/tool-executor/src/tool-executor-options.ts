import { InMemorySideEffectLedger, type SideEffectLedger } from "./side-effect-ledger";
import {
  DEFAULT_REACT_LABELS,
  createSecretRedactor,
  type ReActLabelSet,
  type ReinsEventListener,
  type ReinsEventRecorder,
  type RunContextStore,
  type SecretRedactionOptions,
  type SecretRedactor,
} from "@reins/core";
import { ToolExecutorOptionsError } from "./errors";
import { defaultFormatObservation } from "./format-observation";
import { resolveToolPolicy, type ToolPolicy } from "./tool-policy";

/** Where operator-facing diagnostics go. Every method is optional; the default logs nothing. */
export interface ToolExecutorLogger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}

/** Turns a successful tool result into the observation text. */
export type FormatObservation = (
  result: unknown,
  /** `runId`: the top-level run of the call, when known (a cleaner copies it onto its event). */
  context: { toolName: string; toolInput: unknown; runId?: string },
) => string;

/** Options of {@link ToolExecutor}. */
export interface ToolExecutorOptions {
  /**
   * Policy every tool gets, merged over `DEFAULT_TOOL_POLICY`.
   * @default {}
   */
  defaults?: ToolPolicy;
  /**
   * Per-tool policies by tool name, each merged deeply over `defaults`.
   * @default {}
   */
  policies?: Readonly<Record<string, ToolPolicy>>;
  /** Receives every event (`createAgentMetrics()` from `@reins/metrics` is one). @default undefined */
  metrics?: ReinsEventRecorder;
  /** Called with every event. @default undefined */
  onEvent?: ReinsEventListener;
  /** Operator diagnostics: typed errors of failed calls (warn), option problems. @default no logging */
  logger?: ToolExecutorLogger;
  /**
   * Clock in epoch milliseconds, for durations and cache expiry. (Breaker half-open timing and
   * timers follow the global `Date.now`/`setTimeout`, as cockatiel does.)
   * @default Date.now
   */
  now?: () => number;
  /**
   * Shared per-run state (Reins' `createReactAgent` passes the store its `LoopControlHandler`
   * fills). Used to find the run of a call (call caps, idempotency) and to drain the loop
   * controller's pending notes into the observation.
   * @default undefined (runs are then tracked by the tool run's parent run id, and there are no
   * loop notes to append)
   */
  runContext?: RunContextStore;
  /**
   * Formats successful results (the react-agent passes the observation cleaner here). Applied
   * last; a formatter that throws or returns a blank/non-string falls back to the default.
   * @default defaultFormatObservation
   */
  formatObservation?: FormatObservation;
  /**
   * Forward LangChain callbacks to the original tool, so it appears as a nested tool run under
   * the wrapped tool's run (useful for tracing tools that call models). Off by default so each
   * action produces exactly one tool run in callbacks.
   * @default false
   */
  forwardCallbacks?: boolean;
  /**
   * Runs tracked by parent run id when the run is not registered in `runContext` (oldest dropped
   * first).
   * @default 1000
   */
  maxTrackedRuns?: number;
  /**
   * The label set the agent's parser reads (`createReactAgent` passes it when the parser has
   * custom labels). Every observation the executor returns — results, failure messages, fallback
   * values, dry-run previews, loop notes — is neutralised with `@reins/core`'s
   * `neutralizeUntrustedText` over these labels, every language label set and the names of the
   * wrapped tools.
   * @default DEFAULT_REACT_LABELS
   */
  labels?: ReActLabelSet;
  /**
   * Secrets redacted from failure previews (the error details quoted to the model: provider API
   * keys, bearer tokens, credentials in URLs, cloud keys, JWTs, private keys; `createSecretRedactor`
   * of `@reins/core`), each counted as a `secret_redaction` event (`surface: "preview"`).
   * `{ patterns }` adds patterns; `false` quotes errors verbatim.
   * @default {} (the default patterns, on)
   */
  secretRedaction?: SecretRedactionOptions | false;
  /**
   * Also redact secrets (with `secretRedaction`'s patterns) in successful tool results before the
   * model reads them, each counted as a `secret_redaction` event (`surface: "preview"`). Off by
   * default: the model may need the value it asked for (a token it must pass on), and events, logs,
   * spans and the audit trail are redacted either way. Turn it on when a tool can return
   * credentials the model must never see (an environment dump, a config file). `createReactAgent`
   * and `createReinsMiddleware` take it in their `toolExecutor` options.
   * @default false
   */
  redactToolResults?: boolean;
  /**
   * Where side-effect calls (`sideEffects: true` tools, after their confirmation or `approve`)
   * are claimed before they run and their results stored after: one call (thread, else run +
   * tool call id + exact input) runs at most once; a repeat gets the stored result; a claim whose
   * holder died without a result is in doubt (outcome `in_doubt`, never run again automatically).
   * Pass a shared ledger (`RedisSideEffectLedger` of `@reins/redis-store`) in a fleet. Applies to
   * calls that carry a tool call id (`createAgent`, LangGraph's `ToolNode`).
   * @default a new InMemorySideEffectLedger (per executor, so per process)
   */
  sideEffectLedger?: SideEffectLedger;
}

/** `ToolExecutorOptions` with defaults applied and every policy validated. */
export interface ResolvedToolExecutorOptions {
  readonly defaults: ToolPolicy;
  readonly policies: Readonly<Record<string, ToolPolicy>>;
  readonly metrics: ReinsEventRecorder | undefined;
  readonly onEvent: ReinsEventListener | undefined;
  readonly logger: ToolExecutorLogger;
  readonly now: () => number;
  readonly runContext: RunContextStore | undefined;
  readonly formatObservation: FormatObservation;
  readonly forwardCallbacks: boolean;
  readonly maxTrackedRuns: number;
  readonly labels: ReActLabelSet;
  readonly secretRedactor: SecretRedactor;
  readonly redactToolResults: boolean;
  readonly sideEffectLedger: SideEffectLedger;
}

/** Defaults of {@link ToolExecutorOptions}. */
export const DEFAULT_TOOL_EXECUTOR_OPTIONS: Readonly<
  Pick<ResolvedToolExecutorOptions, "defaults" | "policies" | "now" | "formatObservation" | "forwardCallbacks" | "maxTrackedRuns" | "logger">
> = Object.freeze({
  defaults: Object.freeze({}),
  policies: Object.freeze({}),
  now: (): number => Date.now(),
  formatObservation: defaultFormatObservation,
  forwardCallbacks: false,
  maxTrackedRuns: 1000,
  logger: Object.freeze({}),
});

const OPTION_KEYS = [
  "defaults",
  "policies",
  "metrics",
  "onEvent",
  "logger",
  "now",
  "runContext",
  "formatObservation",
  "forwardCallbacks",
  "maxTrackedRuns",
  "labels",
  "secretRedaction",
  "redactToolResults",
  "sideEffectLedger",
];

/**
 * Applies defaults to {@link ToolExecutorOptions} and validates them, including every policy.
 *
 * @throws {ToolExecutorOptionsError} naming the first bad field (e.g. `policies.search.timeoutMs`)
 */
export function resolveToolExecutorOptions(options: ToolExecutorOptions = {}): ResolvedToolExecutorOptions {
  if (typeof options !== "object" || options === null) {
    throw new ToolExecutorOptionsError({ field: "options", value: options, reason: "must be an object" });
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) {
      throw new ToolExecutorOptionsError({ field: key, value: (options as Record<string, unknown>)[key], reason: `unknown option (known: ${OPTION_KEYS.join(", ")})` });
    }
  }
  const defaults = options.defaults ?? DEFAULT_TOOL_EXECUTOR_OPTIONS.defaults;
  resolveToolPolicy(defaults, undefined, "defaults");
  const policies = options.policies ?? DEFAULT_TOOL_EXECUTOR_OPTIONS.policies;
  if (typeof policies !== "object" || policies === null || Array.isArray(policies)) {
    throw new ToolExecutorOptionsError({ field: "policies", value: policies, reason: "must be an object keyed by tool name" });
  }
  for (const [toolName, policy] of Object.entries(policies)) resolveToolPolicy(defaults, policy, `policies.${toolName}`);
  for (const key of ["now", "formatObservation", "onEvent"] as const) {
    const value = options[key];
    if (value !== undefined && typeof value !== "function") {
      throw new ToolExecutorOptionsError({ field: key, value, reason: "must be a function" });
    }
  }
  if (options.forwardCallbacks !== undefined && typeof options.forwardCallbacks !== "boolean") {
    throw new ToolExecutorOptionsError({ field: "forwardCallbacks", value: options.forwardCallbacks, reason: "must be a boolean" });
  }
  if (options.logger !== undefined && (typeof options.logger !== "object" || options.logger === null)) {
    throw new ToolExecutorOptionsError({ field: "logger", value: options.logger, reason: "must be an object with optional debug/info/warn/error methods" });
  }
  if (options.runContext !== undefined && typeof options.runContext?.contextOf !== "function") {
    throw new ToolExecutorOptionsError({ field: "runContext", value: "(object)", reason: "must be a RunContextStore from @reins/core" });
  }
  if (options.metrics !== undefined && typeof options.metrics?.record !== "function") {
    throw new ToolExecutorOptionsError({ field: "metrics", value: "(object)", reason: "must have a record(event) method" });
  }
  if (options.labels !== undefined && (typeof options.labels !== "object" || options.labels === null || !Array.isArray((options.labels as { final_answer?: unknown }).final_answer))) {
    throw new ToolExecutorOptionsError({ field: "labels", value: "(object)", reason: "must be a ReActLabelSet from @reins/core (see createReActLabelSet)" });
  }
  const maxTrackedRuns = options.maxTrackedRuns ?? DEFAULT_TOOL_EXECUTOR_OPTIONS.maxTrackedRuns;
  if (!Number.isInteger(maxTrackedRuns) || maxTrackedRuns < 1) {
    throw new ToolExecutorOptionsError({ field: "maxTrackedRuns", value: maxTrackedRuns, reason: "must be an integer >= 1" });
  }
  if (options.redactToolResults !== undefined && typeof options.redactToolResults !== "boolean") {
    throw new ToolExecutorOptionsError({ field: "redactToolResults", value: options.redactToolResults, reason: "must be a boolean" });
  }
  const ledger = options.sideEffectLedger;
  if (ledger !== undefined && (typeof ledger !== "object" || ledger === null || typeof ledger.claim !== "function" || typeof ledger.complete !== "function")) {
    throw new ToolExecutorOptionsError({ field: "sideEffectLedger", value: "(object)", reason: "must implement SideEffectLedger (claim, complete, release, takeOver, confirmationToken, peekConfirmationToken)" });
  }
  let secretRedactor: SecretRedactor;
  try {
    secretRedactor = createSecretRedactor(options.secretRedaction ?? {});
  } catch (error) {
    throw new ToolExecutorOptionsError({ field: "secretRedaction", value: options.secretRedaction, reason: error instanceof Error ? error.message : String(error) });
  }
  return Object.freeze({
    defaults,
    policies,
    metrics: options.metrics,
    onEvent: options.onEvent,
    logger: options.logger ?? DEFAULT_TOOL_EXECUTOR_OPTIONS.logger,
    now: options.now ?? DEFAULT_TOOL_EXECUTOR_OPTIONS.now,
    runContext: options.runContext,
    formatObservation: options.formatObservation ?? DEFAULT_TOOL_EXECUTOR_OPTIONS.formatObservation,
    forwardCallbacks: options.forwardCallbacks ?? false,
    maxTrackedRuns,
    labels: options.labels ?? DEFAULT_REACT_LABELS,
    secretRedactor,
    redactToolResults: options.redactToolResults ?? false,
    sideEffectLedger: ledger ?? new InMemorySideEffectLedger({ now: options.now ?? DEFAULT_TOOL_EXECUTOR_OPTIONS.now }),
  });
}
