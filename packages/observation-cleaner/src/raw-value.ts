/**
 * The raw value as the cleaner measures and keeps it: its size, its text when it is plain data,
 * a preview when reading it fails, and a tree as plain JavaScript for templates.
 */
import { shortenString } from "./render";
import type { TreeNode } from "./tree";

/** Lists longer than this are counted, not serialised, when measuring `rawChars`. */
const MAX_MEASURED_LIST_ITEMS = 1_000_000;

/**
 * Size of the raw value: string length, byte length, or the length of its JSON. A list longer
 * than {@link MAX_MEASURED_LIST_ITEMS} (a sparse array of length 2^32 - 1, a Proxy claiming a
 * huge length) is counted as 5 characters per item instead of being serialised. Never throws.
 */
export function measureRawChars(value: unknown): number {
  try {
    if (typeof value === "string") return value.length;
    if (value === null || value === undefined) return 0;
    if (value instanceof Uint8Array || value instanceof ArrayBuffer) return value.byteLength;
    // First exactly; then, for circular values, with every object after its first sighting as a marker.
    for (const once of [false, true]) {
      const seen = new WeakSet<object>();
      let unserialised = 0;
      try {
        const json = JSON.stringify(value, (_key, item: unknown) => {
          if (typeof item === "bigint") return item.toString();
          if (typeof item !== "object" || item === null) return item;
          if (once) {
            if (seen.has(item)) return "[circular]";
            seen.add(item);
          }
          if ((Array.isArray(item) || ArrayBuffer.isView(item)) && (item as ArrayLike<unknown>).length > MAX_MEASURED_LIST_ITEMS) {
            unserialised += (item as ArrayLike<unknown>).length * 5;
            return null;
          }
          return item;
        });
        if (typeof json === "string") return json.length + unserialised;
      } catch {
        // Circular, too deep for JSON.stringify, or a value that throws: try the next way.
      }
    }
    return 0;
  } catch {
    return 0;
  }
}

/** A tree converted to plain JavaScript for templates; numbers stay strings when `Number` would change them. */
export function treeToPlain(node: TreeNode): unknown {
  switch (node.kind) {
    case "string":
      return node.value;
    case "number": {
      const value = Number(node.text);
      return String(value) === node.text ? value : node.text;
    }
    case "boolean":
      return node.value;
    case "null":
      return null;
    case "array":
      return node.items.map(treeToPlain);
    case "table":
      return node.rows.map((row) => Object.fromEntries(row.map((cell, index) => [node.columns[index] ?? String(index), treeToPlain(cell)])));
    default: {
      const record: Record<string, unknown> = {};
      for (const [key, value] of node.entries) Object.defineProperty(record, key, { value: treeToPlain(value), enumerable: true, writable: true, configurable: true });
      return record;
    }
  }
}

/** Inputs longer than this are never candidates to be kept as they are (no budget is that large in practice). */
const MAX_RAW_TEXT_CHARS = 10_000_000;

/** The input as text: a string itself, or the JSON of a value; `undefined` when it has none. */
export function rawTextOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  // Only plain data: the JSON of a Map, Set, Error or class instance is not what it holds.
  if (typeof value !== "object" || value === null) return undefined;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null) return undefined;
  try {
    const json = JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === "bigint") return item.toString();
      if (typeof item === "object" && item !== null) {
        const itemPrototype: unknown = Object.getPrototypeOf(item);
        if (itemPrototype !== Object.prototype && itemPrototype !== Array.prototype && itemPrototype !== null) throw new TypeError("not plain data");
      }
      return item;
    });
    return typeof json === "string" && json.length <= MAX_RAW_TEXT_CHARS ? json : undefined;
  } catch {
    return undefined;
  }
}

/** A short text of any value, for the "could not be read" observation; never throws. */
export function previewOf(value: unknown): string {
  try {
    return shortenString(String(value), 200);
  } catch {
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return "[a value whose every read throws]";
    }
  }
}
