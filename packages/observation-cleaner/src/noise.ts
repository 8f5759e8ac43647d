/**
 * Transport and metadata noise: which fields and values a person answering from a payload would
 * never need (HTTP plumbing, link templates, image links, opaque tokens, tracking parameters), and
 * which field names carry a call's outcome (never dropped, written first).
 */
import type { TreeNode } from "./tree";

/** Field names that carry a call's outcome; never dropped, rendered first. */
const ERROR_KEY = /^(?:errors?|error_?(?:code|message|description|type|details?)|errorCode|errorMessage|faults?|exception|problems?)$|(?:_error|Error)$/;
const STATUS_KEY =
  /^(?:status|status_?code|statusCode|state|code|cod|message|messages|msg|detail|reason|ok|success|warning|warnings|result_?code|resultCode)$|(?:_status|Status|_state)$/;

const priorityCache = new Map<string, number>();

/**
 * A key that owns its characters. A key read from a tool's text can be a V8 slice of that whole
 * text; kept in a module-level cache, it would keep a 10 MB response alive for the process's life.
 */
function ownCopy(key: string): string {
  return JSON.parse(JSON.stringify(key)) as string;
}

/** 2 for error fields, 1 for status fields, 0 otherwise. */
export function keyPriority(key: string): number {
  let priority = priorityCache.get(key);
  if (priority === undefined) {
    priority = ERROR_KEY.test(key) ? 2 : STATUS_KEY.test(key) ? 1 : 0;
    if (priorityCache.size < 50_000) priorityCache.set(ownCopy(key), priority);
  }
  return priority;
}

// Transport/metadata noise by field name (request echoes among them: Jira's and Confluence's
// `expand`/`_expandable` repeat which parts the request asked for, not what the record holds). Ids of any kind (request, trace, transaction ids,
// hashes, tracking numbers) are facts and are kept; link fields are judged by their value and
// their record (see links.ts), not by a `_url` suffix; HTTP headers are filtered one by one
// (see USEFUL_HEADER).
const NOISE_KEY =
  /^(?:_links|_meta|__typename|etag|e_tag|ETag|node_id|nodeId|admin_graphql_api_id|graphql_id|graphqlId|stacktrace|stack_trace|stackTrace|backtrace|gravatar_id|cursor|token|\w+_token|\w+Token|next_?cursor|nextCursor|page_?token|next_?page_?token|nextPageToken|continue|batchcomplete|search_metadata|search_parameters|searchParameters|json_endpoint|expand|_expandable|generationtime_ms|generation_time_ms|total_time_taken|time_taken_displayed|raw_html_file|favicon|favicons|avatar|avatars|icon|icons|logo|sprite|thumbnail|thumbnails|originalimage|serpapi_\w+)$|.(?:_thumbnail|Thumbnail|_icon|Icon|_avatar|Avatar|_avatar_url|avatarUrl|_image_url|imageUrl)$|^avatar_url$/;

/** HTTP header fields whose values answer questions (when to retry, where to go, what limit applies, which request). */
const USEFUL_HEADER =
  /^(?:retry-after|location|content-location|www-authenticate|proxy-authenticate|x-?rate-?limit[\w-]*|rate-?limit[\w-]*|x-request-id|request-id|x-amzn-requestid|x-amz-request-id|x-github-request-id|x-correlation-id|x-trace-id|traceparent|cf-ray|warning|deprecation|sunset|link|x-error[\w-]*|x-cache)$/i;

/** Field names that hold a record of HTTP headers. */
const HEADERS_KEY = /^(?:headers?|response_?headers|responseHeaders|http_?headers)$/i;

/** True for a field that holds HTTP headers (filtered with {@link isUsefulHeader}, not dropped whole). */
export function isHeadersKey(key: string): boolean {
  return HEADERS_KEY.test(key);
}

/** True for an HTTP header worth keeping: `Retry-After`, `Location`, rate limits, request ids. */
export function isUsefulHeader(name: string): boolean {
  return USEFUL_HEADER.test(name);
}

// HTML <meta> names that scrapers copy into their results: page plumbing, not content.
const PAGE_META_KEY =
  /^(?:og|twitter|fb|al|article|msapplication|apple-mobile-web-app|octolytics|turbo|visitor|route|html-safe|fetch|user|ui|browser|current|hovercard|analytics|github-keyboard)[:-][\w:.-]*$|^(?:viewport|robots|referrer|theme-color|color-scheme|format-detection|google-site-verification|csrf-token|csrf-param|request-id|expected-hostname|hostname|scrapeId|proxyUsed|cacheState|cachedAt|generator)$/i;

const noiseCache = new Map<string, boolean>();

/**
 * True for a page-plumbing `<meta>` field a scraper copied (`og:image`, `viewport`, `robots`):
 * only a text value counts, so Google Geocoding's `viewport` box (an object) is kept.
 */
export function isPageMetaField(key: string, value: TreeNode): boolean {
  return value.kind === "string" && PAGE_META_KEY.test(key);
}

export function isNoiseKey(key: string): boolean {
  let noise = noiseCache.get(key);
  if (noise === undefined) {
    noise = NOISE_KEY.test(key) || (key.startsWith("x-") && !USEFUL_HEADER.test(key));
    if (noiseCache.size < 50_000) noiseCache.set(ownCopy(key), noise);
  }
  return noise;
}

export function isNoiseValue(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first === 0x68 /* h */ || first === 0x2f /* / */) {
    if (IMAGE_URL.test(text)) return true;
  } else if (first === 0x64 /* d */ && text.startsWith("data:")) return true;
  // Long opaque runs without a digit-only or hex shape: signed blobs, cursors, session state.
  // Hashes (hex), ids and tracking numbers (digits) are facts, whatever their length.
  return text.length >= 160 && OPAQUE_TOKEN.test(text) && !/^[0-9a-fA-F]+$/.test(text);
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
