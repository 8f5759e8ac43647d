/** LangChain's XML agent format (`createXmlAgent`), read when a reply has no ReAct step. */
import { XML_AGENT_TAG_NAMES } from "@reins/core";
import { missingInput, toolInputFor } from "./action-input";
import { finish, type Finished, type Work } from "./react-step";
import { resolveTool } from "./resolve-tool";

/** Reads a tag's content: from after `<tag>` to `</tag>` or the end of the text (a stop sequence may cut it). */
export function tagContent(text: string, tag: string): string | undefined {
  const open = text.indexOf(`<${tag}>`);
  if (open < 0) return undefined;
  const start = open + tag.length + 2;
  const close = text.indexOf(`</${tag}>`, start);
  return text.slice(start, close < 0 ? text.length : close);
}

/** LangChain's XML agent format: `<tool>name</tool><tool_input>input` and `<final_answer>answer` (tag names from the one grammar). */
export function fromXml(work: Work, body: string): Finished | undefined {
  const { tool, toolInput, finalAnswer } = XML_AGENT_TAG_NAMES;
  if (!body.includes(`<${tool}>`) && !body.includes(`<${finalAnswer}>`)) return undefined;
  const toolIndex = body.indexOf(`<${tool}>`);
  const finalIndex = body.indexOf(`<${finalAnswer}>`);
  if (toolIndex >= 0 && (finalIndex < 0 || toolIndex < finalIndex)) {
    const name = tagContent(body, tool) ?? "";
    work.repairs.add("xml_action");
    const resolved = resolveTool(work, name.trim(), false);
    if ("ok" in resolved) return resolved;
    const input = tagContent(body, toolInput);
    if (input === undefined) return missingInput(work, resolved.spec);
    return toolInputFor(work, resolved.spec, input.trim());
  }
  work.repairs.add("xml_final_answer");
  return finish(work, tagContent(body, finalAnswer) ?? "");
}
