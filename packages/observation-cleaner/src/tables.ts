/**
 * Tables from lists: uniform lists of records and same-length parallel arrays become rows under
 * named columns; columns that repeat another one, or hold the same value in every row, are
 * dropped or lifted out.
 */
import type { Notes } from "./decode";
import { isScalar, scalarText, stringNode, type ObjectNode, type ScalarNode, type TableNode, type TreeNode } from "./tree";

const MAX_TABLE_COLUMNS = 40;

/** Flattens a record into dotted scalar columns; `undefined` when it holds lists of several values. */
function flattenRecord(node: ObjectNode, prefix: string, into: Array<[string, ScalarNode]>, depth: number): boolean {
  if (depth > 3) return false;
  for (const [key, value] of node.entries) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (isScalar(value)) into.push([name, value]);
    else if (value.kind === "object") {
      if (!flattenRecord(value, name, into, depth + 1)) return false;
    } else if (value.kind === "array") {
      if (value.items.length === 1 && value.items[0]?.kind === "object") {
        if (!flattenRecord(value.items[0], name, into, depth + 1)) return false;
      } else if (value.items.every(isScalar) && value.items.length <= 6) {
        into.push([name, stringNode(value.items.map((item) => scalarText(item as ScalarNode)).join(", "))]);
      } else return false;
    } else return false;
  }
  return true;
}

function liftConstants(table: TableNode): TableNode {
  if (table.rows.length < 3) return table;
  const keepColumns: number[] = [];
  for (let column = 0; column < table.columns.length; column += 1) {
    const blank = table.rows.every((row) => {
      const cell = row[column];
      return cell === undefined || cell.kind === "null" || (cell.kind === "string" && cell.value === "");
    });
    if (blank) continue;
    const first = table.rows[0]?.[column];
    const text = first === undefined ? "" : scalarText(first);
    const constant = table.rows.every((row) => {
      const cell = row[column];
      return cell !== undefined && cell.kind === first?.kind && scalarText(cell) === text;
    });
    if (constant && first !== undefined && !(first.kind === "string" && first.value === "")) {
      table.constants.push([table.columns[column] as string, first]);
    } else keepColumns.push(column);
  }
  if (keepColumns.length === table.columns.length) return table;
  if (keepColumns.length === 0) keepColumns.push(0);
  table.columns = keepColumns.map((column) => table.columns[column] as string);
  table.rows = table.rows.map((row) => keepColumns.map((column) => row[column] as ScalarNode));
  return table;
}

const EMPTY_CELL = stringNode("");

/**
 * A URL reduced to what tells pages apart: host without `www.`/`m.`/`mobile.` labels, path
 * without a trailing slash; scheme, query and fragment ignored (`?action=history`, `#section`).
 * `undefined` for a value that is not an http(s) URL.
 */
function urlPageKey(text: string): string | undefined {
  const match = /^https?:\/\/([^/?#\s]+)([^?#\s]*)/i.exec(text);
  if (match === null) return undefined;
  const host = (match[1] as string).toLowerCase().split(".").filter((label, index) => !(label === "www" || ((label === "m" || label === "mobile") && index <= 1))).join(".");
  return `${host}${(match[2] as string).replace(/\/+$/, "")}`;
}

/**
 * Drops table columns that repeat another column row for row: the same text (`titles.canonical`
 * next to `title`, `profile.url` next to `url`), or URLs of the same page (the mobile, history and
 * edit links next to a page link). Cells left empty in a row do not count against a match.
 */
function dropRepeatedColumns(table: TableNode): number {
  const kept: number[] = [];
  let dropped = 0;
  for (let column = 0; column < table.columns.length; column += 1) {
    let repeats = false;
    let filled = 0;
    for (const other of kept) {
      filled = 0;
      let same = true;
      let sameUrl = true;
      for (const row of table.rows) {
        const cell = row[column] as ScalarNode;
        const text = scalarText(cell);
        if (text === "" || cell.kind === "null") continue;
        filled += 1;
        const otherText = scalarText(row[other] as ScalarNode);
        if (text !== otherText) same = false;
        if (sameUrl) {
          const key = urlPageKey(text);
          if (key === undefined || key !== urlPageKey(otherText)) sameUrl = false;
        }
        if (!same && !sameUrl) break;
      }
      if (filled > 0 && (same || sameUrl)) {
        repeats = true;
        break;
      }
    }
    if (repeats) dropped += 1;
    else kept.push(column);
  }
  if (dropped > 0) {
    table.columns = kept.map((column) => table.columns[column] as string);
    table.rows = table.rows.map((row) => kept.map((column) => row[column] as ScalarNode));
  }
  return dropped;
}

export function recordsToTable(items: readonly TreeNode[]): TableNode | undefined {
  if (items.length < 2) return undefined;
  const flattened: Array<Array<[string, ScalarNode]>> = [];
  const columnIndex = new Map<string, number>();
  let cells = 0;
  for (const item of items) {
    if (item.kind !== "object") return undefined;
    const record: Array<[string, ScalarNode]> = [];
    if (!flattenRecord(item, "", record, 0)) return undefined;
    for (const [name] of record) {
      if (!columnIndex.has(name)) columnIndex.set(name, columnIndex.size);
      if (columnIndex.size > MAX_TABLE_COLUMNS) return undefined;
    }
    cells += record.length;
    flattened.push(record);
  }
  if (columnIndex.size < 2 || cells < 0.6 * columnIndex.size * items.length) return undefined;
  const columns = [...columnIndex.keys()];
  const rows = flattened.map((record) => {
    const row: ScalarNode[] = new Array(columns.length).fill(EMPTY_CELL);
    for (const [name, value] of record) row[columnIndex.get(name) as number] = value;
    return row;
  });
  const table: TableNode = { kind: "table", columns, rows, constants: [] };
  dropRepeatedColumns(table);
  return liftConstants(table);
}

/** Pairs same-length arrays of scalars (`time[]` with `temperature[]`) into one table. */
export function pairParallelArrays(entries: Array<[string, TreeNode]>, notes: Notes): Array<[string, TreeNode]> {
  const byLength = new Map<number, Array<[string, TreeNode]>>();
  for (const entry of entries) {
    const value = entry[1];
    if (value.kind === "array" && value.items.length >= 2 && value.items.every(isScalar)) {
      const group = byLength.get(value.items.length) ?? [];
      group.push(entry);
      byLength.set(value.items.length, group);
    }
  }
  let result = entries;
  for (const [length, group] of byLength) {
    if (group.length < 2 || group.length > MAX_TABLE_COLUMNS) continue;
    const columns = group.map(([key]) => key);
    const rows: ScalarNode[][] = [];
    for (let row = 0; row < length; row += 1) {
      rows.push(group.map(([, value]) => (value as { items: ScalarNode[] }).items[row] as ScalarNode));
    }
    const table: TableNode = { kind: "table", columns, rows, constants: [] };
    const members = new Set(group);
    const rebuilt: Array<[string, TreeNode]> = [];
    let inserted = false;
    for (const entry of result) {
      if (!members.has(entry)) rebuilt.push(entry);
      else if (!inserted) {
        rebuilt.push([columns.join(" | "), table]);
        inserted = true;
      }
    }
    result = rebuilt;
    notes.add("paired parallel arrays into a table");
  }
  return result;
}
