/**
 * Bounds the nesting depth of HTML or XML text before it is parsed. htmlparser2 keeps its stack
 * of open elements with `Array#unshift`, so each level costs as much as all levels above it:
 * 100 000 nested `<div>`s take seconds and 300 000 take a minute. One linear scan removes the
 * tags of elements nested deeper than the limit and keeps their text, so nothing is lost and
 * the parser only ever sees a shallow document.
 */

/** HTML elements that never hold children, so they never open a level. */
const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr", "keygen", "command"]);

/**
 * HTML elements whose end tag is optional (`<p>`, `<li>`, `<td>` left open are closed by their
 * next sibling): counting them as levels would let a page of 500 open `<p>`s look 500 deep.
 */
const OPTIONAL_END_ELEMENTS = new Set(["p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot", "rt", "rp", "colgroup"]);

/** HTML elements whose content is raw text, not markup. */
const RAW_TEXT_ELEMENTS = new Set(["script", "style", "textarea", "title", "xmp", "noembed", "noframes"]);

/** Result of {@link flattenDeepMarkup}. */
export interface FlattenedMarkup {
  readonly text: string;
  /** Elements whose tags were removed (their text kept). */
  readonly flattened: number;
}

/**
 * Removes the tags of elements nested deeper than `maxDepth` (their text stays where it was),
 * in one pass. Comments, doctypes, processing instructions, CDATA sections and the content of
 * raw-text elements (`<script>`, `<style>`) are passed through unread.
 *
 * @param markup - HTML or XML text
 * @param maxDepth - deepest level kept as elements
 * @param html - HTML rules (void elements, optional end tags, raw-text elements); XML otherwise
 */
export function flattenDeepMarkup(markup: string, maxDepth: number, html: boolean): FlattenedMarkup {
  // Cheap exit: a document with fewer tags than the limit cannot nest deeper than it.
  let tags = 0;
  for (let index = markup.indexOf("<"); index !== -1 && tags <= maxDepth; index = markup.indexOf("<", index + 1)) tags += 1;
  if (tags <= maxDepth) return { text: markup, flattened: 0 };

  const parts: string[] = [];
  let copyFrom = 0;
  let depth = 0;
  let flattened = 0;
  let position = 0;
  const length = markup.length;
  while (position < length) {
    const open = markup.indexOf("<", position);
    if (open === -1) break;
    const next = markup.charCodeAt(open + 1);
    // Comments, CDATA, doctypes and processing instructions: skip to their end.
    if (next === 0x21 /* ! */ || next === 0x3f /* ? */) {
      const terminator = markup.startsWith("<!--", open) ? "-->" : markup.startsWith("<![CDATA[", open) ? "]]>" : ">";
      const end = markup.indexOf(terminator, open + 2);
      position = end === -1 ? length : end + terminator.length;
      continue;
    }
    const closing = next === 0x2f; /* / */
    const nameStart = closing ? open + 2 : open + 1;
    let nameEnd = nameStart;
    while (nameEnd < length) {
      const code = markup.charCodeAt(nameEnd);
      const isNameCharacter = (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x5f || code === 0x3a || code === 0x2e;
      if (!isNameCharacter) break;
      nameEnd += 1;
    }
    if (nameEnd === nameStart) {
      position = open + 1;
      continue;
    }
    const close = markup.indexOf(">", nameEnd);
    if (close === -1) break;
    const rawName = markup.slice(nameStart, nameEnd);
    const name = html ? rawName.toLowerCase() : rawName;
    const selfClosing = markup.charCodeAt(close - 1) === 0x2f;
    const counts = !selfClosing && !(html && (VOID_ELEMENTS.has(name) || OPTIONAL_END_ELEMENTS.has(name)));
    let remove = false;
    if (closing) {
      if (counts) {
        remove = depth > maxDepth;
        depth = Math.max(0, depth - 1);
      } else remove = depth >= maxDepth;
    } else {
      if (counts) depth += 1;
      remove = counts ? depth > maxDepth : depth >= maxDepth;
    }
    let end = close + 1;
    if (!closing && html && RAW_TEXT_ELEMENTS.has(name)) {
      const rawEnd = new RegExp(`</${name}`, "ig");
      rawEnd.lastIndex = end;
      end = rawEnd.exec(markup)?.index ?? length;
    }
    if (remove) {
      parts.push(markup.slice(copyFrom, open), " ");
      copyFrom = close + 1;
      if (!closing) flattened += 1;
    }
    position = end;
  }
  if (flattened === 0) return { text: markup, flattened: 0 };
  parts.push(markup.slice(copyFrom));
  return { text: parts.join(""), flattened };
}
