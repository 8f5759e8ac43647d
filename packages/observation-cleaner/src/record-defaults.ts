/**
 * What a dense API record (Stripe, AWS, Jira, Shopify) carries that no question needs, judged
 * without losing a fact:
 * - an identifier, code, date or number that repeats its enclosing record's field of the same
 *   name (AWS's `NetworkInterfaces[].SubnetId` under the instance's `SubnetId`): it stands above;
 * - the envelope of an empty list (Stripe's `refunds: {object: "list", data: [], has_more: false,
 *   total_count: 0, url: …}`): written as one marker that says the list is empty;
 * - schema defaults of position and retry counters (`DeviceIndex: 0`, `AmiLaunchIndex: 0`,
 *   `RetryAttempts: 0`): the first position and no retry are what a reader assumes.
 */
import { EMPTY_LIST_MARKER } from "./messages";
import { markerNode, scalarText, type ScalarNode, type TreeNode } from "./tree";

/** Fields of a list envelope around its items (Stripe, JSON:API, most REST pagination). */
const ENVELOPE_KEY = /^(?:object|type|has_more|hasMore|total_count|totalCount|count|total|url|href|self|next|previous|prev|page|per_page|perPage|limit|offset|next_page|nextPage)$/;
/** Counters whose zero is the schema's default. */
const ZERO_DEFAULT_KEY = /(?:^|[a-z_])(?:Index|_index|index)$|^(?:RetryAttempts|retry_attempts|retries|retryCount|retry_count)$/;

/** True for a `0` that only says "first position" or "no retry". */
export function isZeroDefault(key: string, value: TreeNode): boolean {
  return value.kind === "number" && /^0(?:\.0+)?$/.test(value.text) && ZERO_DEFAULT_KEY.test(key);
}

/** The scalar fields of a record other fields below it may repeat, by name. */
export function scalarFields(entries: ReadonlyArray<readonly [string, TreeNode]>): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [key, value] of entries) {
    if (value.kind === "string" ? value.marker !== true && value.value.trim().length >= 3 : value.kind === "number") fields.set(key, scalarText(value as ScalarNode).trim());
  }
  return fields;
}

/** True when `key: value` repeats a field of the same name and value of an enclosing record. */
export function repeatsAncestorField(key: string, value: TreeNode, ancestors: ReadonlyArray<ReadonlyMap<string, string>>): boolean {
  // Small numbers and booleans repeat by chance (`ns: 0` in every link of a page of `ns: 0`).
  if (value.kind === "number" ? value.text.length < 4 : value.kind !== "string") return false;
  // Identifiers, codes, dates and numbers only: a repeated text (Slack's `blocks` repeating the
  // message's `text`) is judged with its whole structure (condense.ts `repeatsSiblingText`).
  if (value.kind === "string" && (value.marker === true || value.value.trim().length < 3 || /\s/.test(value.value.trim()))) return false;
  const text = scalarText(value as ScalarNode).trim();
  for (let index = ancestors.length - 1; index >= 0; index -= 1) {
    if ((ancestors[index] as ReadonlyMap<string, string>).get(key) === text) return true;
  }
  return false;
}

/**
 * The marker for a list envelope whose list came out empty, or `undefined` when the record is more
 * than that (other fields, or a count saying items exist but were not included).
 *
 * @param kept - the record's fields after condensation
 * @param emptiedList - the key of the list that came out empty
 */
export function emptyEnvelope(kept: ReadonlyArray<readonly [string, TreeNode]>, emptiedList: string): TreeNode | undefined {
  for (const [key, value] of kept) {
    if (!ENVELOPE_KEY.test(key)) return undefined;
    if (/^(?:has_more|hasMore)$/.test(key) && !(value.kind === "boolean" && !value.value)) return undefined;
    if (/^(?:total_count|totalCount|count|total)$/.test(key) && !(value.kind === "number" && value.text === "0")) return undefined;
  }
  return kept.length === 0 && emptiedList.length === 0 ? undefined : markerNode(EMPTY_LIST_MARKER);
}
