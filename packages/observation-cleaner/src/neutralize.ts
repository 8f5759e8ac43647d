/**
 * Neutralises ReAct control lines inside tool output, using `@reins/core`'s `matchReActLabel`: the
 * very grammar the parser reads model text with. A line that would read as `Final Answer:`,
 * `Action:`, `Action Input:`, `Observation:`, `Thought:` or `Question:` has its label quoted
 * (`«Final Answer»: …`), so a web page cannot end or steer the run.
 */
import { matchReActLabel, type ReActLabelSet } from "@reins/core";
import { QUOTED_LINE_PREFIX, quotedLabel } from "./messages";

/** The result of neutralising a text. */
export interface NeutralizedText {
  readonly text: string;
  /** The labels found, as written (e.g. `Final Answer`, `**Action 2**`). */
  readonly labels: readonly string[];
}

/**
 * Quotes every line-start ReAct label in `text`.
 *
 * @param text - tool output
 * @param labels - the label grammar (the parser's)
 */
export function neutralizeControlLines(text: string, labels: ReActLabelSet): NeutralizedText {
  const found: string[] = [];
  const lines = text.split("\n");
  let changed = false;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] as string;
    // Fast path: a label needs a colon (ASCII or full-width) on the line.
    if (!line.includes(":") && !line.includes("\uff1a")) continue;
    const match = matchReActLabel(line, labels);
    if (match === undefined) continue;
    const labelStart = line.indexOf(match.labelText);
    const colonIndex = match.valueOffset - 1;
    let rewritten = line;
    if (labelStart !== -1) {
      // Everything before the colon (markdown, label, step number) is quoted as one piece.
      let colon = colonIndex;
      while (colon > labelStart && line[colon] !== ":" && line[colon] !== "\uff1a") colon -= 1;
      rewritten = `${line.slice(0, labelStart)}${quotedLabel(line.slice(labelStart, colon).trim())}${line.slice(colon)}`;
    }
    if (matchReActLabel(rewritten, labels) !== undefined) rewritten = QUOTED_LINE_PREFIX + rewritten;
    if (matchReActLabel(rewritten, labels) !== undefined) rewritten = `${QUOTED_LINE_PREFIX}${line.replace(/[:\uff1a]/g, " -")}`;
    found.push(match.labelText);
    lines[index] = rewritten;
    changed = true;
  }
  return { text: changed ? lines.join("\n") : text, labels: found };
}
