/** The visible marks `neutralizeUntrustedText` leaves in untrusted text. */

/** Quote marks around a neutralised label or key. */
export const NEUTRALIZED_OPEN = "\u00ab";
export const NEUTRALIZED_CLOSE = "\u00bb";
/** Written before a line that would still read as a control line. */
export const NEUTRALIZED_LINE_PREFIX = "| ";
/** Stands in for the `<` of a neutralised tag. */
export const NEUTRALIZED_TAG_OPEN = "\u2039";
