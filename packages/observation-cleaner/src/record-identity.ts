/**
 * The identifying fields of a record on one line, for the records of a list whose detail does
 * not fit: the budget is spent top-down, every record named before any record's detail.
 */
import { previewLeaves, shortenString } from "./render";
import { isScalar, scalarText, type ScalarNode, type TreeNode } from "./tree";

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
export const IDENTITY_SHARE = 0.6;

/** Longest identity line of one record, and the most fields on it. */
const IDENTITY_LINE_CHARS = 180;
export const IDENTITY_FIELDS = 5;

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
