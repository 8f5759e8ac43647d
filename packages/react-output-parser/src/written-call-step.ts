/**
 * Stage 0b of the reader: tool calls written with chat-template tokens the other stages do not
 * read (Kimi's call section, DeepSeek's call tokens, Mistral's `[TOOL_CALLS]`, Llama's
 * `<|python_tag|>` / `<|python_start|>`, pythonic `[tool(…)]` lists), read by
 * `readWrittenToolCalls`, the reader the `createAgent` rescue uses, so both read them alike.
 * The first call is the action (`extra_actions_ignored` when more follow).
 */
import { fromBlob } from "./action-blob";
import { PARSER_MESSAGES } from "./messages";
import { TOOL_CALL_MESSAGES } from "./tool-call-messages";
import { fail, type Finished, type Work } from "./react-step";
import { readWrittenToolCalls, type WrittenCallShape } from "./written-tool-calls";

/** Shapes this stage reads; tags, harmony and JSON blobs have their own stages. */
const TOKEN_SHAPES: ReadonlySet<WrittenCallShape> = new Set(["kimi", "deepseek", "mistral", "python_tag", "pythonic"]);

/** Cheap test before reading: a token or a `[name(` of these shapes. */
/** The template tokens of these shapes (not the pythonic list, which is ordinary text without a known tool). */
const CALL_TOKENS = /\[TOOL_CALLS\]|<\|python_(?:tag|start)\|>|<\|tool_call_begin\|>|<\|tool_calls_section_begin\|>|tool[\u2581_ ]calls?[\u2581_ ]begin/;
const MAY_HOLD = /\[TOOL_CALLS\]|<\|python_(?:tag|start)\|>|<\|tool_call_begin\|>|tool[\u2581_ ]call[\u2581_ ]begin|\[\s*[A-Za-z_][\w.-]*\s*\(/;

export function fromWrittenCalls(work: Work, body: string): Finished | undefined {
  if (!MAY_HOLD.test(body.length > 20_000 ? body.slice(0, 20_000) : body)) return undefined;
  const read = readWrittenToolCalls(body, { toolNames: work.config.toolNames, maxRepairChars: work.config.maxRepairChars });
  const first = read.calls[0];
  // Call tokens with no call readable in them: a retry naming the tools, never a final answer of markup.
  if (first === undefined && read.markup && CALL_TOKENS.test(body)) return fail(work, "missing_action", TOOL_CALL_MESSAGES.noReadableCall(work.config.toolNames));
  if (first === undefined || !TOKEN_SHAPES.has(first.shape)) return undefined;
  work.repairs.add("written_tool_call");
  if (read.calls.length > 1) work.repairs.add("extra_actions_ignored");
  const name = first.name.replace(/^(?:functions?|tools?)\./i, "").replace(/:\d{1,4}$/, "");
  if (first.truncated) {
    const labels = work.config.messageLabels;
    return fail(work, "truncated_input", PARSER_MESSAGES.truncatedInput(labels, name, `'${labels.actionInput}: <the complete input for ${name}>'`));
  }
  const empty = first.args === "" || (typeof first.args === "object" && first.args !== null && Object.keys(first.args).length === 0);
  return fromBlob(work, { tool: name, input: first.args, hasInput: !empty });
}
