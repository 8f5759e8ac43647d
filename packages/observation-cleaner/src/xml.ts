/**
 * XML → the cleaner's value tree, parsed with htmlparser2 in XML mode (the parser html-to-text is
 * built on). Elements become fields named by their local name (namespace prefixes dropped),
 * repeated elements become lists, attributes become fields, text is trimmed and whitespace
 * collapsed. `xmlns` and schema-location attributes are dropped as transport noise.
 */
import { parseDocument } from "htmlparser2";
import type { Notes } from "./decode";
import { flattenDeepMarkup } from "./markup-depth";
import { flattenedMarkupNote, tooDeepMarker } from "./messages";
import { READ_HEAD_ITEMS, READ_TAIL_ITEMS, markerNode, stringNode, type ArrayNode, type ObjectNode, type TreeNode } from "./tree";

interface XmlNode {
  readonly type: string;
  readonly name?: string;
  readonly data?: string;
  readonly attribs?: Readonly<Record<string, string>>;
  readonly children?: readonly XmlNode[];
}

function localName(name: string): string {
  const colon = name.indexOf(":");
  return colon === -1 ? name : name.slice(colon + 1);
}

function collapse(text: string): string {
  return text.replace(/[ \t\r\n]+/g, " ").trim();
}

/** True when `text` starts like an XML document or element (and is not HTML). */
export function looksLikeXml(text: string): boolean {
  const head = text.slice(0, 200).trimStart();
  return head.startsWith("<?xml") || /^<[A-Za-z_][\w.:-]*[\s>/]/.test(head);
}

/**
 * Parses XML text into a tree; `undefined` when the text is not one whole XML document: no
 * element, several root elements, or text outside the root (`<result>ok</result>\nStatus:
 * FAILED` is text that starts with a tag, and is read as text). Elements nested deeper than
 * `maxDepth` are written flat (their text kept, see `flattenDeepMarkup`).
 */
export function xmlToTree(
  xml: string,
  notes: Notes,
  maxDepth: number,
  stringLeaf: (value: string, depth: number) => TreeNode,
): TreeNode | undefined {
  const flat = flattenDeepMarkup(xml, Math.max(1, maxDepth - 2), false);
  const document = parseDocument(flat.text, { xmlMode: true, decodeEntities: true }) as unknown as XmlNode;
  const top = document.children ?? [];
  const rootCount = top.filter((child) => child.type === "tag").length;
  if (rootCount !== 1 || top.some((child) => child.type === "text" && (child.data ?? "").trim().length > 0)) return undefined;
  if (flat.flattened > 0) notes.add(flattenedMarkupNote(flat.flattened, Math.max(1, maxDepth - 2)));
  const convert = (element: XmlNode, depth: number): TreeNode => {
    if (depth >= maxDepth) {
      notes.add(`nesting deeper than ${maxDepth} levels written flat`);
      notes.cut = true;
      return markerNode(tooDeepMarker(maxDepth));
    }
    const entries: Array<[string, TreeNode]> = [];
    for (const [name, value] of Object.entries(element.attribs ?? {})) {
      if (name === "xmlns" || name.startsWith("xmlns:") || localName(name) === "schemaLocation") continue;
      entries.push([localName(name), stringLeaf(collapse(value), depth + 1)]);
    }
    const grouped = new Map<string, TreeNode[]>();
    // Long runs of one element (a feed's 4 000 items) are read like long JSON lists: the first
    // READ_HEAD_ITEMS and last READ_TAIL_ITEMS, the middle counted, not converted.
    const counts = new Map<string, number>();
    for (const child of element.children ?? []) {
      if (child.type === "tag") {
        const name = localName(child.name ?? "element");
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
    }
    const seen = new Map<string, number>();
    const skipped = new Map<string, number>();
    let text = "";
    for (const child of element.children ?? []) {
      if (child.type === "tag") {
        const name = localName(child.name ?? "element");
        const index = seen.get(name) ?? 0;
        seen.set(name, index + 1);
        const count = counts.get(name) ?? 0;
        if (count > READ_HEAD_ITEMS + READ_TAIL_ITEMS && index >= READ_HEAD_ITEMS && index < count - READ_TAIL_ITEMS) {
          skipped.set(name, (skipped.get(name) ?? 0) + 1);
          continue;
        }
        const list = grouped.get(name) ?? [];
        list.push(convert(child, depth + 1));
        grouped.set(name, list);
      } else if (child.type === "text" || child.type === "cdata") {
        text += child.type === "cdata" ? (child.children ?? []).map((part) => part.data ?? "").join("") : (child.data ?? "");
      }
    }
    const trimmed = collapse(text);
    if (grouped.size === 0 && entries.length === 0) return stringLeaf(trimmed, depth + 1);
    if (trimmed.length > 0) entries.push(["text", stringLeaf(trimmed, depth + 1)]);
    for (const [name, list] of grouped) {
      const gap = skipped.get(name);
      if (gap !== undefined) {
        notes.add(`read the first ${READ_HEAD_ITEMS} and last ${READ_TAIL_ITEMS} items of long lists; the middle was counted, not read`);
        entries.push([name, { kind: "array", items: list, skipped: gap, skippedAt: READ_HEAD_ITEMS } satisfies ArrayNode]);
      } else entries.push([name, list.length === 1 ? (list[0] as TreeNode) : ({ kind: "array", items: list } satisfies ArrayNode)]);
    }
    return { kind: "object", entries } satisfies ObjectNode;
  };
  const roots = (document.children ?? []).filter((child) => child.type === "tag");
  if (roots.length === 0) return undefined;
  const entries: Array<[string, TreeNode]> = roots.map((root) => [localName(root.name ?? "document"), convert(root, 0)]);
  if (entries.length === 0) return stringNode("");
  return { kind: "object", entries };
}
