/**
 * `reins-parse --tool-schemas FILE`: reads logged assistant messages (JSONL) and prints what the
 * `createAgent` tool-call rescue (`rescueToolCalls`) makes of each, so a team can measure the
 * rescue on its own logs before rollout. A line is an OpenAI chat completion
 * (`choices[0].message`, with `finish_reason`), an OpenAI message (`content`, `tool_calls` with
 * `function.arguments`), or a LangChain message (`content`, `tool_calls` with `args`,
 * `invalid_tool_calls`, `response_metadata.finish_reason`; also serialised as `{ "lc": 1, "kwargs": … }`).
 * `reasoning_content` (vLLM, DeepSeek) counts as a reasoning block.
 */
import { isRecord } from "@reins/core";
import type { RepairableTool } from "./tool-call-repair";
import { rescueToolCalls, type ReplyToRescue, type ToolCallRescue } from "./tool-call-rescue";

/**
 * The tools of an OpenAI-style definitions file: `[{ "type": "function", "function": { name,
 * parameters } }]`, also `{ name, parameters | input_schema }` entries or `{ "tools": [...] }`.
 *
 * @returns the tools, or a message saying what is wrong
 */
export function toolsFromDefinitions(value: unknown): RepairableTool[] | string {
  const list = isRecord(value) && Array.isArray(value.tools) ? value.tools : value;
  if (!Array.isArray(list) || list.length === 0) return "the tool schemas file must hold a non-empty JSON array of tool definitions";
  const tools: RepairableTool[] = [];
  for (const entry of list) {
    const definition = isRecord(entry) && isRecord(entry.function) ? entry.function : entry;
    if (!isRecord(definition) || typeof definition.name !== "string") return `a tool definition has no "name": ${JSON.stringify(entry).slice(0, 120)}`;
    const schema = definition.parameters ?? definition.input_schema ?? definition.inputSchema;
    tools.push({ name: definition.name, schema: isRecord(schema) ? schema : { type: "object", properties: {} } });
  }
  return tools;
}

function textOfContent(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) return undefined;
  return content.map((part) => (typeof part === "string" ? part : isRecord(part) && typeof part.text === "string" ? part.text : "")).join("");
}

/** One logged line as the rescue reads it, or a message saying why it cannot be read. */
export function replyOfLogLine(value: unknown): ReplyToRescue | string {
  if (!isRecord(value)) return "is not a JSON object";
  let finishReason: unknown;
  let message: unknown = value;
  if (Array.isArray(value.choices)) {
    const choice = value.choices[0];
    if (!isRecord(choice) || !isRecord(choice.message)) return "has no choices[0].message";
    finishReason = choice.finish_reason;
    message = choice.message;
  }
  if (isRecord(message) && message.lc === 1 && isRecord(message.kwargs)) message = message.kwargs;
  if (!isRecord(message)) return "holds no message";
  const metadata = isRecord(message.response_metadata) ? message.response_metadata : {};
  finishReason ??= message.finish_reason ?? metadata.finish_reason ?? metadata.stop_reason ?? metadata.done_reason;
  let content = textOfContent(message.content);
  if (content === undefined) return 'has a "content" that is neither text nor a list of text parts';
  const reasoning = message.reasoning_content ?? (isRecord(message.additional_kwargs) ? message.additional_kwargs.reasoning_content : undefined);
  if (typeof reasoning === "string" && reasoning.length > 0) content = `<think>${reasoning}</think>${content}`;
  const toolCalls: Array<{ name: string; args: unknown; id?: string }> = [];
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    if (!isRecord(call)) continue;
    const fn = isRecord(call.function) ? call.function : undefined;
    const name = fn?.name ?? call.name;
    if (typeof name !== "string") continue;
    toolCalls.push({ name, args: fn !== undefined ? (fn.arguments ?? "") : (call.args ?? {}), ...(typeof call.id === "string" ? { id: call.id } : {}) });
  }
  const invalidToolCalls = (Array.isArray(message.invalid_tool_calls) ? message.invalid_tool_calls : []).filter(isRecord).map((call) => ({
    ...(typeof call.name === "string" ? { name: call.name } : {}),
    ...(typeof call.args === "string" ? { args: call.args } : {}),
    ...(typeof call.id === "string" ? { id: call.id } : {}),
  }));
  return { content, toolCalls, invalidToolCalls, ...(typeof finishReason === "string" ? { finishReason } : {}) };
}

/** What is printed for one line. */
export function rescueResultOf(rescue: ToolCallRescue): Record<string, unknown> {
  return {
    outcome: rescue.outcome,
    calls: rescue.calls.map((call) => ({ name: call.name, args: call.args, source: call.source, repairs: call.repairs })),
    refused: rescue.refused.map((refused) => ({ name: refused.name, reason: refused.reason, source: refused.source, correction: refused.correction })),
    ...(rescue.contentChanged ? { content: rescue.content } : {}),
  };
}

/** Counts by outcome, repair and refusal reason. */
export class RescueSummary {
  private readonly counts = { outcome: new Map<string, number>(), repair: new Map<string, number>(), refused: new Map<string, number>() };
  private replies = 0;
  private unreadable = 0;

  add(rescue: ToolCallRescue): void {
    this.replies += 1;
    const bump = (map: Map<string, number>, key: string): void => void map.set(key, (map.get(key) ?? 0) + 1);
    bump(this.counts.outcome, rescue.outcome);
    for (const call of rescue.calls) for (const repair of call.repairs) bump(this.counts.repair, repair);
    for (const refused of rescue.refused) bump(this.counts.refused, refused.reason);
  }

  addUnreadable(): void {
    this.unreadable += 1;
  }

  format(): string {
    const rows = (counts: Map<string, number>): string[] =>
      counts.size === 0 ? ["       -  none"] : [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([key, count]) => `  ${String(count).padStart(6)}  ${key}`);
    return [
      `reins-parse rescue summary: ${this.replies} message(s) read${this.unreadable > 0 ? `, ${this.unreadable} line(s) unreadable` : ""}`,
      "by outcome:",
      ...rows(this.counts.outcome),
      "by repair (a call can have several):",
      ...rows(this.counts.repair),
      "by refusal (calls answered with a correction):",
      ...rows(this.counts.refused),
      "",
    ].join("\n");
  }
}

/**
 * Reads the JSONL log and prints one result per line (`{ "line", "outcome", "calls", "refused", "content"? }`).
 *
 * @returns the exit code: 0 when every line was read, 2 when one was not
 */
export function runMessageRescue(input: string, tools: readonly RepairableTool[], io: { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown } }, summary: RescueSummary | undefined): number {
  let exitCode = 0;
  input.split("\n").forEach((line, index) => {
    if (line.trim().length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      value = undefined;
    }
    const reply = value === undefined ? "is not JSON" : replyOfLogLine(value);
    if (typeof reply === "string") {
      io.stderr.write(`reins-parse: line ${index + 1} ${reply}\n`);
      summary?.addUnreadable();
      exitCode = 2;
      return;
    }
    const rescue = rescueToolCalls(reply, tools);
    summary?.add(rescue);
    io.stdout.write(`${JSON.stringify({ line: index + 1, ...rescueResultOf(rescue) })}\n`);
  });
  if (summary !== undefined) io.stderr.write(summary.format());
  return exitCode;
}
