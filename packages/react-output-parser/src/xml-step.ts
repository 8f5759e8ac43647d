/**
 * LangChain's XML agent format (`createXmlAgent`), read when a reply has no ReAct step:
 * `<tool>name</tool><tool_input>input` and `<final_answer>answer`, also XML-tagged ReAct as models
 * write it: any case, attributes on the tags (`<tool name="search">`, `<tool_input type="json">`,
 * `<final_answer lang="en">`), `<action>`/`<action_input>` for the tool tags, and the closing tag
 * missing (a stop sequence cut it).
 */
import { XML_AGENT_TAG_NAMES } from "@reins/core";
import { missingInput, toolInputFor } from "./action-input";
import { finish, type Finished, type Work } from "./react-step";
import { resolveTool } from "./resolve-tool";

const MAX_ATTRIBUTE_CHARS = 200;

/** An opening `<tag>` or `<tag attr=…>` (any case) at or after `from`: its offset, the end of the `>` and the attributes. */
function openTag(text: string, tag: string, from = 0): { at: number; end: number; attributes: string } | undefined {
  const lower = text.toLowerCase();
  for (let at = lower.indexOf(`<${tag}`, from); at >= 0; at = lower.indexOf(`<${tag}`, at + 1)) {
    const after = text[at + tag.length + 1];
    if (after !== ">" && after !== " " && after !== "\t" && after !== "\n" && after !== "/") continue;
    const close = text.indexOf(">", at);
    if (close < 0 || close - at > MAX_ATTRIBUTE_CHARS) return undefined;
    return { at, end: close + 1, attributes: text.slice(at + tag.length + 1, close).replace(/\/\s*$/, "") };
  }
  return undefined;
}

/** Reads a tag's content: from after `<tag …>` to `</tag>` or the end of the text (a stop sequence may cut it). */
export function tagContent(text: string, tag: string): string | undefined {
  const open = openTag(text, tag);
  if (open === undefined) return undefined;
  const close = text.toLowerCase().indexOf(`</${tag}>`, open.end);
  return text.slice(open.end, close < 0 ? text.length : close);
}

function nameAttribute(attributes: string): string | undefined {
  const match = /(?:^|\s)(?:name|tool)\s*=\s*(?:"([^"]{1,100})"|'([^']{1,100})')/i.exec(attributes);
  return match === null ? undefined : (match[1] ?? match[2] ?? "").trim();
}

/** The first of `tags` present: its name and opening tag. */
function firstOf(text: string, tags: readonly string[]): { tag: string; at: number; attributes: string } | undefined {
  let best: { tag: string; at: number; attributes: string } | undefined;
  for (const tag of tags) {
    const open = openTag(text, tag);
    if (open !== undefined && (best === undefined || open.at < best.at)) best = { tag, at: open.at, attributes: open.attributes };
  }
  return best;
}

/** LangChain's XML agent format: `<tool>name</tool><tool_input>input` and `<final_answer>answer` (tag names from the one grammar). */
export function fromXml(work: Work, body: string): Finished | undefined {
  const { tool, toolInput, finalAnswer } = XML_AGENT_TAG_NAMES;
  if (!body.includes("<")) return undefined;
  const call = firstOf(body, [tool, "action"]);
  const final = firstOf(body, [finalAnswer]);
  if (call === undefined && final === undefined) return undefined;
  if (call !== undefined && (final === undefined || call.at < final.at)) {
    const written = nameAttribute(call.attributes);
    const content = (tagContent(body, call.tag) ?? "").trim();
    const name = written ?? content;
    if (name.length === 0 || name.includes("<")) return undefined;
    work.repairs.add("xml_action");
    const resolved = resolveTool(work, name, false);
    if ("ok" in resolved) return resolved;
    const inputTag = firstOf(body, [toolInput, `${call.tag}_input`, `${call.tag}input`]);
    const input = inputTag !== undefined ? tagContent(body, inputTag.tag) : written !== undefined && content.length > 0 ? content : undefined;
    if (input === undefined) return missingInput(work, resolved.spec);
    return toolInputFor(work, resolved.spec, input.trim());
  }
  work.repairs.add("xml_final_answer");
  return finish(work, tagContent(body, finalAnswer) ?? "");
}
