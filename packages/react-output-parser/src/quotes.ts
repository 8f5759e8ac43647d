/** Quotes wrapped around a whole value. */

const QUOTE_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['"', '"'],
  ["'", "'"],
  ["\u201c", "\u201d"],
  ["\u2018", "\u2019"],
  ["`", "`"],
];

/**
 * Removes one pair of quotes wrapping the whole text when the pair really wraps it: the same quote
 * does not occur unescaped inside. A lone opening quote on a one-line text with no closing quote
 * is removed too (an artifact); a lone closing quote is kept (it may belong to the value, e.g. SQL).
 *
 * @returns the text and the repair applied, if any
 */
export function stripWrappingQuotes(text: string): { text: string; repair?: string } {
  if (text.length < 1) return { text };
  for (const [open, close] of QUOTE_PAIRS) {
    if (!text.startsWith(open)) continue;
    if (text.length >= 2 && text.endsWith(close)) {
      const inner = text.slice(open.length, text.length - close.length);
      if (!containsUnescaped(inner, open) && !containsUnescaped(inner, close)) return { text: inner.trim(), repair: "wrapping_quotes_removed" };
      return { text };
    }
    if (open !== "`" && !text.includes("\n") && !containsUnescaped(text.slice(open.length), close)) {
      return { text: text.slice(open.length).trim(), repair: "unbalanced_quote_removed" };
    }
    return { text };
  }
  return { text };
}

function containsUnescaped(text: string, quoteCharacter: string): boolean {
  let from = 0;
  for (;;) {
    const index = text.indexOf(quoteCharacter, from);
    if (index < 0) return false;
    if (index === 0 || text[index - 1] !== "\\") return true;
    from = index + 1;
  }
}

