/**
 * Link fields judged by their value and their record, not by their key: in GitHub's API `url` is
 * the API link while `html_url` is the page a person opens, `browser_download_url` is the file and
 * `upload_url` can be the answer; `followers_url`, `labels_url{/name}` and the like are the
 * record's API link plus a suffix, which the model can neither open nor needs.
 *
 * Per record: every human-facing link is kept; API links are dropped when the record has a
 * human-facing link, or when they only extend another API link of the record (compared without
 * their RFC 6570 templates, which a kept link keeps as written); otherwise the
 * record keeps its first API link, so no record is left without a link. Links to a search
 * engine's result page or cache are dropped: they repeat the text next to them.
 */
import type { TreeNode } from "./tree";

/** Key names that hold a link. */
const LINK_KEY = /(?:url|uri|href|link|self|permalink)$/i;

/** Keys that name a record's own link. */
const OWN_LINK_KEY = /^(?:url|uri|self|href|link|permalink)$/i;

const ABSOLUTE_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/i;
/** A relative path such as `/v1/charges/ch_1/refunds` or `/2010-04-01/Accounts/AC1/Messages.json`. */
const RELATIVE_PATH = /^\/[^\s]*$/;

/** RFC 6570 template expressions (`{/key_id}`, `{?name,label}`): not part of the link. */
const URI_TEMPLATE = /\{[/?&#+.;]?[\w,*:%-]*\}/g;

/** Hosts and paths of machine-facing endpoints. */
const API_HOST = /^(?:api|apis|graph|rest|uploads?)[.-]|\.api\./i;
const API_PATH = /^\/(?:api|rest|graphql|v\d+(?:\.\d+)?|\d{4}-\d{2}-\d{2})(?:\/|$)|\/(?:api|rest)\/|\.json(?:$|\?)/i;

/**
 * Links to a search engine's result page or cache (`google.com/search?q=Satya+Nadella`,
 * `webcache.googleusercontent.com`): the text next to them is the fact; the link only repeats
 * the query.
 */
const SEARCH_LINK = /^https?:\/\/(?:(?:www\.)?(?:google|bing|yandex|baidu)\.[a-z.]+\/search\b|(?:www\.)?duckduckgo\.com\/\?|webcache\.googleusercontent\.com\/)/i;

/** What a link field's value is, for the per-record decision. */
export type LinkKind = "human" | "api" | "search";

interface LinkField {
  readonly key: string;
  readonly link: string;
  readonly kind: LinkKind;
}

/** The value of a link without its URI template expressions; the value itself when it has none. */
export function withoutUriTemplate(value: string): string {
  return value.includes("{") ? value.replace(URI_TEMPLATE, "") : value;
}

/** `"human"` or `"api"` for a link value; `undefined` for a value that is not a link. */
export function linkKind(key: string, value: string): LinkKind | undefined {
  const absolute = ABSOLUTE_URL.test(value);
  if (!absolute && !(LINK_KEY.test(key) && RELATIVE_PATH.test(value))) return undefined;
  const link = withoutUriTemplate(value);
  if (!absolute) return API_PATH.test(link) ? "api" : "human";
  if (SEARCH_LINK.test(link)) return "search";
  const match = /^https?:\/\/([^/?#]+)([^?#]*)/i.exec(link);
  const host = match?.[1] ?? "";
  const path = match?.[2] ?? "";
  // An upload endpoint is where a file goes, which a person may be asked for: human-facing.
  if (/^uploads?\./i.test(host)) return "human";
  return API_HOST.test(host) || API_PATH.test(path) ? "api" : "human";
}

/** The decision for a record's link fields. */
export interface LinkDecision {
  /** Keys of link fields to drop. */
  readonly drop: ReadonlySet<string>;
}

const NO_DECISION: LinkDecision = Object.freeze({ drop: new Set<string>() });

/**
 * Decides which link fields of one record to keep (see the module comment).
 *
 * @param entries - the record's fields, before condensation
 */
export function decideLinks(entries: ReadonlyArray<readonly [string, TreeNode]>): LinkDecision {
  let links: LinkField[] | undefined;
  for (const [key, value] of entries) {
    if (value.kind !== "string" || value.marker === true || value.value.length < 2) continue;
    const first = value.value.charCodeAt(0);
    if (first !== 0x68 /* h */ && first !== 0x48 /* H */ && first !== 0x2f /* / */) continue;
    const kind = linkKind(key, value.value);
    if (kind === undefined) continue;
    (links ??= []).push({ key, link: withoutUriTemplate(value.value), kind });
  }
  if (links === undefined) return NO_DECISION;
  const drop = new Set<string>();
  const hasHuman = links.some((field) => field.kind === "human");
  const apiLinks = links.filter((field) => field.kind === "api");
  const extendsAnother = (field: LinkField): boolean =>
    apiLinks.some((other) => other !== field && other.link.length < field.link.length && (field.link.startsWith(`${other.link}/`) || field.link.startsWith(`${other.link}?`)));
  // Without a human-facing link the record keeps one API link: its own (`url`, `self`, `href`) first.
  const kept = hasHuman ? undefined : (apiLinks.find((field) => OWN_LINK_KEY.test(field.key) && !extendsAnother(field)) ?? apiLinks.find((field) => !extendsAnother(field)));
  for (const field of apiLinks) if (field !== kept) drop.add(field.key);
  for (const field of links) if (field.kind === "search") drop.add(field.key);
  // A kept link keeps its URI template (`…/assets{?name,label}`): the template is how the link is
  // used (which parameters it takes), a fact a question can name.
  return { drop };
}
