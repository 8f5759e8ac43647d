/**
 * JSON condensation: drops transport and metadata noise, empty values and repeats; keeps status,
 * code, error and message fields (and puts them first); pairs parallel arrays and uniform lists
 * of records into tables. Values are never rewritten: numbers keep their source text, strings are
 * only trimmed (and URLs lose tracking parameters).
 */
import type { Notes } from "./decode";
import { sameAsMarker } from "./messages";
import {
  isScalar,
  markerNode,
  scalarText,
  stringNode,
  type ObjectNode,
  type ScalarNode,
  type TableNode,
  type TreeNode,
} from "./tree";

/** Field names that carry a call's outcome; never dropped, rendered first. */
const ERROR_KEY = /^(?:errors?|error_?(?:code|message|description|type|details?)|errorCode|errorMessage|faults?|exception|problems?)$|(?:_error|Error)$/;
const STATUS_KEY =
  /^(?:status|status_?code|statusCode|state|code|cod|message|messages|msg|detail|reason|ok|success|warning|warnings|result_?code|resultCode)$|(?:_status|Status|_state)$/;

const priorityCache = new Map<string, number>();

/** 2 for error fields, 1 for status fields, 0 otherwise. */
export function keyPriority(key: string): number {
  let priority = priorityCache.get(key);
  if (priority === undefined) {
    priority = ERROR_KEY.test(key) ? 2 : STATUS_KEY.test(key) ? 1 : 0;
    if (priorityCache.size < 50_000) priorityCache.set(key, priority);
  }
  return priority;
}

// Transport/metadata noise by field name. `url` itself is kept (often the answer); `*_url`
// link templates (GitHub), `*Url` and `*_link` variants are not.
const NOISE_KEY =
  /^(?:headers?|_links|_meta|__typename|etag|e_tag|ETag|node_id|nodeId|admin_graphql_api_id|graphql_id|graphqlId|stacktrace|stack_trace|stackTrace|backtrace|gravatar_id|request_?id|requestId|trace_?id|traceId|span_?id|spanId|correlation_?id|correlationId|transaction_?id|transactionId|customerTransactionId|x-[\w-]+|cursor|token|\w+_token|\w+Token|next_?cursor|nextCursor|page_?token|next_?page_?token|nextPageToken|continue|batchcomplete|search_metadata|search_parameters|searchParameters|json_endpoint|generationtime_ms|generation_time_ms|total_time_taken|time_taken_displayed|raw_html_file|favicon|favicons|avatar|avatars|icon|icons|logo|sprite|thumbnail|thumbnails|originalimage|serpapi_\w+)$|.(?:_url|_uri|Url|Uri|URL|_link|_links|_thumbnail|Thumbnail|_icon|Icon|_avatar|Avatar)$/;

// HTML <meta> names that scrapers copy into their results: page plumbing, not content.
const PAGE_META_KEY =
  /^(?:og|twitter|fb|al|article|msapplication|apple-mobile-web-app|octolytics|turbo|visitor|route|html-safe|fetch|user|ui|browser|current|hovercard|analytics|github-keyboard)[:-][\w:.-]*$|^(?:viewport|robots|referrer|theme-color|color-scheme|format-detection|google-site-verification|csrf-token|csrf-param|request-id|expected-hostname|hostname|scrapeId|proxyUsed|cacheState|cachedAt|generator)$/i;

const noiseCache = new Map<string, boolean>();

function isNoiseKey(key: string): boolean {
  let noise = noiseCache.get(key);
  if (noise === undefined) {
    noise = NOISE_KEY.test(key) || PAGE_META_KEY.test(key);
    if (noiseCache.size < 50_000) noiseCache.set(key, noise);
  }
  return noise;
}

function isNoiseValue(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first === 0x68 /* h */ || first === 0x2f /* / */) {
    if (IMAGE_URL.test(text)) return true;
  } else if (first === 0x64 /* d */ && text.startsWith("data:")) return true;
  if (text.length >= 160 && OPAQUE_TOKEN.test(text)) return true;
  return text.includes("{") && /\{[/?&]/.test(text);
}

const IMAGE_URL = /^(?:https?:)?\/\/\S+\.(?:png|jpe?g|gif|webp|svg|ico|bmp|avif)(?:[?#]\S*)?$|^https?:\/\/encrypted-tbn\d*\.gstatic\.com\//i;
const OPAQUE_TOKEN = /^[A-Za-z0-9+/=_-]{160,}$/;

const TRACKING_PARAMETER =
  /^(?:utm_\w+|gclid|gclsrc|dclid|fbclid|msclkid|mc_cid|mc_eid|_ga|_gl|igshid|yclid|si|ved|ei|sa|usg|sca_esv|sca_upv|sxsrf|oq|gs_lcrp|gs_lp|sourceid|ie|uact|rlz|aqs|biw|bih|dpr|sclient|ictx|fbs|stick)$/;

/** Removes tracking parameters (and `#:~:text=` fragments) from an http(s) URL; others unchanged. */
export function stripTrackingParameters(url: string): string {
  if (!/^https?:\/\/[^\s]+$/.test(url) || (!url.includes("?") && !url.includes("#:~:"))) return url;
  const hashIndex = url.indexOf("#");
  let hash = hashIndex === -1 ? "" : url.slice(hashIndex);
  const withoutHash = hashIndex === -1 ? url : url.slice(0, hashIndex);
  if (hash.startsWith("#:~:")) hash = "";
  const queryIndex = withoutHash.indexOf("?");
  if (queryIndex === -1) return withoutHash + hash;
  const base = withoutHash.slice(0, queryIndex);
  const kept = withoutHash
    .slice(queryIndex + 1)
    .split("&")
    .filter((part) => part.length > 0 && !TRACKING_PARAMETER.test(decodeURIComponentSafe(part.split("=")[0] ?? "")));
  return base + (kept.length > 0 ? `?${kept.join("&")}` : "") + hash;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function globToRegExpSource(segment: string): string {
  return segment.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^.]*");
}

/** Matches dotted field paths against keep/drop patterns (see `CleanObservationOptions.keep`). */
export class PathMatcher {
  private readonly expressions: RegExp[];

  constructor(patterns: readonly string[]) {
    this.expressions = patterns.map((pattern) => {
      const anchored = pattern.startsWith("$.");
      const body = (anchored ? pattern.slice(2) : pattern)
        .split(".")
        .map((segment) => (segment === "**" ? ".*" : globToRegExpSource(segment)))
        .join("\\.")
        .replace(/\\\.\.\*\\\./g, "(?:\\..*\\.|\\.)");
      return new RegExp(anchored ? `^${body}$` : `(?:^|\\.)${body}$`);
    });
  }

  get isEmpty(): boolean {
    return this.expressions.length === 0;
  }

  matches(path: string): boolean {
    for (const expression of this.expressions) if (expression.test(path)) return true;
    return false;
  }
}

interface PathLink {
  readonly parent: PathLink | undefined;
  readonly key: string;
}

/** What condensation needs to know. */
export interface CondenseSettings {
  readonly keep: PathMatcher;
  readonly drop: PathMatcher;
  readonly dropNoise: boolean;
  readonly dropNulls: boolean;
}

const MAX_TABLE_COLUMNS = 40;

function normalizeWhitespace(text: string): string {
  let result = text;
  if (/[ \t]{2,}|[ \t]\n|\n[ \t]+\n|\n{3,}/.test(result)) {
    result = result.replace(/[ \t]+\n/g, "\n").replace(/\n[ \t]+\n/g, "\n\n").replace(/\n{3,}/g, "\n\n").replace(/[ \t]{2,}/g, " ");
  }
  return result.trim();
}

function isEmptyNode(node: TreeNode): boolean {
  switch (node.kind) {
    case "string":
      return node.value.length === 0;
    case "object":
      return node.entries.length === 0;
    case "array":
      return node.items.length === 0;
    case "table":
      return node.rows.length === 0 && node.constants.length === 0;
    default:
      return false;
  }
}

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

function recordsToTable(items: readonly TreeNode[]): TableNode | undefined {
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
function pairParallelArrays(entries: Array<[string, TreeNode]>, notes: Notes): Array<[string, TreeNode]> {
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

/**
 * Condenses a tree. Returns `undefined` when nothing is left (everything was noise or empty).
 */
export function condenseTree(root: TreeNode, settings: CondenseSettings, notes: Notes): TreeNode | undefined {
  const seenRecords = new Map<string, { path: PathLink | undefined }>();
  const droppedNoise = new Set<string>();
  let droppedByOption = 0;
  let droppedNulls = 0;
  let repeats = 0;
  let tables = 0;
  const filterPaths = !settings.keep.isEmpty || !settings.drop.isEmpty;
  // Scalar values of the records being visited (innermost last), for `repeatsRecordValues`.
  const recordValues: Array<Set<string>> = [];
  let repeatedRecords = 0;

  /**
   * True when every leaf of a small nested record already stands in the enclosing records as a
   * scalar value: Shopify's `total_price_set: {shop_money: {amount: "128.47", currency_code:
   * "USD"}, presentment_money: {…}}` next to `total_price: "128.47"` and `currency: "USD"`. Only
   * leaves of 3+ characters count (small numbers and booleans repeat by chance).
   */
  const repeatsRecordValues = (node: ObjectNode): boolean => {
    let leaves = 0;
    const check = (current: TreeNode, depth: number): boolean => {
      if (current.kind === "object") {
        if (depth > 3 || current.entries.length === 0) return false;
        return current.entries.every(([, value]) => check(value, depth + 1));
      }
      if ((current.kind !== "string" && current.kind !== "number") || (current.kind === "string" && current.marker === true)) return false;
      leaves += 1;
      const text = scalarText(current);
      return leaves <= 16 && text.length >= 3 && recordValues.some((values) => values.has(text));
    };
    return check(node, 0) && leaves > 0;
  };

  // Paths are built only when asked for (keep/drop patterns, "same as" markers): most values never need one.
  const pathText = (path: PathLink | undefined): string => {
    const keys: string[] = [];
    for (let link = path; link !== undefined; link = link.parent) keys.push(link.key);
    return keys.reverse().join(".");
  };

  // `withinList`: somewhere inside a list item. Records there are not replaced by "same as"
  // markers, which would break the list's table (each row needs its own cells).
  const visit = (node: TreeNode, path: PathLink | undefined, inArray: boolean, withinList = false): TreeNode | undefined => {
    switch (node.kind) {
      case "string": {
        if (node.marker === true) return node;
        let value = normalizeWhitespace(node.value);
        if (settings.dropNoise && value.startsWith("http")) value = stripTrackingParameters(value);
        if (value.length === 0) return inArray ? stringNode("") : undefined;
        return value === node.value ? node : stringNode(value);
      }
      case "number":
      case "boolean":
      case "null":
        return node;
      case "table":
        return node;
      case "array": {
        const items: TreeNode[] = [];
        let allEmpty = true;
        let skippedAt = node.skippedAt;
        node.items.forEach((item, index) => {
          const condensed = visit(item, path, true, true);
          if (condensed === undefined) {
            if (skippedAt !== undefined && index < (node.skippedAt ?? 0)) skippedAt -= 1;
            return;
          }
          if (!isEmptyNode(condensed) && condensed.kind !== "null") allEmpty = false;
          items.push(condensed);
        });
        if (allEmpty) return undefined;
        const gap = node.skipped !== undefined && skippedAt !== undefined ? { skipped: node.skipped, skippedAt } : {};
        // A list of one-field records with the same field (`[{query: a}, {query: b}]`) is a list of values.
        const onlyKey = items[0]?.kind === "object" && items[0].entries.length === 1 ? items[0].entries[0]?.[0] : undefined;
        if (
          onlyKey !== undefined &&
          items.length >= 2 &&
          items.every((item) => item.kind === "object" && item.entries.length === 1 && item.entries[0]?.[0] === onlyKey && isScalar(item.entries[0][1]))
        ) {
          const values = items.map((item) => ((item as ObjectNode).entries[0] as [string, TreeNode])[1]);
          return { kind: "object", entries: [[onlyKey, { kind: "array", items: values, ...gap }]] };
        }
        if (items.length >= 2 && items.every((item) => item.kind === "object")) {
          const table = recordsToTable(items);
          if (table !== undefined) {
            tables += 1;
            return Object.assign(table, gap);
          }
        }
        return { kind: "array", items, ...gap };
      }
      case "object": {
        let entries: Array<[string, TreeNode]> = [];
        const stringsSeen = new Set<string>();
        const values = new Set<string>();
        for (const [, value] of node.entries) {
          if (value.kind === "string" || value.kind === "number") values.add(value.kind === "string" ? value.value.trim() : value.text);
        }
        recordValues.push(values);
        for (const [key, value] of node.entries) {
          const childPath: PathLink = { parent: path, key };
          const priority = keyPriority(key);
          let forced = false;
          if (filterPaths) {
            const childText = pathText(childPath);
            forced = settings.keep.matches(childText);
            if (!forced && settings.drop.matches(childText)) {
              droppedByOption += 1;
              continue;
            }
          }
          if (!forced && priority === 0 && settings.dropNoise && isNoiseKey(key)) {
            droppedNoise.add(key);
            continue;
          }
          const condensed = visit(value, childPath, false, withinList);
          if (condensed === undefined) {
            if (forced || priority > 0) entries.push([key, value.kind === "string" ? stringNode("") : value]);
            continue;
          }
          if (condensed.kind === "object" && settings.dropNoise && priority === 0 && !forced && repeatsRecordValues(condensed)) {
            repeatedRecords += 1;
            continue;
          }
          if (condensed.kind === "null" && settings.dropNulls && priority === 0 && !forced) {
            droppedNulls += 1;
            continue;
          }
          if (condensed.kind === "string" && condensed.marker !== true && !forced && priority === 0) {
            const text = condensed.value;
            if (settings.dropNoise && isNoiseValue(text)) {
              droppedNoise.add(key);
              continue;
            }
            // The same text twice in one record (`title`/`displaytitle`, `extract`/`extract_html`).
            if (text.length >= 12) {
              const signature = text.length > 20_000 || !/\s\s|[\n\t]/.test(text) ? text : text.replace(/\s+/g, " ");
              if (stringsSeen.has(signature)) {
                repeats += 1;
                continue;
              }
              stringsSeen.add(signature);
            }
          }
          entries.push([key, condensed]);
        }
        recordValues.pop();
        entries = pairParallelArrays(entries, notes);
        if (entries.length === 0) return undefined;
        const only = entries[0] as [string, TreeNode];
        if (entries.length === 1 && only[1].kind === "table" && only[0].includes(" | ")) return only[1];
        // Outcome fields first: errors, then status, then the rest in source order.
        let firstOther = -1;
        let needsOrdering = false;
        for (let index = 0; index < entries.length; index += 1) {
          const priority = keyPriority((entries[index] as [string, TreeNode])[0]);
          if (priority === 0 && firstOther === -1) firstOther = index;
          else if (priority > 0 && (firstOther !== -1 || priority === 2)) needsOrdering = true;
        }
        if (needsOrdering) {
          const errors: Array<[string, TreeNode]> = [];
          const statuses: Array<[string, TreeNode]> = [];
          const others: Array<[string, TreeNode]> = [];
          for (const entry of entries) {
            const priority = keyPriority(entry[0]);
            (priority === 2 ? errors : priority === 1 ? statuses : others).push(entry);
          }
          entries = [...errors, ...statuses, ...others];
        }
        const condensed: ObjectNode = { kind: "object", entries };
        // A record repeated word for word (the same user object four times) is written once.
        if (!withinList && entries.length >= 3 && entries.every(([, value]) => isScalar(value))) {
          const signature = entries.map(([key, value]) => `${key}\u0000${scalarText(value as ScalarNode)}`).join("\u0001");
          if (signature.length >= 40) {
            const first = seenRecords.get(signature);
            if (first !== undefined && first.path !== path) {
              repeats += 1;
              return markerNode(sameAsMarker(pathText(first.path) || "the record above"));
            }
            seenRecords.set(signature, { path });
          }
        }
        return condensed;
      }
      default:
        return node;
    }
  };

  const result = visit(root, undefined, false);
  if (droppedNoise.size > 0) {
    const names = [...droppedNoise].slice(0, 6).join(", ");
    notes.add(`dropped transport/metadata fields (${names}${droppedNoise.size > 6 ? ", …" : ""})`);
  }
  if (droppedByOption > 0) notes.add(`dropped ${droppedByOption} field(s) matching the drop option`);
  if (droppedNulls > 0) notes.add(`dropped ${droppedNulls} null field(s)`);
  if (repeats > 0) notes.add(`wrote ${repeats} repeated value(s) once`);
  if (repeatedRecords > 0) notes.add(`dropped ${repeatedRecords} nested record(s) whose every value already stands in the record`);
  if (tables > 0) notes.add("wrote uniform lists of records as tables");
  return result;
}
