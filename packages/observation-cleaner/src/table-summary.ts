/**
 * The per-column overview of all rows of a table whose rows were cut: min/max of numeric columns
 * with the row's label, the values of low-variety columns.
 */
import { shortenString } from "./render";
import { scalarText, type ScalarNode, type TableNode } from "./tree";

const NUMERIC_TEXT = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const LABEL_COLUMN = /(?:^|[._ ])(?:time|date|dt_txt|datetime|timestamp|day|name|title|id)$/i;

const summaryCache = new WeakMap<TableNode, readonly string[]>();

/**
 * Per-column overview of all rows, one part per column: min/max of numeric columns (with the
 * row's time/name), the values of low-variety ones. Whole parts are kept up to `maxChars`.
 */
export function summarizeTable(table: TableNode, maxChars: number): string {
  const parts = summaryParts(table);
  let summary = "";
  for (const [index, part] of parts.entries()) {
    const next = summary.length === 0 ? part : `${summary}; ${part}`;
    if (next.length > maxChars) {
      const rest = `; … ${parts.length - index} more columns`;
      return summary.length === 0 ? shortenString(part, maxChars) : summary + rest;
    }
    summary = next;
  }
  return summary;
}

function summaryParts(table: TableNode): readonly string[] {
  const cached = summaryCache.get(table);
  if (cached !== undefined) return cached;
  const labelColumn = Math.max(0, table.columns.findIndex((name) => LABEL_COLUMN.test(name)));
  const parts: string[] = [];
  table.columns.forEach((name, column) => {
    if (column === labelColumn) return;
    let min: { value: number; text: string; row: number } | undefined;
    let max: { value: number; text: string; row: number } | undefined;
    let numeric = true;
    const distinct = new Map<string, number>();
    table.rows.forEach((row, rowIndex) => {
      const cell = row[column] as ScalarNode;
      const text = scalarText(cell);
      if (text === "" || cell.kind === "null") return;
      if (distinct.size <= 12) distinct.set(text, (distinct.get(text) ?? 0) + 1);
      if (numeric && (cell.kind === "number" || (cell.kind === "string" && NUMERIC_TEXT.test(text)))) {
        const value = Number(text);
        if (min === undefined || value < min.value) min = { value, text, row: rowIndex };
        if (max === undefined || value > max.value) max = { value, text, row: rowIndex };
      } else numeric = false;
    });
    const label = (row: number): string => scalarText(table.rows[row]?.[labelColumn] as ScalarNode).replace(/\s+/g, " ").slice(0, 40);
    if (numeric && min !== undefined && max !== undefined && distinct.size > 1) {
      parts.push(`${name} min ${min.text} (${label(min.row)}), max ${max.text} (${label(max.row)})`);
    } else if (!numeric && distinct.size > 1 && distinct.size <= 12 && distinct.size < table.rows.length) {
      parts.push(`${name}: ${[...distinct.keys()].map((value) => value.slice(0, 60)).join(", ")}`);
    }
  });
  summaryCache.set(table, parts);
  return parts;
}
