import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import { BaseOutputParser } from "@langchain/core/output_parsers";
import { emitEvent, wantsContent, type ReinsEvent } from "@reins/core";
import { ReActFormatError } from "./errors";
import { formatReminder, toolList } from "./messages";
import {
  resolveHardenedReActOutputParserOptions,
  type HardenedReActOutputParserOptions,
  type ResolvedHardenedReActOutputParserOptions,
} from "./options";
import { readReActStep, type ParserErrorReason, type ReActStep } from "./read-react-step";
import { runValidators, type ParseContext } from "./validators";

/** A non-string reply as text for `llmOutput`; never throws (a value's own `toString` may). */
function describeNonText(value: unknown): string {
  try {
    return String(value);
  } catch {
    return `[${typeof value}]`;
  }
}

/** The detailed outcome of one parse: the result or the rejection, with the repairs applied. */
export type ParseReport =
  | {
      readonly ok: true;
      readonly result: AgentAction | AgentFinish;
      /** The reasoning before the action or answer (`Thought:` text and unlabelled lines). */
      readonly thought: string;
      /** Repairs applied, in order (bounded identifiers, the `repair` of `parser_repair` events). */
      readonly repairs: readonly string[];
    }
  | {
      readonly ok: false;
      readonly reason: ParserErrorReason;
      /** The corrective message the model gets. */
      readonly observation: string;
      readonly thought: string;
      readonly repairs: readonly string[];
      /** The error `parse` throws for this reply. */
      readonly error: ReActFormatError;
    };

/**
 * A hardened drop-in replacement for LangChain's `ReActSingleInputOutputParser`: reads what real
 * models write in the ReAct format (Yao et al., 2022, as LangChain's MRKL prompt asks for it) into
 * an `AgentAction` or `AgentFinish`, or throws an `OutputParserException` (a
 * {@link ReActFormatError}) with `sendToLLM: true`, the reply as `llmOutput`, and an `observation`
 * that tells the model exactly what was wrong and what to write instead (valid tool names included).
 * Parsing is linear in the reply's length: no regular expression with nested or adjacent unbounded
 * quantifiers runs over the reply.
 *
 * The blob keys, wrapper keys, finish names, XML-agent, tool-call and reasoning tags, harmony
 * markers and special tokens are read from `@reins/core`'s one grammar (`react-grammar.ts`), which
 * the tool-output neutraliser is derived from. The ids in parentheses below name the cases of
 * `src/__fixtures__/variant-cases.json` that check each 2025–26 shape.
 *
 * Accepted (each listed shape has a case in `shared/corpus` and a unit test):
 * - the canonical `Thought:` / `Action:` / `Action Input:` and `Thought:` / `Final Answer:`;
 * - a missing `Thought:` label (the prompt ends with it) or free text before the action;
 * - labels in any case, in markdown (`**Action:**`, `*Action:*`, a whole line in bold
 *   `**Action Input: x**`, `## action:` with the value on the next line),
 *   with a full-width colon (`Action：`), numbered (`Action 1:`, `Action 1 Input:`), glued
 *   (`FinalAnswer:`), indented, and custom label words (option `labels`);
 * - blank lines between the labels; a Thought over several lines; a multi-line Action Input;
 *   `Action: search Action Input: x` on one line; a stray line between Action and Action Input;
 * - the whole reply in a code fence; the Action Input in a code fence (the fence is removed);
 * - JSON action blobs, fenced or not, glued to prose, with trailing prose, also as `Action: {…}`:
 *   `{"action", "action_input"}` (action `"Final Answer"` is the answer), `{"name", "args"}`, a list
 *   of blobs (the first is taken), a blob whose input holds code fences;
 * - the paper style `Search[query]` and `Finish[answer]` (inner brackets kept), also as a bare line
 *   without `Action:` (alone or last after the Thought), `tool(input)`, `tool(query="input")`;
 * - the conversational agent's `Do I need to use a tool? No` with `AI:`; LlamaIndex's `Answer:`;
 *   a Thought saying no tool is needed (English and nine other languages) followed by the reply; a plain reply with no label at all
 *   (option `acceptUnlabelledReply`) when it names no tool, is not a plan and is not cut off;
 * - `<think>…</think>` (and `<thinking>`, `<reasoning>`, `<reflection>`, Kimi's `◁think▷…◁/think▷`)
 *   blocks, removed: an empty block, a closing tag with no opening one (the template opened it), an
 *   unclosed block, `</think>` glued to the answer (`n-think-empty`, `n-think-close-only`,
 *   `n-think-glued`, `n-think-kimi`); a step that stands only inside a block is read when none
 *   stands outside (`step_read_from_reasoning_block`, `n-think-only-action-inside`,
 *   `n-think-unclosed-final`), and a draft inside never wins over a step outside
 *   (`n-think-draft-loses`); tags written inside a sentence of a Final Answer are its text
 *   (`n-think-in-final`);
 * - gpt-oss harmony: `<|channel|>analysis|commentary|final`, `<|message|>`, `<|call|>`,
 *   `<|return|>`, `<|end|>` and `to=functions.NAME` calls (`n-harmony-call`, `n-harmony-final`,
 *   `n-harmony-to-commentary`), fused `analysis…assistantfinal…` / `assistantcommentary
 *   to=functions.NAME json{…}` text (`n-harmony-fused`, `n-harmony-fused-call`); leftover tokens of
 *   other families in names and inputs (`<|eot_id|>`, `<|eom_id|>`, `<|im_end|>`, `</s>`) removed
 *   (`n-leftover-eot`, `n-leftover-imend`, `n-leftover-s`);
 * - tool calls written as tags: Hermes `<tool_call>{…}</tool_call>` with or without newlines
 *   (`n-hermes`, `n-hermes-inline`), Qwen `<function=NAME><parameter=KEY>…` (`n-qwen-function`,
 *   `n-qwen-function-string`), `<tool_use>` and `<action><name>…<input>…` (`n-tool-use`,
 *   `n-action-xml`), attributes `<tool_call name="…">` and `<invoke name="…"><parameter name="…">`
 *   (`n-tag-attr`, `n-invoke-attr`); several calls: the first, `extra_actions_ignored` (`n-hermes-two`);
 *   a bare `{"name", "arguments"}` or `{"tool", "arguments"}` blob, arguments as an object or a
 *   JSON string (`n-bare-name-args-object`, `n-bare-args-string`, `n-bare-tool-key`);
 * - blob keys in Title Case or spaced (`"Action Input"`, `n-titlecase-keys`, `n-spaced-keys`), one
 *   wrapper key around a blob (`{"tool_call": {…}}`, `n-wrapper-key`), an array input in a blob in
 *   prose (`n-array-input-prose`); a fence language tag without backticks (`json` alone on a line,
 *   `n-fence-tag-bare`); a stray markdown marker before the input (`** {…}`, `n-stray-markdown`);
 *   `finish(answer="…")` / `Finish(…)` (`n-finish-call`, `n-finish-call-cap`);
 * - an echoed template header or `Question:` line, or an opening `Observation:` line, then a valid
 *   step (`n-echo-header`, `n-echo-question`, `n-open-observation`); the whole format block echoed
 *   with its placeholders, then the step after a `Question:` or `Begin!` line
 *   (`template_echo_skipped`, `n2-template-echo`, `n2-template-echo-begin`); a JSON deliverable after a
 *   Thought with no Final Answer label and no action key: the answer (`json_final_answer`,
 *   `n-json-deliverable`);
 * - a partial stop label left at the end (`Observ`, `Obs`, `Observation` without its colon), cut
 *   (`partial_stop_label_cut`, `n-cut-stop-observ`, `n-cut-stop-obs`, `n-cut-stop-observation-nocolon`);
 *   a missing final brace after complete values, repaired (`n-cut-missing-brace`);
 * - translated labels given as `labels`, e.g. `REACT_LABEL_LANGUAGE_SETS.zh` from `@reins/core`
 *   (思考 / 行动 / 行动输入 / 观察 / 最终答案, full-width colons: `n-zh-fullwidth`, `n-zh-final`);
 * - `Input:` alone is an Action Input label only right under an Action and never as a list item
 *   (`n-loose-input-bullet`, `n-loose-input-prose`);
 * - a hallucinated continuation: a model-written `Observation:` after the step, or a new
 *   `Question:`, ends the step (the first action wins); an `Observation:` echoed before anything
 *   else is ignored;
 * - an action followed by a Final Answer: the action (option `onConflict`); a short `Answer:`/`AI:`
 *   line before an action (written by accident): the action;
 * - tool names: exact, else normalised (case, `-`/`_`/space, camelCase or run together, backticks,
 *   quotes, bold markers, markdown escapes, a leading "Use"/"Call", "the … tool") when exactly one
 *   registered tool matches; fuzzy with option `fuzzyToolNames`;
 * - input quoting: one wrapping pair of quotes removed (inner quotes kept), a lone leading quote on a
 *   one-line input removed, a lone trailing quote kept;
 * - object-schema tools: JSON parsed and repaired (smart/single quotes, Python literals, trailing
 *   commas, comments, a missing closing brace, unquoted keys, double encoding, a wrapper such as
 *   `Tool({...})`, trailing prose), then checked against the tool's schema; a single-argument tool
 *   given plain text gets `{ argument: text }`; no-argument tools called with no input, `{}` or an
 *   empty `Action Input:`;
 * - calls of other template families (`readWrittenToolCalls`): Mistral `[TOOL_CALLS]`, DeepSeek
 *   `<｜tool▁call▁begin｜>`, Kimi `<|tool_call_begin|>`, Llama `<|python_tag|>`/`<|python_start|>`,
 *   pythonic `[tool(arg="…")]` naming a registered tool (`written_tool_call`: `mistral-v11`,
 *   `deepseek-v31`, `kimi-k2`, `llama4-python-start`, `pythonic-list` in `written-tool-calls.json`);
 * - control tokens glued to a name (`y-ctl-deepseek-eos`, `y-ctl-gemma-eot`), JSON double-encoded
 *   by hand with unescaped inner quotes (`y-de-unescaped-inner`), XML-tagged ReAct with attributes
 *   and a missing closing tag (`y-xml-attr-tool`), a stray `json` fence word before a blob
 *   (`y-fence-word-action`), a short answer after a reasoning block missing its opening tag
 *   (`y-think-open-missing-number`);
 * - an `Action Input: ""` (written quotes) for a string tool: `""` (LangChain's `sql_db_list_tables`
 *   takes an empty input). A bare empty `Action Input:` or none at all is `missing_action_input`.
 *
 * Rejected with a corrective observation (the `reason` in parentheses):
 * - an empty reply (`empty_output`), only reasoning tags (`reasoning_only`), a value that is not a
 *   string, even one whose `toString` throws (`not_text`);
 * - prose, a plan (`Plan:`, `Next steps:`), a cut-off Thought or a Thought with no action (`missing_action`),
 *   also a reply that copies neutralised tool output (`«Final Answer»:`, `‹tool_call>`, `| «tool»[…]`:
 *   `@reins/core`'s `hasNeutralizedMarks`), which is never taken for an unlabelled answer;
 * - `Action Input:` with no `Action:` (`missing_action_label`); an empty `Action:` (`empty_tool_name`);
 * - an Action that is not a registered tool, e.g. a sentence (`unknown_tool`, listing the tools and
 *   suggesting the one named in it), or matching several after normalisation (`ambiguous_tool`);
 * - `Action: None` / `N/A` / `-` / `—` / `nothing` / `None: reason` (`no_op_action`: write `Final Answer:`);
 * - the prompt's format instructions echoed back, e.g. `Action: one of [search]` (`prompt_echo`);
 * - an action of a tool that needs input with no `Action Input:` (`missing_action_input`);
 * - a Final Answer followed by an action (`final_answer_then_action`), or any mix with
 *   `onConflict: "error"` (`action_and_final_answer`); an empty Final Answer (`empty_final_answer`);
 * - object-tool input that is not JSON even after repair (`invalid_json_input`), or that fails the
 *   tool's schema (`invalid_tool_input`, with the field errors);
 * - an input cut off by `max_tokens` or a stop sequence — an unterminated JSON string, an unclosed
 *   code fence, an object stopping after `,` or `:` — never run half-written (`truncated_input`: the
 *   observation says it was cut off and asks for it again, shorter: `n-cut-string`, `n-cut-fence`,
 *   `n-cut-object-after-comma`, `n-cut-json-string-input-string-tool`);
 * - a whole tool definition or placeholder values pasted as the input (`schema_echo`:
 *   `y-schema-tool-definition`, `y-schema-placeholder`); a call tag cut off inside its JSON
 *   (`truncated_input`: `truncated-write-file`);
 * - the tool's argument schema echoed as input, with or without `"type": "object"`, also one field's
 *   schema or a Python repr (`{'title': …, 'type': …}`, `AttributedDict({…})`) (`schema_echo`:
 *   `n-schema-python-repr`, `n-schema-attributed`);
 * - labels of a language the parser is not configured for (`最终答案：…` with the default labels),
 *   never returned as the answer (`missing_action`, naming the labels: `n-zh-not-configured`);
 * - a reasoning block with no step in or after it (`reasoning_only`, `n-think-reasoning-only`);
 * - a degenerate reply with more than 500 labelled lines before the step is decided (`too_many_labels`);
 * - opt-in validators: `thought_too_short`, `thought_too_long`, `banned_phrase`, `required_pattern`,
 *   `final_answer_before_observation`, `final_answer_rejected`.
 * When a hallucinated continuation was cut and the reply is rejected, the observation also tells the
 * model to stop after `Action Input:` and wait for the real Observation.
 *
 * Nothing but a {@link ReActFormatError} is ever thrown by `parse`; `parseDetailed` never throws.
 *
 * Every repair and rejection is reported as a `parser_repair` / `parser_error` event (options
 * `metrics`, `onEvent`); {@link HardenedReActOutputParser.parseDetailed} returns them too.
 *
 * @example
 * ```ts
 * import { HardenedReActOutputParser } from "@reins/react-output-parser";
 *
 * const parser = new HardenedReActOutputParser({ tools: [searchTool, calculatorTool] });
 * await parser.parse("Thought: look it up\nAction: search\nAction Input: \"Oslo weather\"");
 * // { tool: "search", toolInput: "Oslo weather", log: "Thought: look it up\n..." }
 * ```
 */
export class HardenedReActOutputParser extends BaseOutputParser<AgentAction | AgentFinish> {
  static override lc_name(): string {
    return "HardenedReActOutputParser";
  }

  lc_namespace = ["reins", "react_output_parser"];

  /** The registered tool names (from `tools` then `toolNames`). */
  readonly toolNames: readonly string[];

  private readonly resolved: ResolvedHardenedReActOutputParserOptions;
  private readonly hasValidators: boolean;
  private readonly hasEventSinks: boolean;

  /**
   * @param options - tools, labels, conflict policy, validators and event sinks; see
   *   {@link HardenedReActOutputParserOptions}
   * @throws {InvalidParserOptionsError} when an option is invalid (the error names the field)
   */
  constructor(options: HardenedReActOutputParserOptions = {}) {
    super();
    this.resolved = resolveHardenedReActOutputParserOptions(options);
    this.toolNames = this.resolved.reader.toolNames;
    this.hasEventSinks = this.resolved.metrics !== undefined || this.resolved.onEvent !== undefined;
    this.hasValidators = Object.values(this.resolved.validators).some((value) => value !== undefined && !(Array.isArray(value) && value.length === 0));
  }

  /**
   * Parses one model reply.
   *
   * @param text - the model's reply, exactly as generated
   * @returns an `AgentAction` (`tool`, `toolInput`: a string for string tools, an object for
   *   object-schema tools, `log`: the reply) or an `AgentFinish` (`returnValues.output`, `log`)
   * @throws {ReActFormatError} (an `OutputParserException` with `sendToLLM: true`) when the reply
   *   cannot be used; its `observation` is the corrective message for the model
   */
  async parse(text: string): Promise<AgentAction | AgentFinish> {
    const step = readReActStep(text, this.resolved.reader);
    // The common case (no validators, nothing to emit): no report object.
    if (step.ok && !this.hasValidators && (step.repairs.length === 0 || !this.hasEventSinks)) {
      return step.kind === "action" ? { tool: step.tool, toolInput: step.toolInput, log: text } : { returnValues: { output: step.output }, log: text };
    }
    return this.unwrap(this.settle(step, text, undefined));
  }

  /**
   * Parses one model reply with what the caller knows about the run (needed by the
   * `requireObservationBeforeFinalAnswer` validator).
   *
   * @param text - the model's reply
   * @param context - e.g. `{ observationCount: steps.length }`
   * @throws {ReActFormatError} as {@link HardenedReActOutputParser.parse}
   */
  async parseWithContext(text: string, context: ParseContext): Promise<AgentAction | AgentFinish> {
    return this.unwrap(this.parseDetailed(text, context));
  }

  /**
   * Parses one model reply without throwing: the result or the rejection, with the repairs applied.
   * Emits the same events as {@link HardenedReActOutputParser.parse}.
   *
   * @param text - the model's reply
   * @param context - optional run context for the validators
   */
  parseDetailed(text: string, context?: ParseContext): ParseReport {
    return this.settle(readReActStep(text, this.resolved.reader), text, context);
  }

  /** Runs the validators on a step, builds the report and emits its events. */
  private settle(step: ReActStep, text: string, context: ParseContext | undefined): ParseReport {
    const { reader, validators } = this.resolved;
    const llmOutput = typeof text === "string" ? text : describeNonText(text);
    let report: ParseReport;
    if (step.ok) {
      const failure = this.hasValidators ? runValidators(step, llmOutput, validators, reader.messageLabels, reader.toolNames, context) : undefined;
      if (failure !== undefined) {
        report = this.rejection(failure.reason, failure.observation, step.thought, step.repairs, llmOutput);
      } else {
        const result: AgentAction | AgentFinish =
          step.kind === "action"
            ? { tool: step.tool, toolInput: step.toolInput, log: llmOutput }
            : { returnValues: { output: step.output }, log: llmOutput };
        report = { ok: true, result, thought: step.thought, repairs: step.repairs };
      }
    } else {
      report = this.rejection(step.reason, step.observation, step.thought, step.repairs, llmOutput);
    }
    this.report(report, context?.runId);
    return report;
  }

  /**
   * The format instructions of LangChain's ReAct prompt, with this parser's tool names and labels.
   */
  getFormatInstructions(): string {
    const labels = this.resolved.reader.messageLabels;
    return `Use the following format:\n\nQuestion: the input question you must answer\n${labels.thought}: you should always think about what to do\n${labels.action}: the action to take, should be one of [${toolList(this.toolNames)}]\n${labels.actionInput}: the input to the action\n${labels.observation}: the result of the action\n... (this ${labels.thought}/${labels.action}/${labels.actionInput}/${labels.observation} can repeat N times)\n${labels.thought}: I now know the final answer\n${labels.finalAnswer}: the final answer to the original input question`;
  }

  /** The short format reminder used in corrective messages. */
  getFormatReminder(): string {
    return formatReminder(this.resolved.reader.messageLabels, this.toolNames);
  }

  private rejection(reason: ParserErrorReason, observation: string, thought: string, repairs: readonly string[], llmOutput: string): ParseReport {
    const error = new ReActFormatError({ reason, observation, llmOutput, repairs });
    return { ok: false, reason, observation, thought, repairs, error };
  }

  private report(report: ParseReport, runId: string | undefined): void {
    const { metrics, onEvent } = this.resolved;
    if (metrics === undefined && onEvent === undefined) return;
    const targets = [metrics, onEvent];
    const run = runId !== undefined ? { runId } : {};
    for (const repair of report.repairs) {
      const event: ReinsEvent = { type: "parser_repair", repair, ...run };
      emitEvent(event, targets);
    }
    if (!report.ok) {
      const content = wantsContent(targets) ? { llmOutput: report.error.llmOutput } : {};
      emitEvent({ type: "parser_error", reason: report.reason, message: report.observation, ...run, ...content }, targets);
    }
  }

  private unwrap(report: ParseReport): AgentAction | AgentFinish {
    if (!report.ok) throw report.error;
    return report.result;
  }
}
