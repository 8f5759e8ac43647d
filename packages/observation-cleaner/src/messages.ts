/**
 * Every string of this package that reaches the model, kept together so they can be reviewed in
 * one place. Short, factual, and never shaped like a ReAct label.
 */

/** The observation when a tool returned `null`, `undefined` or nothing at all. */
export const NO_DATA_TEXT = "The tool returned no data (null or undefined).";

/** The observation when a tool returned an empty or whitespace-only string. */
export const EMPTY_TEXT = "The tool returned an empty text.";

/** The observation when a tool returned an empty object or list. */
export function emptyContainerText(kind: "object" | "list" | "table"): string {
  return `The tool returned an empty ${kind}.`;
}

/** Marker left where characters of a text were cut out. */
export function omittedCharactersMarker(count: number): string {
  return `[${count} characters omitted]`;
}

/** Marker left where items of a list were cut out. */
export function moreItemsMarker(count: number): string {
  return `… ${count} more`;
}

/** Marker before the one-line identities of the records of a list whose detail was cut. */
export function identifiedItemsMarker(count: number, listed: number): string {
  return listed === count ? `… ${count} more, identifying fields only:` : `… ${count} more, identifying fields of ${listed} of them:`;
}

/** Marker left where rows of a table were cut out. */
export function moreRowsMarker(count: number): string {
  return `… ${count} more rows`;
}

/**
 * Start of the summary line of a table whose rows were cut: `3000 rows; showing 13`, and when
 * the middle of a very long list was counted but not read, which rows were read.
 */
export function tableSummaryHead(total: number, shown: number, read: number, firstRead: number | undefined): string {
  const head = `${total} rows; showing ${shown}`;
  return firstRead === undefined ? head : `${head}; ${read} read (the first ${firstRead} and the last ${read - firstRead}; the middle was counted, not read)`;
}

/** Which rows a table summary's figures cover: all of them, or only the rows read. */
export function tableSummaryScope(partial: boolean): string {
  return partial ? "over the rows read" : "over all rows";
}

/** Marker left where fields of an object were cut out. */
export function moreFieldsMarker(count: number): string {
  return `… ${count} more fields`;
}

/** Stand-in for an object that repeats an earlier one word for word. */
export function sameAsMarker(path: string): string {
  return `(same as ${path})`;
}

/**
 * Stand-in for nesting deeper than the cleaner reads, with the values found down there written
 * flat (`preview`), so what was deep is still in the observation.
 */
export function tooDeepMarker(depth: number, preview = ""): string {
  return preview.length > 0 ? `[nested deeper than ${depth} levels, flattened: ${preview}]` : `[nested deeper than ${depth} levels, omitted]`;
}

/** Note for elements of an HTML or XML document whose tags were removed past a nesting depth (their text kept). */
export function flattenedMarkupNote(count: number, depth: number): string {
  return `flattened ${count} element(s) nested deeper than ${depth} levels (their text kept)`;
}

/** Stand-in for a reference back to an enclosing object. */
export const CIRCULAR_MARKER = "[circular reference]";

/** Wraps a ReAct label found at a line start inside tool output, so it is read as quoted text. */
export function quotedLabel(labelText: string): string {
  return `«${labelText}»`;
}

/** Prefix for a line that still reads as a ReAct label after quoting its label. */
export const QUOTED_LINE_PREFIX = "| ";

/** Header before the status and error fields that were lifted above a cut structure. */
export const KEY_FIELDS_HEADER = "key fields";

/** The observation when an HTML page held no readable text. */
export const NO_READABLE_TEXT = "The tool returned an HTML page without readable text.";

/** The observation when the value defeated every reader (should not happen; kept as a last resort). */
export function unreadableValueText(preview: string): string {
  return `The tool returned a value that could not be read as text or data. Start of it: ${preview}`;
}

/** Marker between the first and last values of a flat preview. */
export function moreValuesMarker(count: number): string {
  return `… ${count} more values`;
}

/**
 * Joins preview parts within `maxChars`: all of them when they fit, else the first ones and the
 * last ones (the deepest values of a nested chain are often the payload) around a marker that
 * counts the rest, `unread` included (values never visited).
 */
export function joinHeadAndTail(parts: readonly string[], maxChars: number, unread = 0): string {
  const total = parts.reduce((sum, part) => sum + part.length + 2, 0);
  if (total <= maxChars && unread === 0) return parts.join(", ");
  const head: string[] = [];
  const tail: string[] = [];
  let room = Math.floor(maxChars * 0.6);
  let first = 0;
  for (; first < parts.length && (parts[first] as string).length + 2 <= room; first += 1) {
    head.push(parts[first] as string);
    room -= (parts[first] as string).length + 2;
  }
  room += Math.floor(maxChars * 0.4) - 24;
  let last = parts.length - 1;
  for (; last >= first && (parts[last] as string).length + 2 <= room; last -= 1) {
    tail.unshift(parts[last] as string);
    room -= (parts[last] as string).length + 2;
  }
  if (tail.length === 0 && last >= first && room >= 24) {
    // The last value alone is longer than the tail's room: its end, marked.
    const part = parts[last] as string;
    tail.push(`…${part.slice(part.length - room + 2)}`);
    last -= 1;
  }
  const omitted = last - first + 1 + unread;
  if (omitted <= 0) return [...head, ...tail].join(", ");
  return [...head, `${moreValuesMarker(omitted)} …`, ...tail].join(", ");
}

/**
 * Appended to an observation whose full result was kept in an artifact store: where the rest is,
 * and how to read it with the app's `read_artifact` tool.
 */
export function artifactNote(id: string, chars: number, lines: number, toolName: string): string {
  return `[Shortened. The full result is kept as artifact ${id} (${chars} characters, ${lines} lines): call ${toolName} with {"id": "${id}", "range": "1-200"} for lines, or {"id": "${id}", "find": "some text"} to find lines.]`;
}

/** Stand-in for the envelope of an empty list (`refunds: {object: list, data: [], total_count: 0}`). */
export const EMPTY_LIST_MARKER = "(an empty list)";
