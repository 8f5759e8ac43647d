/**
 * JSON condensation: drops transport and metadata noise, empty values and repeats; keeps status,
 * code, error and message fields (and puts them first); pairs parallel arrays and uniform lists
 * of records into tables. Values are never rewritten: numbers keep their source text, strings are
 * only trimmed (and URLs lose tracking parameters).
 */
import type { Notes } from "./decode";
import { sameAsMarker } from "./messages";
import { decideLinks } from "./links";
import { isHeadersKey, isNoiseKey, isNoiseValue, isPageMetaField, isUsefulHeader, keyPriority, stripTrackingParameters } from "./noise";
import type { PathMatcher } from "./path-matcher";
import { emptyEnvelope, isZeroDefault, repeatsAncestorField, scalarFields } from "./record-defaults";
import { pairParallelArrays, recordsToTable } from "./tables";
import { isScalar, markerNode, scalarText, stringNode, type ObjectNode, type ScalarNode, type TreeNode } from "./tree";

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

/** Keys of layout, not content, in rich-text structures (Slack blocks, Notion and ProseMirror nodes). */
const STRUCTURAL_KEY = /^(?:type|block_id|action_id|style|kind|format|version|object|skin_tone|unicode|indent|border|offset|marks?|annotations|color|bold|italic|strike|code|elements?)$/;

/**
 * True when a nested structure only repeats texts of its record: every leaf is layout
 * ({@link STRUCTURAL_KEY}, booleans, texts under 3 characters) or stands in one of `texts`
 * (Slack's `blocks` next to its `text`: `<@U07HARB01>` holds the mention's `user_id`).
 * At least 12 characters of content must be found, so a structure of layout alone is not
 * taken for a repeat.
 */
function repeatsSiblingText(node: TreeNode, texts: readonly string[]): boolean {
  let found = 0;
  let visited = 0;
  const stack: Array<[string, TreeNode]> = [["", node]];
  while (stack.length > 0) {
    const [key, current] = stack.pop() as [string, TreeNode];
    visited += 1;
    if (visited > 2000) return false;
    switch (current.kind) {
      case "object":
        for (const entry of current.entries) stack.push(entry);
        break;
      case "array":
        for (const item of current.items) stack.push([key, item]);
        if ((current.skipped ?? 0) > 0) return false;
        break;
      case "table":
        if ((current.skipped ?? 0) > 0) return false;
        for (const entry of current.constants) stack.push(entry);
        for (const row of current.rows) row.forEach((cell, index) => stack.push([current.columns[index] ?? "", cell]));
        break;
      case "boolean":
      case "null":
        break;
      default: {
        const text = scalarText(current).trim();
        const last = key.slice(key.lastIndexOf(".") + 1);
        if (text.length < 3 || (STRUCTURAL_KEY.test(last) && current.kind === "string" && !text.includes(" "))) break;
        if (!texts.some((candidate) => candidate.includes(text))) return false;
        found += text.length;
      }
    }
  }
  return found >= 12;
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
  // Scalar fields of the enclosing records by name (innermost last), for `repeatsAncestorField`.
  const ancestorFields: Array<Map<string, string>> = [];
  const judgeRecords = settings.dropNoise && !filterPaths;
  let repeatedFields = 0;
  let zeroDefaults = 0;
  let emptyEnvelopes = 0;

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
        const enclosing = judgeRecords ? ancestorFields.slice() : [];
        if (judgeRecords) ancestorFields.push(scalarFields(node.entries.filter(([key]) => !isNoiseKey(key))));
        let emptiedList: string | undefined;
        const links = settings.dropNoise ? decideLinks(node.entries) : undefined;
        let siblingTexts: string[] | undefined;
        for (const [key, original] of node.entries) {
          let value = original;
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
          if (!forced && priority === 0 && settings.dropNoise && (isNoiseKey(key) || isPageMetaField(key, value) || links?.drop.has(key) === true)) {
            droppedNoise.add(key);
            continue;
          }
          if (settings.dropNoise && value.kind === "object" && isHeadersKey(key) && !forced) {
            // HTTP headers: only those that answer questions (Retry-After, Location, rate limits, request ids).
            const useful = value.entries.filter(([name]) => isUsefulHeader(name));
            if (useful.length < value.entries.length) droppedNoise.add(key);
            if (useful.length === 0) continue;
            value = { kind: "object", entries: useful };
          }
          const condensed = visit(value, childPath, false, withinList);
          if (condensed === undefined) {
            if (value.kind === "array") emptiedList = key;
            if (forced || priority > 0) entries.push([key, value.kind === "string" ? stringNode("") : value]);
            continue;
          }
          if (judgeRecords && priority === 0 && !forced) {
            if (isZeroDefault(key, condensed)) {
              zeroDefaults += 1;
              continue;
            }
            if (repeatsAncestorField(key, condensed, enclosing)) {
              repeatedFields += 1;
              continue;
            }
          }
          if (condensed.kind === "object" && settings.dropNoise && priority === 0 && !forced && repeatsRecordValues(condensed)) {
            repeatedRecords += 1;
            continue;
          }
          if ((condensed.kind === "object" || condensed.kind === "array" || condensed.kind === "table") && settings.dropNoise && priority === 0 && !forced) {
            siblingTexts ??= node.entries.flatMap(([otherKey, other]) => (otherKey !== key && other.kind === "string" && other.value.length >= 12 ? [other.value] : []));
            if (siblingTexts.length > 0 && repeatsSiblingText(condensed, siblingTexts)) {
              repeatedRecords += 1;
              continue;
            }
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
        if (judgeRecords) ancestorFields.pop();
        if (judgeRecords && emptiedList !== undefined && path !== undefined) {
          const envelope = emptyEnvelope(entries, emptiedList);
          if (envelope !== undefined) {
            emptyEnvelopes += 1;
            return envelope;
          }
        }
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
  if (repeatedRecords > 0) notes.add(`dropped ${repeatedRecords} nested record(s) or list(s) whose every value already stands in the record`);
  if (tables > 0) notes.add("wrote uniform lists of records as tables");
  if (repeatedFields > 0) notes.add(`dropped ${repeatedFields} field(s) repeating the same field of their enclosing record`);
  if (zeroDefaults > 0) notes.add(`dropped ${zeroDefaults} zero position or retry counter(s) (schema defaults)`);
  if (emptyEnvelopes > 0) notes.add(`wrote ${emptyEnvelopes} envelope(s) of an empty list as one marker`);
  return result;
}
