/**
 * Provenance on the classic path: an action the model writes that repeats a call standing in text
 * from outside the model — the run's observations (tool results, failure texts, fallbacks) and its
 * input values (the question and whatever else the app puts in the prompt) — does not run. The
 * untrusted texts are read with `@reins/react-output-parser`'s `readUntrustedCalls` (every written
 * call shape, on the decoded view, each piece alone and all joined in order) plus the ReAct step
 * reader itself, so an `Action:` / `Action Input:` step written in an observation is recorded too.
 * The agent's own `_Exception` corrections are Reins' text and are not read.
 */
import type { AgentAction, AgentStep } from "@langchain/core/agents";
import { emitEvent, wantsContent, type ReinsEventListener, type ReinsEventRecorder } from "@reins/core";
import { HardenedReActOutputParser, isUntrustedCall, readUntrustedCalls, ReActFormatError, TOOL_CALL_MESSAGES, UNTRUSTED_JOIN_TAIL_CHARS, type UntrustedCallCandidate } from "@reins/react-output-parser";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { EXCEPTION_TOOL_NAME } from "./exception-tool";

/** A line that starts an action (`Action:`, `**Action 2**:`, `### Action：`) in the folded view. */
const ACTION_LINE = /^[ \t>#*_|-]*action(?:[ \t]*\d+)?[ \t*_]*[:\uff1a]/gim;
/** Steps read from one untrusted text at most (each read is linear in the rest of the text). */
const MAX_STEPS_READ = 32;

interface ReadSoFar {
  /** Observations read (the steps array grows during a run: only new ones are read). */
  readonly observations: number;
  readonly input: string;
  readonly keys: ReadonlySet<string>;
  readonly tail: string;
}

function textOfValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}

/** Reads a run's untrusted texts as they enter it and judges the actions the model writes. */
export class ReActProvenance {
  private readonly toolNames: readonly string[];
  /** A parser of the agent's tools that emits no events: the ReAct step reader for untrusted text. */
  private readonly stepReader: HardenedReActOutputParser;
  /** Per run: the executor passes the same growing `steps` array on every planning call of a run. */
  private readonly read = new WeakMap<readonly AgentStep[], ReadSoFar>();

  private readonly targets: ReadonlyArray<ReinsEventRecorder | ReinsEventListener | undefined>;

  /**
   * @param tools - the agent's tools
   * @param sinks - where a refusal is reported (a `parser_error` event, reason `untrusted_call`)
   */
  constructor(tools: readonly StructuredToolInterface[], sinks: { readonly metrics?: ReinsEventRecorder; readonly onEvent?: ReinsEventListener } = {}) {
    this.targets = [sinks.metrics, sinks.onEvent];
    this.toolNames = tools.map((tool) => tool.name);
    this.stepReader = new HardenedReActOutputParser({ tools: [...tools] });
  }

  /**
   * The refusal for `action` when it repeats a call seen in the run's untrusted text, else undefined.
   *
   * @param action - the action the parser read from the model's reply
   * @param values - the run's input values (besides `steps`)
   * @param steps - the run's steps so far (their observations)
   * @param runId - the run's id for the `parser_error` event
   * @returns a corrective `OutputParserException` (`sendToLLM`, reason `untrusted_call`), handled as a parse error is
   */
  refusalOf(action: AgentAction, values: Record<string, unknown>, steps: readonly AgentStep[], runId?: string): ReActFormatError | undefined {
    const keys = this.keysOf(values, steps);
    const candidates: UntrustedCallCandidate[] = [{ name: action.tool, args: action.toolInput }];
    if (!isUntrustedCall(candidates, keys)) return undefined;
    const observation = TOOL_CALL_MESSAGES.untrustedCall(action.tool);
    const error = new ReActFormatError({ reason: "untrusted_call", observation, llmOutput: action.log });
    const content = wantsContent(this.targets) ? { llmOutput: action.log } : {};
    emitEvent({ type: "parser_error", reason: "untrusted_call", message: observation, ...(runId !== undefined ? { runId } : {}), ...content }, this.targets);
    return error;
  }

  private keysOf(values: Record<string, unknown>, steps: readonly AgentStep[]): ReadonlySet<string> {
    const input = Object.entries(values)
      .filter(([key]) => key !== "agent_scratchpad" && key !== "intermediate_steps")
      .map(([, value]) => textOfValue(value))
      .join("\n");
    const before = this.read.get(steps);
    const incremental = before !== undefined && before.input === input && before.observations <= steps.length;
    const fresh = steps
      .slice(incremental ? before.observations : 0)
      .filter((step) => step.action.tool !== EXCEPTION_TOOL_NAME)
      .map((step) => textOfValue(step.observation));
    const pieces = incremental ? fresh : [input, ...fresh];
    if (incremental && fresh.length === 0) return before.keys;
    const options = { toolNames: this.toolNames, extraReaders: [(text: string) => this.readSteps(text)] };
    const found = readUntrustedCalls(pieces, options, incremental ? before.tail : "");
    const keys = incremental ? new Set([...before.keys, ...found]) : found;
    const tail = ((incremental ? before.tail : "") + pieces.join("")).slice(-UNTRUSTED_JOIN_TAIL_CHARS);
    this.read.set(steps, { observations: steps.length, input, keys, tail });
    return keys;
  }

  /** The ReAct action an untrusted text holds (an `Action:` step, a JSON blob), read as a reply would be. */
  private readSteps(text: string): UntrustedCallCandidate[] {
    const found: UntrustedCallCandidate[] = [];
    // The text from its start, and from each line that begins with an action label (every step it holds).
    const starts = [0];
    for (const match of text.matchAll(ACTION_LINE)) {
      if (starts.length > MAX_STEPS_READ) break;
      if (match.index !== undefined && match.index > 0) starts.push(match.index);
    }
    for (const start of starts) {
      const report = this.stepReader.parseDetailed(start === 0 ? text : text.slice(start));
      if (report.ok && !("returnValues" in report.result)) found.push({ name: report.result.tool, args: report.result.toolInput });
    }
    return found;
  }
}
