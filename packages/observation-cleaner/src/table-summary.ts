/**
 * The summary line of a table whose rows were cut: how many rows there are and are shown, and
 * per column the min/max of numeric columns (with the row's number and label) or the values of
 * low-variety columns, over every row read.
 */
import { tableSummaryHead, tableSummaryScope } from "./messages";
import { shortenString } from "./render";
import { scalarText, type ScalarNode, type TableNode } from "./tree";

const NUMERIC_TEXT = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const LABEL_COLUMN = /(?:^|[._ ])(?:time|date|dt_txt|datetime|timestamp|day|name|title|id)$/i;

const summaryCache = new WeakMap<TableNode, { readonly scope: string; readonly parts: readonly string[] }>();

/**
 * The row number (0-based, in the tool's whole list) of a read row: rows after a counted-not-read
 * middle sit `skipped` further on.
 */
function rowNumber(table: TableNode, index: number): number {
  return table.skipped !== undefined && table.skippedAt !== undefined && index >= table.skippedAt ? index + table.skipped : index;
}

/**
 * The summary line of a table whose rows were cut, worded to read right on its own:
 * `3000 rows; showing 13; price over all rows: min 0 (row 0), max 4498.5 (row 2999); currency over all rows: EUR, USD`.
 * Rows are numbered from 0 in the tool's whole list; a row's label (its time, date, name or id
 * column) follows its number. When the middle of a very long list was counted but not read, the
 * line says which were read (`500 read (the first 400 and the last 100; the middle was counted,
 * not read)`) and each column's figures are `over the rows read`.
 * Whole parts are kept up to `maxChars`; the rest are counted.
 *
 * @param shown - rows the observation shows
 */
export function tableSummaryLine(table: TableNode, shown: number, maxChars: number): string {
  const total = table.rows.length + (table.skipped ?? 0);
  const partial = table.skipped !== undefined && table.skipped > 0;
  const head = tableSummaryHead(total, shown, table.rows.length, partial ? (table.skippedAt ?? 0) : undefined);
  const scope = tableSummaryScope(partial);
  const summary = summarizeTable(table, Math.max(0, maxChars - head.length - 2), scope);
  return summary.length > 0 ? `${head}; ${summary}` : head;
}

/**
 * Per-column overview of the rows read, one part per column: min/max of numeric columns (with
 * the row's number and label), the values of low-variety ones, each named with `scope`.
 * Whole parts are kept up to `maxChars`.
 */
export function summarizeTable(table: TableNode, maxChars: number, scope = tableSummaryScope(false)): string {
  const parts = summaryParts(table, scope);
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

function summaryParts(table: TableNode, scope: string): readonly string[] {
  const cached = summaryCache.get(table);
  if (cached !== undefined && cached.scope === scope) return cached.parts;
  const labelIndex = table.columns.findIndex((name) => LABEL_COLUMN.test(name));
  const labelColumn = Math.max(0, labelIndex);
  const parts: string[] = [];
  table.columns.forEach((name, column) => {
    if (column === labelColumn && labelIndex >= 0) return;
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
    const label = (row: number): string => {
      const number = `row ${rowNumber(table, row)}`;
      if (labelIndex < 0) return number;
      const text = scalarText(table.rows[row]?.[labelColumn] as ScalarNode).replace(/\s+/g, " ").slice(0, 40);
      return text.length > 0 ? `${number}, ${text}` : number;
    };
    if (numeric && min !== undefined && max !== undefined && distinct.size > 1) {
      parts.push(`${name} ${scope}: min ${min.text} (${label(min.row)}), max ${max.text} (${label(max.row)})`);
    } else if (!numeric && distinct.size > 1 && distinct.size <= 12 && distinct.size < table.rows.length) {
      parts.push(`${name} ${scope}: ${[...distinct.keys()].map((value) => value.slice(0, 60)).join(", ")}`);
    }
  });
  summaryCache.set(table, { scope, parts });
  return parts;
}
