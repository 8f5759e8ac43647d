/**
 * Writes a condensed tree for the model, within limits (list head/tail, string length, fields per
 * object, depth). The budget loop tries ever tighter limits until the text fits. Writers stop as
 * soon as the output passes `cap`, so a 10 MB input never produces 10 MB of text per attempt.
 */
import {
  moreFieldsMarker,
  moreItemsMarker,
  moreRowsMarker,
  moreValuesMarker,
  identifiedItemsMarker,
  omittedCharactersMarker,
  OMITTED_ROWS_SUMMARY,
} from "./messages";
import { truncateDocument } from "./truncate-document";
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

function isDocument(text: string): boolean {
  return text.length >= DOCUMENT_MIN_CHARS && text.includes("\n");
}

function stringLimit(limits: RenderLimits, text: string, priority: boolean): number {
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

class Writer {
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

function safeCut(text: string, index: number): number {
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
  if (maxChars >= DOCUMENT_MIN_CHARS && isDocument(text)) return truncateDocument(text, maxChars, 0.1).text;
  const headLength = safeCut(text, Math.ceil(maxChars * 0.7));
  const tailStart = safeCut(text, text.length - Math.max(0, maxChars - headLength));
  return `${text.slice(0, headLength)} ${omittedCharactersMarker(tailStart - headLength)} ${text.slice(tailStart)}`;
}

interface ListWindow {
  /** Items shown from the start. */
  readonly head: number;
  /** Index from which items are shown again at the end. */
  readonly tailStart: number;
  /** Items the marker counts: cut by the limits plus those never read. */
  readonly omitted: number;
}

function listWindow(length: number, gap: ListGap, limits: RenderLimits, priority: boolean): ListWindow {
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

/** Longest table cell shown at the loosest limits (a search snippet or summary fits whole). */
const TABLE_CELL_MAX = 400;

function cellText(cell: ScalarNode, limits: RenderLimits): string {
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

/** Field names that identify a record, by rank: names and numbers, then outcome, links and amounts, then ids, then dates. */
const IDENTITY_RANKS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^(?:key|number|name|title|summary|subject|headline|label|login|full_?name|display_?name|displayName|tag_name|sku|slug|tracking_?(?:number|code)|order_?(?:id|number)|invoice_?(?:id|number)|email)$|(?:_number|Number|_name|Name)$/, 1],
  [/^(?:html_url|permalink|web_url|public_url|browser_download_url)$/, 1.5],
  [/^(?:status|state|price|amount|total|code)$/, 2],
  [/^id$|(?:_id|Id)$/, 3],
  [/^(?:date|created_?at|createdAt|published_?at|updated_?at)$|(?:_at|Date)$/, 4],
];

function identityRank(key: string): number {
  for (const [pattern, rank] of IDENTITY_RANKS) if (pattern.test(key)) return rank;
  return 0;
}

/**
 * Share of the budget the identity lines of an outermost list may take: a level that then
 * overflows gives way to a tighter one, so records are named before any record's detail.
 */
const IDENTITY_SHARE = 0.6;

/** Longest identity line of one record, and the most fields on it. */
const IDENTITY_LINE_CHARS = 180;
const IDENTITY_FIELDS = 5;

/**
 * One line per record with its identifying fields (`{number: 1453, title: Upgrade to Node 22,
 * state: open, html_url: …}`), breadth first through nested records (`fields.summary`), the
 * best-ranked {@link IDENTITY_FIELDS} in record order. Returns `undefined` when the items are not
 * records. When the lines would pass `room` characters, evenly spaced records are listed and the
 * rest counted in `unlisted`.
 */
export function identityLines(items: readonly TreeNode[], room: number, maxFields = IDENTITY_FIELDS): { lines: string[]; unlisted: number } | undefined {
  if (items.length === 0 || !items.every((item) => item.kind === "object")) return undefined;
  const lineOf = (record: TreeNode): string => {
    const candidates: Array<{ order: number; rank: number; part: string }> = [];
    const queue: Array<[string, TreeNode]> = [["", record]];
    for (let index = 0; index < queue.length && index < 200; index += 1) {
      const [path, node] = queue[index] as [string, TreeNode];
      if (node.kind !== "object") continue;
      for (const [key, value] of node.entries) {
        const name = path ? `${path}.${key}` : key;
        if (value.kind === "object") {
          if (!path.includes(".")) queue.push([name, value]);
          continue;
        }
        const rank = isScalar(value) && value.kind !== "null" ? identityRank(key) : 0;
        if (rank === 0) continue;
        // Nested fields rank below the record's own (an assignee's name below the title).
        candidates.push({ order: candidates.length, rank: rank + (path ? 1.5 : 0), part: `${name}: ${shortenString(scalarText(value as ScalarNode).replace(/\s+/g, " "), 90)}` });
      }
    }
    if (candidates.length === 0) return previewLeaves(record, IDENTITY_LINE_CHARS);
    const chosen: typeof candidates = [];
    let length = 0;
    for (const candidate of [...candidates].sort((left, right) => left.rank - right.rank || left.order - right.order)) {
      if (chosen.length >= maxFields || length + candidate.part.length > IDENTITY_LINE_CHARS) continue;
      chosen.push(candidate);
      length += candidate.part.length + 2;
    }
    return `{${chosen.sort((left, right) => left.order - right.order).map(({ part }) => part).join(", ")}}`;
  };
  const lines = items.map(lineOf);
  const total = lines.reduce((sum, line) => sum + line.length + 6, 0);
  if (total <= room) return { lines, unlisted: 0 };
  const fit = Math.floor((room / total) * lines.length);
  if (fit < 2) return undefined;
  const step = lines.length / fit;
  const sampled: string[] = [];
  for (let index = 0; index < fit; index += 1) sampled.push(lines[Math.floor(index * step)] as string);
  return { lines: sampled, unlisted: lines.length - sampled.length };
}

class TextRenderer {
  /** Lists being written around the current item; 0 at the outermost list. */
  private listNesting = 0;

  constructor(
    private readonly writer: Writer,
    private readonly limits: RenderLimits,
  ) {}

  scalarLine(prefix: string, continuation: string, node: ScalarNode, priority: boolean): void {
    let text = scalarText(node);
    if (node.kind === "string" && node.value === "" ) text = '""';
    const max = stringLimit(this.limits, text, priority);
    if (text.length > max) {
      text = shortenString(text, max);
      this.writer.cut = true;
    }
    if (!text.includes("\n")) {
      this.writer.line(prefix + text);
      return;
    }
    const lines = text.split("\n");
    this.writer.line(prefix + (lines[0] ?? ""));
    for (let index = 1; index < lines.length && !this.writer.overflow; index += 1) {
      const line = lines[index] ?? "";
      this.writer.line(line.length > 0 ? continuation + line : "");
    }
  }

  entries(entries: ReadonlyArray<[string, TreeNode]>, indent: string, firstPrefix: string, depth: number): void {
    const { shown, rest } = pickFields(entries, this.limits.maxFields);
    shown.forEach(([key, value], index) => {
      if (!this.writer.overflow) this.field(index === 0 ? firstPrefix : indent, indent, key, value, depth);
    });
    if (rest.length > 0) {
      this.writer.cut = true;
      const restNode: TreeNode = { kind: "object", entries: rest };
      this.writer.line(`${indent}${moreFieldsMarker(rest.length)}: ${previewLeaves(restNode, this.limits.stringMax * 10)}`);
    }
  }

  field(linePrefix: string, indent: string, rawKey: string, rawValue: TreeNode, depth: number): void {
    let key = rawKey;
    let value = rawValue;
    for (;;) {
      if (value.kind === "object" && value.entries.length === 1) {
        const [childKey, childValue] = value.entries[0] as [string, TreeNode];
        key = `${key}.${childKey}`;
        value = childValue;
      } else if (value.kind === "array" && value.items.length === 1 && value.skipped === undefined && value.items[0]?.kind === "object") {
        // A list of one record reads as the record.
        value = value.items[0];
      } else break;
    }
    const priority = /(?:^|\.)(?:errors?|status|state|code|message|error_\w+|\w+_error)$/i.test(key);
    if (isScalar(value)) {
      this.scalarLine(`${linePrefix}${key}: `, `${indent}  `, value, priority);
      return;
    }
    if (value.kind === "table") {
      this.table(`${linePrefix}${key}`, `${indent}  `, value);
      return;
    }
    if (depth >= this.limits.maxDepth && !priority) {
      this.writer.cut = true;
      this.writer.line(`${linePrefix}${key}: ${previewLeaves(value, this.limits.stringMax * 4)}`);
      return;
    }
    if (value.kind === "array") {
      const inline = this.inlineList(value.items, priority, value);
      if (inline !== undefined) {
        this.writer.line(`${linePrefix}${key}: ${inline}`);
        return;
      }
      this.writer.line(`${linePrefix}${key}:`);
      this.items(value.items, `${indent}  `, depth + 1, priority, value);
      return;
    }
    const inline = this.inlineRecord(value.entries);
    if (inline !== undefined) {
      this.writer.line(`${linePrefix}${key}: ${inline}`);
      return;
    }
    this.writer.line(`${linePrefix}${key}:`);
    this.entries(value.entries, `${indent}  `, `${indent}  `, depth + 1);
  }

  /** A small record of scalars on one line: `{city: CLOVIS, countryCode: US}`. */
  inlineRecord(entries: ReadonlyArray<[string, TreeNode]>): string | undefined {
    if (entries.length > 8) return undefined;
    const parts: string[] = [];
    let length = 0;
    for (const [key, value] of entries) {
      if (!isScalar(value)) return undefined;
      const text = scalarText(value);
      if (text.includes("\n") || text.length > 60) return undefined;
      const part = `${key}: ${text === "" ? '""' : text}`;
      length += part.length + 2;
      if (length > 160) return undefined;
      parts.push(part);
    }
    return `{${parts.join(", ")}}`;
  }

  inlineList(items: readonly TreeNode[], priority: boolean, gap: ListGap = {}): string | undefined {
    if (!items.every((item) => isScalar(item) && !scalarText(item).includes("\n") && scalarText(item).length <= 120)) return undefined;
    const { head, tailStart, omitted } = listWindow(items.length, gap, this.limits, priority);
    const texts: string[] = [];
    const pushItem = (item: TreeNode): void => {
      const text = scalarText(item as ScalarNode);
      texts.push(text === "" ? '""' : text);
    };
    for (let index = 0; index < head; index += 1) pushItem(items[index] as TreeNode);
    if (omitted > 0) {
      this.writer.cut = true;
      texts.push(moreItemsMarker(omitted));
      for (let index = tailStart; index < items.length; index += 1) pushItem(items[index] as TreeNode);
    }
    return texts.join(", ");
  }

  item(item: TreeNode, indent: string, depth: number, priority: boolean): void {
    if (isScalar(item)) this.scalarLine(`${indent}- `, `${indent}  `, item, priority);
    else if (item.kind === "object") {
      if (depth >= this.limits.maxDepth) {
        this.writer.cut = true;
        this.writer.line(`${indent}- ${previewLeaves(item, this.limits.stringMax * 4)}`);
      } else this.entries(item.entries, `${indent}  `, `${indent}- `, depth + 1);
    } else if (item.kind === "table") this.table(`${indent}-`, `${indent}  `, item);
    else {
      const inline = this.inlineList(item.items, priority, item);
      if (inline !== undefined) this.writer.line(`${indent}- [${inline}]`);
      else {
        this.writer.line(`${indent}-`);
        this.items(item.items, `${indent}  `, depth + 1, priority, item);
      }
    }
  }

  items(items: readonly TreeNode[], indent: string, depth: number, priority: boolean, gap: ListGap = {}): void {
    const { head, tailStart, omitted } = listWindow(items.length, gap, this.limits, priority);
    const outermost = this.listNesting === 0;
    this.listNesting += 1;
    for (let index = 0; index < head && !this.writer.overflow; index += 1) this.item(items[index] as TreeNode, indent, depth, priority);
    if (omitted > 0) {
      this.writer.cut = true;
      // The outermost list of records: the records left out keep their identifying fields
      // (top-down: every record is named before any record's detail).
      // When not all of them fit, the last records' detail gives way to more identities.
      const room = this.writer.capacity * IDENTITY_SHARE;
      let identities = outermost ? identityLines(items.slice(head, tailStart), room) : undefined;
      let detailFrom = tailStart;
      if (identities !== undefined && identities.unlisted > 0) {
        for (const fields of [IDENTITY_FIELDS, IDENTITY_FIELDS - 1, IDENTITY_FIELDS - 2]) {
          const wider = identityLines(items.slice(head), room, fields);
          if (wider !== undefined && wider.unlisted < identities.unlisted) {
            identities = wider;
            detailFrom = items.length;
          }
          if (identities.unlisted === 0) break;
        }
      }
      const shown = detailFrom === items.length ? items.length - head : omitted;
      if (identities === undefined) this.writer.line(`${indent}- ${moreItemsMarker(omitted)}`);
      else {
        this.writer.line(`${indent}- ${identifiedItemsMarker(shown, identities.lines.length)}`);
        for (const line of identities.lines) this.writer.line(`${indent}  - ${line}`);
        if (identities.unlisted > 0) this.writer.line(`${indent}  - ${moreItemsMarker(identities.unlisted)}`);
      }
      for (let index = detailFrom; index < items.length && !this.writer.overflow; index += 1) {
        this.item(items[index] as TreeNode, indent, depth, priority);
      }
    }
    this.listNesting -= 1;
  }

  table(header: string, indent: string, table: TableNode): void {
    const count = table.rows.length;
    const total = count + (table.skipped ?? 0);
    this.writer.line(`${header}${header ? " " : ""}(${total} rows):`);
    if (table.constants.length > 0) {
      const constants = table.constants
        .map(([name, value]) => `${name} = ${cellText(value, this.limits)}`)
        .join("; ");
      this.writer.line(`${indent}in every row: ${constants}`);
    }
    const columns = pickColumns(table, this.limits.maxColumns);
    const hiddenColumns = table.columns.length - columns.length;
    if (hiddenColumns > 0) this.writer.cut = true;
    this.writer.line(`${indent}${columns.map((column) => table.columns[column]).join(" | ")}${hiddenColumns > 0 ? ` | (${hiddenColumns} more columns)` : ""}`);
    const { head, tailStart, omitted } = listWindow(count, table, this.limits, false);
    const row = (index: number): void => {
      const cells = table.rows[index] as ScalarNode[];
      this.writer.line(`${indent}${columns.map((column) => cellText(cells[column] as ScalarNode, this.limits)).join(" | ")}`);
    };
    for (let index = 0; index < head && !this.writer.overflow; index += 1) row(index);
    if (omitted > 0) {
      this.writer.cut = true;
      this.writer.line(`${indent}${moreRowsMarker(omitted)}`);
      for (let index = tailStart; index < count && !this.writer.overflow; index += 1) row(index);
      const summary = summarizeTable(table, this.limits.summaryMax);
      const scope = total === count ? `${OMITTED_ROWS_SUMMARY} ${count}` : `${count} rows read of ${total}`;
      if (summary.length > 0) this.writer.line(`${indent}${scope}: ${summary}`);
    }
  }
}

/** Renders a tree as `key: value` text. */
export function renderText(node: TreeNode, limits: RenderLimits, cap: number): RenderOutput {
  const writer = new Writer(cap);
  const renderer = new TextRenderer(writer, limits);
  if (isScalar(node)) renderer.scalarLine("", "", node, false);
  else if (node.kind === "object") renderer.entries(node.entries, "", "", 0);
  else if (node.kind === "array") {
    const inline = renderer.inlineList(node.items, false, node);
    if (inline !== undefined) writer.line(inline);
    else renderer.items(node.items, "", 0, false, node);
  }
  else renderer.table("", "", node);
  return { text: writer.text(), overflow: writer.overflow, cut: writer.cut };
}

class JsonRenderer {
  private readonly parts: string[] = [];
  private length = 0;
  overflow = false;
  cut = false;

  constructor(
    private readonly limits: RenderLimits,
    private readonly cap: number,
  ) {}

  private push(text: string): void {
    if (this.overflow) return;
    this.parts.push(text);
    this.length += text.length;
    if (this.length > this.cap) this.overflow = true;
  }

  private scalar(node: ScalarNode, priority: boolean): void {
    if (node.kind === "string") {
      const max = stringLimit(this.limits, node.value, priority);
      if (node.value.length > max) this.cut = true;
      this.push(JSON.stringify(shortenString(node.value, max)));
    } else this.push(scalarText(node));
  }

  private list(count: number, gap: ListGap, priority: boolean, each: (index: number) => void, marker: (omitted: number) => string): void {
    const { head, tailStart, omitted } = listWindow(count, gap, this.limits, priority);
    this.push("[");
    for (let index = 0; index < head && !this.overflow; index += 1) {
      if (index > 0) this.push(",");
      each(index);
    }
    if (omitted > 0) {
      this.cut = true;
      this.push(`,${JSON.stringify(marker(omitted))}`);
      for (let index = tailStart; index < count && !this.overflow; index += 1) {
        this.push(",");
        each(index);
      }
    }
    this.push("]");
  }

  value(node: TreeNode, depth: number, priority: boolean): void {
    if (this.overflow) return;
    if (isScalar(node)) {
      this.scalar(node, priority);
      return;
    }
    if (depth >= this.limits.maxDepth) {
      this.cut = true;
      this.push(JSON.stringify(node.kind === "object" ? `[${node.entries.length} fields omitted]` : "[omitted]"));
      return;
    }
    if (node.kind === "array") {
      this.list(node.items.length, node, priority, (index) => this.value(node.items[index] as TreeNode, depth + 1, priority), moreItemsMarker);
      return;
    }
    if (node.kind === "table") {
      this.push(`{"columns":${JSON.stringify(node.columns)}`);
      if (node.constants.length > 0) {
        this.push(',"inEveryRow":{');
        node.constants.forEach(([name, value], index) => {
          this.push(`${index > 0 ? "," : ""}${JSON.stringify(name)}:`);
          this.scalar(value, false);
        });
        this.push("}");
      }
      this.push(',"rows":');
      this.list(
        node.rows.length,
        node,
        false,
        (index) => {
          const cells = node.rows[index] as ScalarNode[];
          this.push("[");
          cells.forEach((cell, cellIndex) => {
            if (cellIndex > 0) this.push(",");
            this.scalar(cell, false);
          });
          this.push("]");
        },
        moreRowsMarker,
      );
      if (listWindow(node.rows.length, node, this.limits, false).omitted > 0) {
        const summary = summarizeTable(node, this.limits.summaryMax);
        if (summary.length > 0) this.push(`,"allRows":${JSON.stringify(summary)}`);
      }
      this.push("}");
      return;
    }
    const shown = Math.min(node.entries.length, this.limits.maxFields);
    this.push("{");
    for (let index = 0; index < shown && !this.overflow; index += 1) {
      const [key, value] = node.entries[index] as [string, TreeNode];
      this.push(`${index > 0 ? "," : ""}${JSON.stringify(key)}:`);
      this.value(value, depth + 1, /^(?:errors?|status|state|code|message)$/i.test(key));
    }
    if (shown < node.entries.length) {
      this.cut = true;
      this.push(`,${JSON.stringify("…")}:${JSON.stringify(moreFieldsMarker(node.entries.length - shown))}`);
    }
    this.push("}");
  }

  text(): string {
    return this.parts.join("");
  }
}

/** Renders a tree as compact JSON (numbers as written in the source). */
export function renderJson(node: TreeNode, limits: RenderLimits, cap: number): RenderOutput {
  const renderer = new JsonRenderer(limits, cap);
  renderer.value(node, 0, false);
  return { text: renderer.text(), overflow: renderer.overflow, cut: renderer.cut };
}
