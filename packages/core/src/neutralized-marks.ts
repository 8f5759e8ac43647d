/** The visible marks `neutralizeUntrustedText` leaves in untrusted text. */

/** Quote marks around a neutralised label or key. */
export const NEUTRALIZED_OPEN = "\u00ab";
export const NEUTRALIZED_CLOSE = "\u00bb";
/** Written before a line that would still read as a control line. */
export const NEUTRALIZED_LINE_PREFIX = "| ";
/** Stands in for the `<` of a neutralised tag. */
export const NEUTRALIZED_TAG_OPEN = "\u2039";

/**
 * `text` with the neutraliser's marks undone (`‹` back to `<`, `«` `»` removed, the `| ` line
 * prefix removed): what a model that drops the marks when it copies the text writes. The
 * provenance check reads untrusted text this way too.
 */
export function withoutNeutralizedMarks(text: string): string {
  if (!text.includes(NEUTRALIZED_TAG_OPEN) && !text.includes(NEUTRALIZED_OPEN) && !text.includes(NEUTRALIZED_CLOSE) && !text.includes(NEUTRALIZED_LINE_PREFIX)) return text;
  return text.replaceAll(NEUTRALIZED_TAG_OPEN, "<").replaceAll(NEUTRALIZED_OPEN, "").replaceAll(NEUTRALIZED_CLOSE, "").replace(/^\| /gm, "");
}
