/**
 * A JSON reader that keeps every number's source text (`199.00`, `1.0`, `12345678901234567890`
 * stay as written; `JSON.parse` would turn them into `199`, `1` and `12345678901234567000`).
 * Iterative, so nesting depth cannot overflow the stack; values nested deeper than `maxDepth`
 * are skipped in one linear scan and replaced by a marker. In a list longer than
 * READ_HEAD_ITEMS + READ_TAIL_ITEMS the middle items are scanned past without being built (only
 * their count is kept) and the last READ_TAIL_ITEMS are built at the end. Linear in the input.
 */
import type { Notes } from "./decode";
import { tooDeepMarker } from "./messages";
import { NULL_NODE, READ_HEAD_ITEMS, READ_TAIL_ITEMS, markerNode, type ArrayNode, type ObjectNode, type TreeNode } from "./tree";

interface Frame {
  readonly node: ObjectNode | ArrayNode;
  key: string;
  /** Items seen in a list. */
  count: number;
  /** Source ranges [start, end] of items past the head of a long list: the last READ_TAIL_ITEMS (a ring). */
  tail?: Array<[number, number]>;
  tailStart: number;
}

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

function unescapeJsonString(raw: string): string {
  return raw.replace(/\\(?:u([0-9a-fA-F]{4})|([\s\S]))/g, (_match, hex: string | undefined, character: string | undefined) =>
    hex !== undefined ? String.fromCharCode(Number.parseInt(hex, 16)) : (ESCAPES[character ?? ""] ?? character ?? ""),
  );
}

const NUMBER_PATTERN = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0xfeff;
}

/**
 * Parses JSON text into a tree.
 *
 * @param text - the JSON text
 * @param stringLeaf - turns each string value into a node (decoding, nested JSON)
 * @returns the tree, or `undefined` when the text is not valid JSON
 */
export function parseJsonText(
  text: string,
  notes: Notes,
  maxDepth: number,
  stringLeaf: (value: string, depth: number) => TreeNode,
): TreeNode | undefined {
  const length = text.length;
  let position = 0;
  const stack: Frame[] = [];

  const skipWhitespace = (): void => {
    while (position < length && isWhitespace(text.charCodeAt(position))) position += 1;
  };

  // Moves past a string starting at `position` (on the opening quote). False when unterminated.
  const skipString = (): boolean => {
    let index = position + 1;
    for (;;) {
      if (index >= length) return false;
      const code = text.charCodeAt(index);
      if (code === 0x22) break;
      index += code === 0x5c ? 2 : 1;
    }
    position = index + 1;
    return true;
  };

  // Reads a string starting at `position` (on the opening quote). Returns undefined on error.
  const readString = (): string | undefined => {
    let index = position + 1;
    let escaped = false;
    for (;;) {
      if (index >= length) return undefined;
      const code = text.charCodeAt(index);
      if (code === 0x22) break;
      if (code === 0x5c) {
        escaped = true;
        index += 2;
        continue;
      }
      index += 1;
    }
    const raw = text.slice(position + 1, index);
    position = index + 1;
    return escaped ? unescapeJsonString(raw) : raw;
  };

  const readKey = (): string | undefined => {
    skipWhitespace();
    if (text.charCodeAt(position) !== 0x22) return undefined;
    const key = readString();
    if (key === undefined) return undefined;
    skipWhitespace();
    if (text.charCodeAt(position) !== 0x3a) return undefined;
    position += 1;
    return key;
  };

  // Skips one balanced object or array starting at `position`, without building anything.
  const skipBalanced = (): boolean => {
    let depth = 0;
    while (position < length) {
      const code = text.charCodeAt(position);
      if (code === 0x22) {
        if (!skipString()) return false;
        continue;
      }
      if (code === 0x7b || code === 0x5b) depth += 1;
      else if (code === 0x7d || code === 0x5d) {
        depth -= 1;
        if (depth === 0) {
          position += 1;
          return true;
        }
      }
      position += 1;
    }
    return false;
  };

  // Skips any one value (a list item that will not be built).
  const skipValue = (): boolean => {
    const code = text.charCodeAt(position);
    if (code === 0x7b || code === 0x5b) return skipBalanced();
    if (code === 0x22) return skipString();
    const start = position;
    while (position < length) {
      const next = text.charCodeAt(position);
      if (next === 0x2c || next === 0x5d || next === 0x7d || isWhitespace(next)) break;
      position += 1;
    }
    return position > start;
  };

  const closeList = (frame: Frame, node: ArrayNode): boolean => {
    const tail = frame.tail;
    if (tail === undefined) return true;
    const ordered = frame.tailStart === 0 ? tail : [...tail.slice(frame.tailStart), ...tail.slice(0, frame.tailStart)];
    const skipped = frame.count - READ_HEAD_ITEMS - ordered.length;
    if (skipped > 0) {
      node.skipped = skipped;
      node.skippedAt = node.items.length;
      notes.add(`read the first ${READ_HEAD_ITEMS} and last ${READ_TAIL_ITEMS} items of long lists; the middle was counted, not read`);
    }
    const depthLeft = Math.max(1, maxDepth - stack.length);
    for (const [start, end] of ordered) {
      const item = parseJsonText(text.slice(start, end), notes, depthLeft, stringLeaf);
      if (item === undefined) return false;
      node.items.push(item);
    }
    return true;
  };

  for (;;) {
    skipWhitespace();
    if (position >= length) return undefined;
    const code = text.charCodeAt(position);
    // `null` means: an item of a long list, recorded by its source range instead of built.
    let value: TreeNode | null;
    const top = stack[stack.length - 1];
    if (top !== undefined && top.node.kind === "array" && top.count >= READ_HEAD_ITEMS) {
      const start = position;
      if (!skipValue()) return undefined;
      const tail = (top.tail ??= []);
      if (tail.length < READ_TAIL_ITEMS) tail.push([start, position]);
      else {
        tail[top.tailStart] = [start, position];
        top.tailStart = (top.tailStart + 1) % READ_TAIL_ITEMS;
      }
      value = null;
    } else if (code === 0x7b || code === 0x5b) {
      if (stack.length >= maxDepth) {
        const start = position;
        if (!skipBalanced()) return undefined;
        notes.add(`nesting deeper than ${maxDepth} levels written flat`);
        notes.cut = true;
        value = markerNode(tooDeepMarker(maxDepth, flatPreview(text, start, position)));
      } else if (code === 0x7b) {
        position += 1;
        skipWhitespace();
        const node: ObjectNode = { kind: "object", entries: [] };
        if (text.charCodeAt(position) === 0x7d) {
          position += 1;
          value = node;
        } else {
          const key = readKey();
          if (key === undefined) return undefined;
          stack.push({ node, key, count: 0, tailStart: 0 });
          continue;
        }
      } else {
        position += 1;
        skipWhitespace();
        const node: ArrayNode = { kind: "array", items: [] };
        if (text.charCodeAt(position) === 0x5d) {
          position += 1;
          value = node;
        } else {
          stack.push({ node, key: "", count: 0, tailStart: 0 });
          continue;
        }
      }
    } else if (code === 0x22) {
      const raw = readString();
      if (raw === undefined) return undefined;
      value = stringLeaf(raw, stack.length);
    } else if (code === 0x74 && text.startsWith("true", position)) {
      position += 4;
      value = { kind: "boolean", value: true };
    } else if (code === 0x66 && text.startsWith("false", position)) {
      position += 5;
      value = { kind: "boolean", value: false };
    } else if (code === 0x6e && text.startsWith("null", position)) {
      position += 4;
      value = NULL_NODE;
    } else {
      const start = position;
      while (position < length) {
        const next = text.charCodeAt(position);
        if ((next >= 0x30 && next <= 0x39) || next === 0x2d || next === 0x2b || next === 0x2e || next === 0x65 || next === 0x45) {
          position += 1;
        } else break;
      }
      const lexeme = text.slice(start, position);
      if (lexeme.length === 0 || !NUMBER_PATTERN.test(lexeme)) return undefined;
      value = { kind: "number", text: lexeme };
    }
    // Attach the value, closing every container it completes.
    for (;;) {
      const frame = stack[stack.length - 1];
      if (frame === undefined) {
        skipWhitespace();
        return position === length && value !== null ? value : undefined;
      }
      if (frame.node.kind === "array") {
        frame.count += 1;
        if (value !== null) frame.node.items.push(value);
      } else if (value !== null) frame.node.entries.push([frame.key, value]);
      skipWhitespace();
      const next = text.charCodeAt(position);
      if (next === 0x2c) {
        position += 1;
        if (frame.node.kind === "object") {
          const key = readKey();
          if (key === undefined) return undefined;
          frame.key = key;
        }
        break;
      }
      if ((next === 0x5d && frame.node.kind === "array") || (next === 0x7d && frame.node.kind === "object")) {
        position += 1;
        stack.pop();
        if (frame.node.kind === "array" && !closeList(frame, frame.node)) return undefined;
        value = frame.node;
        continue;
      }
      return undefined;
    }
  }
}

/** Longest flat preview of a too-deep value. */
const FLAT_PREVIEW_CHARS = 600;
/** Longest too-deep part flattened whole; past it only its first and last characters are read. */
const FLAT_PREVIEW_MAX_SCAN = 4_000_000;

/**
 * The JSON text between `start` and `end` without its brackets and braces, whitespace collapsed,
 * cut to {@link FLAT_PREVIEW_CHARS} with the rest counted: the values of a too-deep part stay readable.
 */
export function flatPreview(text: string, start: number, end: number): string {
  const flatten = (part: string): string => part.replace(/[{}[\]]+/g, " ").replace(/\s*,\s*(?:,\s*)*/g, ", ").replace(/\s+/g, " ").replace(/^[\s,]+|[\s,]+$/g, "");
  if (end - start <= FLAT_PREVIEW_MAX_SCAN) {
    // The values may sit anywhere (`[[[[…"answer"…]]]]` holds its one value in the middle): flatten first.
    const flat = flatten(text.slice(start, end));
    if (flat.length <= FLAT_PREVIEW_CHARS) return flat;
    const head = flat.slice(0, Math.floor(FLAT_PREVIEW_CHARS * 0.6));
    const tail = flat.slice(flat.length - Math.floor(FLAT_PREVIEW_CHARS * 0.4));
    return `${head} … (${flat.length - head.length - tail.length} more characters) … ${tail}`;
  }
  // The first and the last values (the deepest ones are often the payload), the middle counted.
  const head = flatten(text.slice(start, start + Math.floor(FLAT_PREVIEW_CHARS * 0.6)));
  const tail = flatten(text.slice(Math.max(start, end - Math.floor(FLAT_PREVIEW_CHARS * 0.4))));
  return `${head} … (${end - start - head.length - tail.length} more characters) … ${tail}`;
}
