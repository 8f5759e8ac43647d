/**
 * HTML → readable text with html-to-text: the main region when the page marks one (`<main>`,
 * `role="main"`), navigation, banners, footers, forms, scripts, styles, media and common
 * boilerplate classes skipped; title, headings (as `#` lines), paragraphs, lists, tables and link
 * texts kept (link targets dropped).
 */
import { compile, type FormatCallback, type HtmlToTextOptions, type SelectorDefinition } from "html-to-text";
import { flattenDeepMarkup } from "./markup-depth";

const SKIPPED_SELECTORS = [
  "script", "style", "noscript", "template", "head", "svg", "canvas", "iframe", "object", "embed",
  "video", "audio", "img", "picture", "map", "nav", "aside", "footer", "form", "button", "select",
  "input", "textarea", "label", "dialog", "[role=navigation]", "[role=banner]", "[role=contentinfo]",
  "[role=complementary]", "[role=search]", "[role=dialog]", "[role=alert]", "[aria-hidden=true]", "[hidden]",
  ".navbox", ".vertical-navbox", ".navigation", ".breadcrumb", ".breadcrumbs", ".menu", ".sidebar",
  ".reference", ".mw-editsection", ".mw-jump-link", ".noprint", ".sr-only", ".visually-hidden",
  ".advert", ".advertisement", ".ad", ".ads", ".share", ".social", ".cookie", ".cookies", ".skip-link",
  // Boilerplate recognised by a part of its class or id: consent banners (OneTrust, GDPR bars),
  // newsletter boxes, share bars, comment threads, related-post lists, site headers/footers/menus.
  "[class*=cookie]", "[id*=cookie]", "[class*=consent]", "[id*=consent]", "[class*=gdpr]", "[id*=gdpr]",
  "[id*=onetrust]", "[class*=newsletter]", "[class*=share-]", "[class*=sharing]", "[class*=social-]",
  "[class*=comments]", "[id=comments]", "[class*=related-]", "[class*=site-header]", "[class*=site-footer]",
  "[class*=site-nav]", "[class*=announcement]", "[class*=table-of-contents]", "[class*=skip-to]",
];

const headingFormatter: FormatCallback = (element, walk, builder) => {
  const level = Number((element as { name?: string }).name?.slice(1)) || 2;
  builder.openBlock({ leadingLineBreaks: 2 });
  builder.addLiteral(`${"#".repeat(Math.min(level, 6))} `);
  walk((element as unknown as { children?: never[] }).children ?? [], builder);
  builder.closeBlock({ trailingLineBreaks: 1 });
};

interface ListNode {
  readonly type?: string;
  readonly name?: string;
  readonly data?: string;
  readonly children?: readonly ListNode[];
}

// Text length of a node and how much of it sits inside links (bounded depth: lists are shallow).
function measureLinks(node: ListNode, insideLink: boolean, depth: number, totals: { text: number; link: number }): void {
  if (depth > 12) return;
  if (node.type === "text") {
    const length = (node.data ?? "").trim().length;
    totals.text += length;
    if (insideLink) totals.link += length;
    return;
  }
  for (const child of node.children ?? []) measureLinks(child, insideLink || node.name === "a", depth + 1, totals);
}

// Lists made almost only of links (tables of contents, "most read", menus) are navigation.
function linkListAware(builtin: "unorderedList" | "orderedList"): FormatCallback {
  return (element, walk, builder, formatOptions) => {
    const node = element as ListNode;
    const items = (node.children ?? []).filter((child) => child.name === "li");
    if (items.length >= 6) {
      const totals = { text: 0, link: 0 };
      measureLinks(node, false, 0, totals);
      if (totals.text > 0 && totals.link / totals.text >= 0.85) return;
    }
    const formatters = (builder as unknown as { options: { formatters: Record<string, FormatCallback> } }).options.formatters;
    formatters[builtin]?.(element, walk, builder, formatOptions);
  };
}

/**
 * `"error"`: an error or challenge page read whole, with only code and media skipped, since its
 * message often sits where boilerplate does (Cloudflare's `Please enable cookies.` in a
 * `#cookie-alert`, `Enable JavaScript and cookies to continue` in `<noscript>`, a `role=alert` box).
 */
type Region = "main" | "article" | "whole" | "error";

const REGION_SELECTORS: Readonly<Record<Region, string[]>> = {
  main: ["main", "[role=main]"],
  article: ["article"],
  whole: ["body"],
  error: ["body"],
};

/** What an error page still skips: code, media and controls. */
const ERROR_PAGE_SKIPPED_SELECTORS = ["script", "style", "template", "head", "svg", "canvas", "iframe", "object", "embed", "video", "audio", "img", "picture", "map", "button", "select", "input", "textarea", "[hidden]"];

/** Deepest element nesting handed to html-to-text; deeper tags are removed, their text kept. */
export const MAX_HTML_DEPTH = 150;

/** A page that reports an error or a challenge rather than content (by its title or first heading). */
const ERROR_PAGE_TITLE =
  /^\W*(?:error\W*)?[45]\d\d\b|\b(?:error [45]\d\d|access denied|forbidden|not found|service unavailable|temporarily unavailable|too many requests|bad gateway|gateway time-?out|internal server error|attention required|just a moment|you have been blocked|captcha|verify you are human|checking (?:if the site connection|your browser)|security check|under maintenance|enable (?:javascript|cookies))\b/i;

/** Error and challenge pages are short: a page with more text than this is content, whatever its title. */
const ERROR_PAGE_MAX_CHARS = 3000;

/** Longest HTML read (html-to-text's own limit, which would otherwise warn on the console). */
export const MAX_HTML_CHARS = 1 << 24;

function options(region: Region): HtmlToTextOptions {
  const skipped = region === "error" ? ERROR_PAGE_SKIPPED_SELECTORS : SKIPPED_SELECTORS;
  const selectors: SelectorDefinition[] = [
    ...skipped.map((selector) => ({ selector, format: "skip" })),
    { selector: "a", options: { ignoreHref: true } },
    { selector: "table", format: "dataTable", options: { uppercaseHeaderCells: false, maxColumnWidth: 60 } },
    { selector: "ul", format: "linkListAwareUnorderedList", options: { itemPrefix: " - " } },
    { selector: "ol", format: "linkListAwareOrderedList" },
    ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, format: "markdownHeading" })),
  ];
  return {
    wordwrap: false,
    formatters: {
      markdownHeading: headingFormatter,
      linkListAwareUnorderedList: linkListAware("unorderedList"),
      linkListAwareOrderedList: linkListAware("orderedList"),
    },
    selectors,
    baseElements: { selectors: REGION_SELECTORS[region], orderBy: "occurrence", returnDomByDefault: true },
    // Depth is bounded before conversion (flattenDeepMarkup), so html-to-text never elides content.
    limits: { maxBaseElements: 1, maxDepth: MAX_HTML_DEPTH * 4, ellipsis: "…", maxInputLength: MAX_HTML_CHARS },
  };
}

const converters = new Map<Region, (html: string) => string>();

function convertRegion(html: string, region: Region): string {
  let converter = converters.get(region);
  if (converter === undefined) {
    converter = compile(options(region));
    converters.set(region, converter);
  }
  return converter(html);
}

const TITLE_PATTERN = /<title[^>]{0,200}>([^<]{1,400})<\/title>/i;
const MAIN_PATTERN = /<main[\s>]|role\s*=\s*["']?main\b/i;
const ARTICLE_PATTERN = /<article[\s>]/gi;

function decodeTitle(raw: string): string {
  return convertRegion(raw, "whole").replace(/\s+/g, " ").trim();
}

/** The result of converting an HTML document or fragment. */
export interface HtmlText {
  readonly text: string;
  /** True when only the page's main region was used. */
  readonly mainRegionOnly: boolean;
  /** True when the page was read as an error or challenge page (nothing but code and media skipped). */
  readonly errorPage: boolean;
  /** Elements nested deeper than {@link MAX_HTML_DEPTH} whose tags were removed (their text kept). */
  readonly flattened: number;
}

/**
 * Converts HTML to text. Uses the page's main region when it has one with a reasonable amount of
 * text, else the whole document; the `<title>` is put first when the text does not start with it.
 */
export function htmlToText(html: string): HtmlText {
  const flat = flattenDeepMarkup(html.length > MAX_HTML_CHARS ? html.slice(0, MAX_HTML_CHARS) : html, MAX_HTML_DEPTH, true);
  const source = flat.text;
  // The page's main region; else its only <article>; else the whole page (navigation still skipped).
  const hasMain = MAIN_PATTERN.test(source);
  const articleCount = hasMain ? 0 : (source.slice(0, 5_000_000).match(ARTICLE_PATTERN)?.length ?? 0);
  const region: Region = hasMain ? "main" : articleCount === 1 ? "article" : "whole";
  let text = convertRegion(source, region);
  let mainRegionOnly = region !== "whole";
  if (mainRegionOnly && text.trim().length < 200) {
    const whole = convertRegion(source, "whole");
    if (whole.trim().length > text.trim().length) {
      text = whole;
      mainRegionOnly = false;
    }
  }
  const titleMatch = TITLE_PATTERN.exec(html.slice(0, 200_000));
  const title = titleMatch?.[1] === undefined ? "" : decodeTitle(titleMatch[1]);
  const firstHeading = /<h1[^>]{0,400}>([\s\S]{1,400}?)<\/h1>/i.exec(source.slice(0, 200_000))?.[1] ?? "";
  let errorPage = false;
  if (text.length < ERROR_PAGE_MAX_CHARS && (ERROR_PAGE_TITLE.test(title) || ERROR_PAGE_TITLE.test(firstHeading.replace(/<[^>]*>/g, " ")))) {
    const whole = convertRegion(source, "error");
    if (whole.trim().length > text.trim().length) {
      text = whole;
      mainRegionOnly = false;
      errorPage = true;
    }
  }
  text = text
    .replace(/[ \t\u00a0]+\n/g, "\n")
    .replace(/^(#{1,6}) +/gm, "$1 ")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (title.length > 0 && !text.slice(0, 2000).includes(title)) text = `# ${title}\n\n${text}`;
  return { text, mainRegionOnly, errorPage, flattened: flat.flattened };
}

const TAG_PATTERN = /<\/?(?:html|head|body|div|p|span|a|ul|ol|li|table|tr|td|th|h[1-6]|br|img|script|style|section|article|main|nav|header|footer|meta|link|strong|em|b|i|u|small|sup|sub|blockquote|pre|code|dl|dt|dd|form|iframe)\b[^<>]{0,2000}>/gi;

/**
 * True when `text` reads as HTML: a doctype or `<html>` start, or at least `minTags` known HTML
 * tags (at least one when the text starts with a tag).
 */
export function looksLikeHtml(text: string, minTags = 2): boolean {
  const head = text.slice(0, 1000).trimStart().toLowerCase();
  if (head.startsWith("<!doctype html") || head.startsWith("<html")) return true;
  if (!text.includes("<")) return false;
  TAG_PATTERN.lastIndex = 0;
  let count = 0;
  const limit = Math.min(text.length, 2_000_000);
  const sample = limit === text.length ? text : text.slice(0, limit);
  while (TAG_PATTERN.exec(sample) !== null) {
    count += 1;
    if (count >= minTags) return true;
  }
  return false;
}
