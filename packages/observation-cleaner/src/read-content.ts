/**
 * What a tool result holds, read once: a JSON or XML tree (also JSON nested in string fields, and
 * repaired JSON), HTML converted to text, decoded bytes, double-encoded JSON text, a LangChain
 * `ToolMessage`'s content, or plain text. Every conversion is noted.
 */
import { jsonrepair } from "jsonrepair";
import { decodeBytes, decodeText, normalizeControlCharacters, type Notes } from "./decode";
import { MAX_HTML_DEPTH, htmlToText, looksLikeHtml } from "./html";
import { jsonLinesLog } from "./json-lines";
import { parseJsonText } from "./json-text";
import { EMPTY_TEXT, NO_DATA_TEXT, NO_READABLE_TEXT, flattenedMarkupNote } from "./messages";
import { stringNode, treeFromValue, type TreeNode } from "./tree";
import { replayCarriageReturns } from "./log-lines";
import { looksLikeXml, xmlToTree } from "./xml";

const MAX_JSON_REPAIR_CHARS = 2_000_000;
const MAX_NESTED_JSON_CHARS = 1_000_000;

/** What a value holds: nothing (with the sentence to say so), text (with its tail share), or a tree. */
export type Content =
  | { readonly kind: "empty"; readonly text: string }
  | { readonly kind: "text"; readonly text: string; readonly tailShare: number }
  | { readonly kind: "tree"; readonly tree: TreeNode };

/** Reads values into {@link Content}, noting each conversion. */
export class ContentReader {
  constructor(
    private readonly notes: Notes,
    /** The options' `maxDepth`. */
    private readonly maxDepth: number,
  ) {}

  private readonly stringLeaf = (value: string, depth: number): TreeNode => {
    const text = decodeText(value, this.notes);
    let start = 0;
    while (start < text.length && text.charCodeAt(start) <= 0x20) start += 1;
    const first = text[start];
    if ((first === "{" || first === "[") && text.length <= MAX_NESTED_JSON_CHARS && depth < this.maxDepth - 1) {
      const trimmed = text.trim();
      const last = trimmed[trimmed.length - 1];
      if ((first === "{" && last === "}") || (first === "[" && last === "]")) {
        const nested = parseJsonText(trimmed, this.notes, this.maxDepth - depth, this.stringLeaf);
        if (nested !== undefined) {
          this.notes.add("parsed JSON text found inside a field");
          return nested;
        }
      }
    }
    if (text.includes("<") && text.includes(">") && looksLikeHtml(text, 2)) {
      const converted = htmlToText(text).text;
      if (converted.length > 0) {
        this.notes.add("converted HTML inside fields to text");
        return stringNode(converted);
      }
    }
    return stringNode(text);
  };

  /** Works out what a string holds. */
  private readText(raw: string, decodingDepth: number): Content {
    const redrawn = replayCarriageReturns(raw);
    if (redrawn.dropped > 0) this.notes.add(`kept the last of each carriage-return redraw (${redrawn.dropped} overwritten segment(s) dropped, as a terminal shows them)`);
    const text = normalizeControlCharacters(redrawn.text, this.notes);
    const trimmed = text.trim();
    if (trimmed.length === 0) return { kind: "empty", text: EMPTY_TEXT };
    const first = trimmed[0];
    if (first === "{" && decodingDepth === 0 && trimmed.includes("}\n")) {
      const log = jsonLinesLog(trimmed, this.notes);
      if (log !== undefined) return { kind: "text", text: log, tailShare: 0.25 };
    }
    if (first === "{" || first === "[") {
      let tree = parseJsonText(trimmed, this.notes, this.maxDepth, this.stringLeaf);
      if (tree === undefined && trimmed.length <= MAX_JSON_REPAIR_CHARS) {
        try {
          const repaired = jsonrepair(trimmed);
          tree = parseJsonText(repaired, this.notes, this.maxDepth, this.stringLeaf);
          if (tree !== undefined) this.notes.add("repaired malformed JSON (jsonrepair)");
        } catch {
          // Not JSON after all: read it as text below.
        }
      }
      if (tree !== undefined) {
        if (tree.kind === "string" && decodingDepth < 3) return this.readText(tree.value, decodingDepth + 1);
        return { kind: "tree", tree };
      }
    }
    if (first === '"' && trimmed.endsWith('"') && trimmed.length >= 2 && decodingDepth < 3) {
      try {
        const inner: unknown = JSON.parse(trimmed);
        if (typeof inner === "string") {
          this.notes.add("decoded double-encoded JSON text");
          return this.readText(inner, decodingDepth + 1);
        }
      } catch {
        // A quoted text, not a JSON string: keep as text.
      }
    }
    if (first === "<" || text.includes("</")) {
      if (looksLikeHtml(trimmed, first === "<" ? 1 : 3) && !trimmed.startsWith("<?xml")) {
        const { text: pageText, mainRegionOnly, errorPage, flattened } = htmlToText(trimmed);
        this.notes.add(mainRegionOnly ? "converted HTML to text (main region of the page)" : errorPage ? "converted HTML to text (an error or challenge page, read whole)" : "converted HTML to text");
        if (flattened > 0) this.notes.add(flattenedMarkupNote(flattened, MAX_HTML_DEPTH));
        if (pageText.trim().length === 0) return { kind: "empty", text: NO_READABLE_TEXT };
        return { kind: "text", text: decodeText(pageText, this.notes), tailShare: 0.08 };
      }
      if (first === "<" && looksLikeXml(trimmed)) {
        const tree = xmlToTree(trimmed, this.notes, this.maxDepth, this.stringLeaf);
        if (tree !== undefined) {
          this.notes.add("read XML as fields");
          return { kind: "tree", tree };
        }
      }
    }
    return { kind: "text", text: decodeText(trimmed, this.notes), tailShare: 0.25 };
  }

  read(value: unknown): Content {
    if (value === null || value === undefined) return { kind: "empty", text: NO_DATA_TEXT };
    if (typeof value === "string") return this.readText(value, 0);
    if (value instanceof Uint8Array || value instanceof ArrayBuffer) {
      const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : value;
      this.notes.add("decoded bytes as UTF-8");
      return this.readText(decodeBytes(bytes, this.notes), 0);
    }
    if (typeof value === "object" && "tool_call_id" in value && "content" in value) {
      // A LangChain ToolMessage (a tool that builds its own): its content is the observation.
      this.notes.add("read the content of a ToolMessage");
      return this.read((value as { content: unknown }).content);
    }
    const tree = treeFromValue(value, this.notes, this.maxDepth, this.stringLeaf);
    if (tree.kind === "string" && tree.marker !== true) return this.readText(tree.value, 0);
    return { kind: "tree", tree };
  }
}
