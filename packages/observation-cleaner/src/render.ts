/**
 * What every writer of a condensed tree shares: the limits of one attempt and the budget loop's
 * levels, the capped line writer, and the choices of what to show (list windows, string
 * shortening, which fields and columns, one-line previews). `render-text.ts` and
 * `render-json.ts` write with them; `table-summary.ts` and `record-identity.ts` summarise what
 * they leave out. Writers stop as soon as the output passes `cap`, so a 10 MB input never
 * produces 10 MB of text per attempt.
 */
import { moreValuesMarker, omittedCharactersMarker } from "./messages";
import { condenseLog } from "./condense-log";
import { Notes } from "./decode";
import { looksLikeLog } from "./log-lines";
import { truncateDocument } from "./truncate-document";
import { truncateText } from "./truncate-text";
import { isScalar, scalarText, type ListGap, type ScalarNode, type TableNode, type TreeNode } from "./tree";

/** Limits for one rendering attempt. */
export interface RenderLimits {
  readonly arrayHead: number;
  readonly arrayTail: number;
  readonly stringMax: number;
  readonly maxFields: number;
  readonly maxDepth: number;
  /** Table columns shown (the rest are counted). */
  readonly maxColumns: number;
  /** Length of a table's all-rows summary. */
  readonly summaryMax: number;
  /**
   * Longest multi-line text of 400+ characters (a scraped page's Markdown, a README), cut by
   * structure rather than by position; `stringMax` when unset. The budget loop raises it to
   * spend what a level leaves unused.
   */
  readonly documentMax?: number;
}

/** A multi-line string this long is a document: cut by its structure, and given the budget left over. */
export const DOCUMENT_MIN_CHARS = 400;

export function isDocument(text: string): boolean {
  return text.length >= DOCUMENT_MIN_CHARS && text.includes("\n");
}

export function stringLimit(limits: RenderLimits, text: string, priority: boolean): number {
  const max = priority ? limits.stringMax * 4 : limits.stringMax;
  return limits.documentMax !== undefined && isDocument(text) ? Math.max(max, limits.documentMax) : max;
}

const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** The attempts of the budget loop, loosest first. */
export const RENDER_LEVELS: readonly RenderLimits[] = Object.freeze([
  { arrayHead: UNLIMITED, arrayTail: 0, stringMax: UNLIMITED, maxFields: UNLIMITED, maxDepth: UNLIMITED, maxColumns: UNLIMITED, summaryMax: 1500 },
  { arrayHead: 40, arrayTail: 5, stringMax: 3000, maxFields: UNLIMITED, maxDepth: UNLIMITED, maxColumns: UNLIMITED, summaryMax: 1500 },
  { arrayHead: 20, arrayTail: 4, stringMax: 1200, maxFields: UNLIMITED, maxDepth: UNLIMITED, maxColumns: UNLIMITED, summaryMax: 1200 },
  { arrayHead: 12, arrayTail: 3, stringMax: 600, maxFields: UNLIMITED, maxDepth: UNLIMITED, maxColumns: UNLIMITED, summaryMax: 1000 },
  { arrayHead: 8, arrayTail: 2, stringMax: 300, maxFields: UNLIMITED, maxDepth: UNLIMITED, maxColumns: UNLIMITED, summaryMax: 800 },
  { arrayHead: 5, arrayTail: 2, stringMax: 200, maxFields: UNLIMITED, maxDepth: UNLIMITED, maxColumns: UNLIMITED, summaryMax: 600 },
  { arrayHead: 3, arrayTail: 1, stringMax: 140, maxFields: UNLIMITED, maxDepth: UNLIMITED, maxColumns: UNLIMITED, summaryMax: 500 },
  { arrayHead: 2, arrayTail: 1, stringMax: 100, maxFields: UNLIMITED, maxDepth: UNLIMITED, maxColumns: 16, summaryMax: 400 },
  { arrayHead: 1, arrayTail: 1, stringMax: 80, maxFields: UNLIMITED, maxDepth: UNLIMITED, maxColumns: 12, summaryMax: 320 },
  { arrayHead: 1, arrayTail: 1, stringMax: 80, maxFields: UNLIMITED, maxDepth: 8, maxColumns: 10, summaryMax: 280 },
  { arrayHead: 1, arrayTail: 1, stringMax: 70, maxFields: UNLIMITED, maxDepth: 6, maxColumns: 8, summaryMax: 240 },
  { arrayHead: 1, arrayTail: 1, stringMax: 60, maxFields: 60, maxDepth: 5, maxColumns: 6, summaryMax: 200 },
  { arrayHead: 1, arrayTail: 1, stringMax: 50, maxFields: 30, maxDepth: 4, maxColumns: 5, summaryMax: 160 },
  { arrayHead: 1, arrayTail: 1, stringMax: 50, maxFields: 30, maxDepth: 4, maxColumns: 4, summaryMax: 100 },
  { arrayHead: 1, arrayTail: 1, stringMax: 45, maxFields: 24, maxDepth: 4, maxColumns: 3, summaryMax: 80 },
  { arrayHead: 1, arrayTail: 1, stringMax: 40, maxFields: 18, maxDepth: 4, maxColumns: 3, summaryMax: 60 },
  { arrayHead: 1, arrayTail: 1, stringMax: 40, maxFields: 12, maxDepth: 4, maxColumns: 3, summaryMax: 60 },
  { arrayHead: 1, arrayTail: 1, stringMax: 40, maxFields: 16, maxDepth: 3, maxColumns: 4, summaryMax: 120 },
]);

/** What one rendering attempt produced. */
export interface RenderOutput {
  readonly text: string;
  /** The writer passed `cap` and stopped. */
  readonly overflow: boolean;
  /** Some list, string, object or level was shortened by the limits. */
  readonly cut: boolean;
}

export class Writer {
  private readonly parts: string[] = [];
  private length = 0;
  overflow = false;
  cut = false;

  constructor(private readonly cap: number) {}

  line(text: string): void {
    if (this.overflow) return;
    this.parts.push(text);
    this.length += text.length + 1;
    if (this.length > this.cap) this.overflow = true;
  }

  text(): string {
    return this.parts.join("\n");
  }

  /** Characters the writer takes before it overflows. */
  get capacity(): number {
    return this.cap;
  }
}

export function safeCut(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}

/**
 * Keeps head and tail of a long string with a "[N characters omitted]" marker between. A string
 * that the cut would not make shorter (at most `maxChars` plus the marker) is kept whole: cutting
 * a 66-character title to 40 characters plus a 26-character marker loses words and saves nothing.
 * The result is never longer than `maxChars` plus the marker and its two spaces.
 */
export function shortenString(text: string, maxChars: number): string {
  if (text.length <= maxChars + omittedCharactersMarker(text.length - maxChars).length + 2) return text;
  if (maxChars >= DOCUMENT_MIN_CHARS && isDocument(text)) {
    // A log in a field (a CI API's `log`, a pod's `logs`): condensed by line kind, as a whole log is.
    if (looksLikeLog(text)) {
      const condensed = condenseLog(text, maxChars, new Notes()).text;
      return condensed.length <= maxChars ? condensed : truncateText(condensed, maxChars, 0.25).text;
    }
    return truncateDocument(text, maxChars, 0.1).text;
  }
  const headLength = safeCut(text, Math.ceil(maxChars * 0.7));
  const tailStart = safeCut(text, text.length - Math.max(0, maxChars - headLength));
  return `${text.slice(0, headLength)} ${omittedCharactersMarker(tailStart - headLength)} ${text.slice(tailStart)}`;
}

export interface ListWindow {
  /** Items shown from the start. */
  readonly head: number;
  /** Index from which items are shown again at the end. */
  readonly tailStart: number;
  /** Items the marker counts: cut by the limits plus those never read. */
  readonly omitted: number;
}

export function listWindow(length: number, gap: ListGap, limits: RenderLimits, priority: boolean): ListWindow {
  let head = priority ? limits.arrayHead * 3 : limits.arrayHead;
  let tail = priority ? limits.arrayTail * 3 : limits.arrayTail;
  const skipped = gap.skipped ?? 0;
  if (skipped === 0) {
    // Up to three items are structure (two packages, three shipments), not a list to sample.
    if (length <= Math.max(3, head + tail)) return { head: length, tailStart: length, omitted: 0 };
    return { head, tailStart: length - tail, omitted: length - head - tail };
  }
  const at = Math.min(gap.skippedAt ?? length, length);
  if (head >= at) {
    head = at;
    tail = length - at;
  } else tail = Math.min(tail, length - at);
  return { head, tailStart: length - tail, omitted: length - head - tail + skipped };
}

/** Longest table cell shown at the loosest limits (a search snippet or summary fits whole). */
const TABLE_CELL_MAX = 400;

export function cellText(cell: ScalarNode, limits: RenderLimits): string {
  const text = scalarText(cell).replace(/\s*\n\s*/g, " ");
  return shortenString(text, Math.min(limits.stringMax, TABLE_CELL_MAX));
}

/**
 * A one-line preview of a structure too deep to show: its scalar fields breadth first
 * (`type: PRIORITY_OVERNIGHT, description: FedEx Priority Overnight, …`).
 */
export function previewLeaves(node: TreeNode, maxChars: number): string {
  const parts: string[] = [];
  // Markers first: a too-deep part written flat carries the values of all the levels below it.
  const markers: string[] = [];
  let unread = 0;
  const queue: Array<[string, TreeNode]> = [["", node]];
  for (let index = 0; index < queue.length; index += 1) {
    const [key, current] = queue[index] as [string, TreeNode];
    if (isScalar(current)) {
      const text = scalarText(current).replace(/\s+/g, " ");
      if (current.kind === "string" && current.marker === true) markers.push(`${key ? `${key}: ` : ""}${shortenString(text, Math.max(80, Math.floor(maxChars / 2)))}`);
      else parts.push(`${key ? `${key}: ` : ""}${text.length > 80 ? shortenString(text, 80) : text}`);
    } else if (queue.length >= PREVIEW_NODES) unread += 1;
    else if (current.kind === "object") for (const entry of current.entries) queue.push(entry);
    else if (current.kind === "array") {
      for (const item of current.items.slice(0, 20)) queue.push([key, item]);
      unread += Math.max(0, current.items.length - 20) + (current.skipped ?? 0);
    } else {
      // A table: its constant columns and first row, the other rows counted.
      for (const entry of current.constants) queue.push(entry);
      const firstRow = current.rows[0] ?? [];
      current.columns.forEach((column, index) => {
        const cell = firstRow[index];
        if (cell !== undefined) queue.push([column, cell]);
      });
      unread += Math.max(0, current.rows.length - 1) + (current.skipped ?? 0);
    }
  }
  // In breadth-first order, as many as fit (a long one skipped for shorter ones after it); the rest counted.
  const shown: string[] = [];
  let length = 0;
  let omitted = unread;
  for (const part of [...markers, ...parts]) {
    if (length + part.length + 2 > maxChars) {
      omitted += 1;
      continue;
    }
    shown.push(part);
    length += part.length + 2;
  }
  return `{${shown.join(", ")}${omitted > 0 ? `, ${moreValuesMarker(omitted)}` : ""}}`;
}

/** Most nodes a one-line preview visits. */
const PREVIEW_NODES = 2000;

const OUTCOME_FIELD = /^(?:errors?|status|state|code|message|error_\w+|\w+_error|\w+_status)$/i;

/**
 * The fields of a record shown when only `maxFields` fit, in source order: outcome fields first
 * in rank, then lists and tables (a record's content: line items, scan events, results), then
 * other values, then flags (booleans, nulls). The rest goes to the one-line preview.
 */
export function pickFields(
  entries: ReadonlyArray<[string, TreeNode]>,
  maxFields: number,
): { shown: Array<[string, TreeNode]>; rest: Array<[string, TreeNode]> } {
  if (entries.length <= maxFields) return { shown: [...entries], rest: [] };
  const rank = ([key, value]: [string, TreeNode]): number => {
    if (OUTCOME_FIELD.test(key)) return 0;
    if ((value.kind === "array" && value.items.length >= 2) || (value.kind === "table" && value.rows.length >= 2)) return 1;
    if (value.kind === "boolean" || value.kind === "null") return 3;
    return 2;
  };
  const order = entries.map((entry, index) => ({ index, rank: rank(entry) }));
  order.sort((left, right) => left.rank - right.rank || left.index - right.index);
  const picked = new Set(order.slice(0, maxFields).map(({ index }) => index));
  const shown: Array<[string, TreeNode]> = [];
  const rest: Array<[string, TreeNode]> = [];
  entries.forEach((entry, index) => (picked.has(index) ? shown : rest).push(entry));
  return { shown, rest };
}

const NAME_COLUMN = /(?:^|[._])(?:name|title|label|description|summary|subject|headline)$/i;

/**
 * Indexes of the table columns shown when only `maxColumns` fit, in source order: names and
 * titles and outcome columns first, then other columns, then columns of only flags and nulls.
 */
export function pickColumns(table: TableNode, maxColumns: number): number[] {
  const all = table.columns.map((_, index) => index);
  if (all.length <= maxColumns) return all;
  const rank = (column: number): number => {
    const name = table.columns[column] as string;
    const last = name.slice(name.lastIndexOf(".") + 1);
    if (NAME_COLUMN.test(name) || OUTCOME_FIELD.test(last)) return 0;
    const flagsOnly = table.rows.every((row) => {
      const kind = row[column]?.kind;
      return kind === "boolean" || kind === "null" || (kind === "string" && (row[column] as { value: string }).value === "");
    });
    return flagsOnly ? 2 : 1;
  };
  const ranked = all.map((column) => ({ column, rank: rank(column) })).sort((left, right) => left.rank - right.rank || left.column - right.column);
  return ranked
    .slice(0, Math.max(1, maxColumns))
    .map(({ column }) => column)
    .sort((left, right) => left - right);
}
