/**
 * The cleaner's internal value tree. Numbers keep the text they were written with, so condensing
 * and rendering never rewrite a value's digits (`199.00`, `1.0`, 20-digit ids stay as written).
 */
import { CIRCULAR_MARKER, joinHeadAndTail, tooDeepMarker } from "./messages";
import { decodeBytes, type Notes } from "./decode";

export interface ObjectNode {
  readonly kind: "object";
  entries: Array<[string, TreeNode]>;
}
/**
 * Items in the middle of a very long list are not read at all (see {@link READ_HEAD_ITEMS}): the
 * budget could never show them. `skipped` counts them; they sat before `items[skippedAt]`.
 */
export interface ListGap {
  skipped?: number;
  skippedAt?: number;
}
export interface ArrayNode extends ListGap {
  readonly kind: "array";
  items: TreeNode[];
}
/** Rows of scalars under named columns: a uniform list of records, or parallel arrays paired. */
export interface TableNode extends ListGap {
  readonly kind: "table";
  columns: string[];
  rows: ScalarNode[][];
  /** Columns whose value is the same in every row, lifted out. */
  constants: Array<[string, ScalarNode]>;
}
export interface StringNode {
  readonly kind: "string";
  value: string;
  /** A marker written by the cleaner (not tool data): rendered without quotes. */
  readonly marker?: boolean;
}
export interface NumberNode {
  readonly kind: "number";
  /** The number as written in the source (JSON lexeme or `String(value)`). */
  readonly text: string;
}
export interface BooleanNode {
  readonly kind: "boolean";
  readonly value: boolean;
}
export interface NullNode {
  readonly kind: "null";
}
export type ScalarNode = StringNode | NumberNode | BooleanNode | NullNode;
export type TreeNode = ObjectNode | ArrayNode | TableNode | ScalarNode;

/** Items read from the start of a long list; with {@link READ_TAIL_ITEMS}, the rest is counted, not read. */
export const READ_HEAD_ITEMS = 400;
/** Items read from the end of a long list. */
export const READ_TAIL_ITEMS = 100;

export const NULL_NODE: NullNode = Object.freeze({ kind: "null" });

export function stringNode(value: string): StringNode {
  return { kind: "string", value };
}

export function markerNode(value: string): StringNode {
  return { kind: "string", value, marker: true };
}

export function isScalar(node: TreeNode): node is ScalarNode {
  return node.kind === "string" || node.kind === "number" || node.kind === "boolean" || node.kind === "null";
}

/** Text of a scalar as the model should read it. */
export function scalarText(node: ScalarNode): string {
  switch (node.kind) {
    case "string":
      return node.value;
    case "number":
      return node.text;
    case "boolean":
      return node.value ? "true" : "false";
    default:
      return "null";
  }
}

function describeFunction(value: (...args: never[]) => unknown): string {
  return value.name ? `[function ${value.name}]` : "[function]";
}

function safeGet(record: object, key: string | symbol, notes: Notes): unknown {
  try {
    return (record as Record<string | symbol, unknown>)[key];
  } catch (error) {
    notes.add("a field could not be read (its getter threw)");
    return `[unreadable: ${error instanceof Error ? error.message : String(error)}]`;
  }
}

function safeKeys(record: object, notes: Notes): string[] {
  try {
    return Object.keys(record);
  } catch {
    notes.add("an object's fields could not be listed");
    return [];
  }
}

function mapKeyText(key: unknown): string {
  if (typeof key === "string") return key;
  if (typeof key === "number" || typeof key === "bigint" || typeof key === "boolean") return String(key);
  if (key instanceof Date) return Number.isNaN(key.getTime()) ? "Invalid Date" : key.toISOString();
  try {
    return JSON.stringify(key) ?? String(key);
  } catch {
    return Object.prototype.toString.call(key);
  }
}

/** Longest flat preview of a too-deep value, and the most nodes visited to build one. */
const LEAF_PREVIEW_CHARS = 600;
const LEAF_PREVIEW_NODES = 10_000;

/**
 * The scalar values under a too-deep object, breadth first and iteratively (depth may be
 * unbounded), as `key: value` parts; what does not fit is counted.
 */
function leafPreview(root: object, notes: Notes): string {
  const parts: string[] = [];
  const queue: Array<[string, unknown]> = [["", root]];
  const seen = new Set<object>();
  let index = 0;
  for (; index < queue.length && index < LEAF_PREVIEW_NODES; index += 1) {
    const [key, current] = queue[index] as [string, unknown];
    if (current === null || current === undefined || typeof current === "function") continue;
    if (typeof current !== "object") {
      parts.push(`${key ? `${key}: ` : ""}${String(current)}`);
      continue;
    }
    if (seen.has(current)) continue;
    seen.add(current);
    if (current instanceof Date) queue.push([key, Number.isNaN(current.getTime()) ? "Invalid Date" : current.toISOString()]);
    else for (const field of safeKeys(current, notes)) queue.push([Array.isArray(current) ? key : field, safeGet(current, field, notes)]);
  }
  return joinHeadAndTail(parts, LEAF_PREVIEW_CHARS, Math.max(0, queue.length - index));
}

/**
 * Converts any JavaScript value into a tree. Never throws: circular references, nesting deeper
 * than `maxDepth`, throwing getters and exotic objects become markers and notes.
 *
 * - `Date` → ISO-8601 in UTC (`2024-06-25T21:00:00.000Z`); invalid dates → `Invalid Date`.
 * - `BigInt` → its decimal digits. `Map` → object, `Set` → list.
 * - `Buffer`/`Uint8Array`/`ArrayBuffer`/`DataView` → UTF-8 text (invalid bytes noted).
 * - `Error` → `{ error: name, message, code?, cause? }` (the stack is dropped).
 * - objects with `toJSON` (URL, Decimal, …) → what `toJSON` returns.
 *
 * @param stringLeaf - turns a string found inside the value into a node (decoding, nested JSON)
 */
export function treeFromValue(
  value: unknown,
  notes: Notes,
  maxDepth: number,
  stringLeaf: (text: string, depth: number) => TreeNode,
): TreeNode {
  const ancestors = new Set<object>();
  const visit = (current: unknown, depth: number): TreeNode => {
    switch (typeof current) {
      case "string":
        return stringLeaf(current, depth);
      case "number":
        return { kind: "number", text: Number.isFinite(current) ? String(current) : String(current) };
      case "bigint":
        return { kind: "number", text: current.toString() };
      case "boolean":
        return { kind: "boolean", value: current };
      case "undefined":
        return NULL_NODE;
      case "symbol":
        return stringNode(current.description ?? "[symbol]");
      case "function":
        return markerNode(describeFunction(current as (...args: never[]) => unknown));
      default:
        break;
    }
    if (current === null) return NULL_NODE;
    const object = current as object;
    if (ancestors.has(object)) {
      notes.add("circular references replaced with a marker");
      return markerNode(CIRCULAR_MARKER);
    }
    if (depth >= maxDepth) {
      notes.add(`nesting deeper than ${maxDepth} levels written flat`);
      notes.cut = true;
      return markerNode(tooDeepMarker(maxDepth, leafPreview(object, notes)));
    }
    if (object instanceof Date) {
      return stringNode(Number.isNaN(object.getTime()) ? "Invalid Date" : object.toISOString());
    }
    if (object instanceof Uint8Array) return stringLeaf(decodeBytes(object, notes), depth);
    if (object instanceof ArrayBuffer) return stringLeaf(decodeBytes(new Uint8Array(object), notes), depth);
    if (object instanceof DataView) {
      return stringLeaf(decodeBytes(new Uint8Array(object.buffer, object.byteOffset, object.byteLength), notes), depth);
    }
    if (object instanceof String || object instanceof Number || object instanceof Boolean) {
      return visit(object.valueOf(), depth);
    }
    if (object instanceof RegExp) return stringNode(String(object));
    ancestors.add(object);
    try {
      if (Array.isArray(object) || ArrayBuffer.isView(object)) {
        const list = object as ArrayLike<unknown>;
        const length = list.length;
        const skipped = length > READ_HEAD_ITEMS + READ_TAIL_ITEMS ? length - READ_HEAD_ITEMS - READ_TAIL_ITEMS : 0;
        const items: TreeNode[] = [];
        for (let index = 0; index < length; index += 1) {
          if (skipped > 0 && index === READ_HEAD_ITEMS) index += skipped;
          items.push(visit(safeGet(list as object, String(index), notes), depth + 1));
        }
        if (skipped === 0) return { kind: "array", items };
        notes.add(`read the first ${READ_HEAD_ITEMS} and last ${READ_TAIL_ITEMS} items of long lists; the middle was counted, not read`);
        return { kind: "array", items, skipped, skippedAt: READ_HEAD_ITEMS };
      }
      if (object instanceof Map) {
        const entries: Array<[string, TreeNode]> = [];
        for (const [key, item] of object) entries.push([mapKeyText(key), visit(item, depth + 1)]);
        return { kind: "object", entries };
      }
      if (object instanceof Set) {
        const items: TreeNode[] = [];
        for (const item of object) items.push(visit(item, depth + 1));
        return { kind: "array", items };
      }
      if (object instanceof Error) {
        const entries: Array<[string, TreeNode]> = [["error", stringNode(object.name || "Error")]];
        entries.push(["message", stringLeaf(object.message, depth + 1)]);
        for (const key of safeKeys(object, notes)) {
          if (key === "stack" || key === "message" || key === "name") continue;
          entries.push([key, visit(safeGet(object, key, notes), depth + 1)]);
        }
        // AggregateError (Promise.any, fetch retries): its `errors` are own but not enumerable.
        const errors = safeGet(object, "errors", notes);
        if (Array.isArray(errors) && !entries.some(([key]) => key === "errors")) entries.push(["errors", visit(errors, depth + 1)]);
        const cause = safeGet(object, "cause", notes);
        if (cause !== undefined && !entries.some(([key]) => key === "cause")) entries.push(["cause", visit(cause, depth + 1)]);
        return { kind: "object", entries };
      }
      if (typeof (object as { then?: unknown }).then === "function") {
        notes.add("the tool returned a promise that was never awaited");
        return markerNode("[unresolved promise]");
      }
      const toJSON = safeGet(object, "toJSON", notes);
      if (typeof toJSON === "function") {
        let converted: unknown;
        try {
          converted = (toJSON as () => unknown).call(object);
        } catch {
          notes.add("a toJSON() method threw; its object's fields were used");
          converted = object;
        }
        if (converted !== object) return visit(converted, depth);
      }
      const entries: Array<[string, TreeNode]> = [];
      for (const key of safeKeys(object, notes)) {
        const item = safeGet(object, key, notes);
        if (item === undefined || typeof item === "function") continue;
        entries.push([key, visit(item, depth + 1)]);
      }
      return { kind: "object", entries };
    } finally {
      ancestors.delete(object);
    }
  };
  try {
    return visit(value, 0);
  } catch (error) {
    // A Proxy or host object that defeats every guard above: keep what String() gives.
    notes.add("the value could not be read field by field");
    let text: string;
    try {
      text = String(value);
    } catch {
      try {
        text = Object.prototype.toString.call(value);
      } catch {
        text = "";
      }
    }
    return stringNode(text || (error instanceof Error ? error.message : "[unreadable value]"));
  }
}
