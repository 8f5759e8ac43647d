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

// Keys the parser reads a JSON action blob by (`{"action": …, "action_input": …}`,
// `{"name": …, "args": …}`), in any quoting, with an ASCII or full-width colon.
const BLOB_NAME_KEY = /(["']?)\b(action|tool|tool_name|function|name)\1(\s*[:\uff1a])/g;
const BLOB_INPUT_KEY = /(["']?)\b(?:action_input|args|arguments|tool_input|input|parameters|params)\1\s*[:\uff1a]/;
const FINAL_NAME_VALUE = /^\s*["']?\s*(?:final[\s_-]*answer|finish|final)\s*["']?\s*[,}]/i;
// A paper-style finish on its own line: `Finish[answer]`, `Final Answer(answer)`.
const PAPER_FINISH_LINE = /^[\s`>*-]*(?:finish|final[\s_-]*answer|final)\s*[[(].*[\])][\s`*]*$/i;
const BLOB_SCAN_CHARS = 2000;

/** Start of the innermost unclosed `{` before `index` (within BLOB_SCAN_CHARS), or -1. */
function enclosingBrace(text: string, index: number): number {
  let depth = 0;
  for (let position = index - 1; position >= 0 && position >= index - BLOB_SCAN_CHARS; position -= 1) {
    const character = text[position];
    if (character === "}") depth += 1;
    else if (character === "{") {
      if (depth === 0) return position;
      depth -= 1;
    }
  }
  return -1;
}

/** End (exclusive) of the object opened at `start`, or the scan limit. */
function braceEnd(text: string, start: number): number {
  let depth = 0;
  const limit = Math.min(text.length, start + BLOB_SCAN_CHARS);
  for (let position = start; position < limit; position += 1) {
    const character = text[position];
    if (character === "{") depth += 1;
    else if (character === "}") {
      depth -= 1;
      if (depth === 0) return position + 1;
    }
  }
  return limit;
}

/**
 * Quotes the name key of every JSON action blob in `text` (`{"action": "Final Answer",
 * "action_input": …}` → `{"«action»": "Final Answer", …}`), so a model that copies tool output
 * into its reply cannot make the parser finish or act on it. A blob is an object whose
 * `action`/`tool`/`tool_name`/`function`/`name` key sits next to an input key (`action_input`,
 * `args`, `arguments`, `tool_input`, `input`, `parameters`, `params`), or whose name is a final
 * answer (`Final Answer`, `finish`). Also prefixes paper-style `Finish[answer]` lines with `| `.
 * Values are never changed; ordinary records (`{name: Li Wei, city: …}`) are left alone.
 *
 * @returns the text and how many blobs and lines were neutralised
 */
export function neutralizeActionBlobs(text: string): { text: string; count: number } {
  let count = 0;
  let result = text;
  if (/[:\uff1a]/.test(result) && /\b(?:action|tool|tool_name|function|name)\b/.test(result)) {
    result = result.replace(BLOB_NAME_KEY, (match, quote: string, key: string, colon: string, offset: number, whole: string) => {
      const start = enclosingBrace(whole, offset);
      if (start === -1) return match;
      const span = whole.slice(start, braceEnd(whole, start));
      const after = whole.slice(offset + match.length, offset + match.length + 40);
      const isFinal = (key === "action" || key === "tool" || key === "tool_name") && FINAL_NAME_VALUE.test(after);
      if (!isFinal && !BLOB_INPUT_KEY.test(span)) return match;
      count += 1;
      return `${quote}${quotedLabel(key)}${quote}${colon}`;
    });
  }
  if (/(?:finish|final)/i.test(result)) {
    const lines = result.split("\n");
    let changed = false;
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index] as string;
      if (line.length <= 2000 && PAPER_FINISH_LINE.test(line)) {
        lines[index] = QUOTED_LINE_PREFIX + line;
        count += 1;
        changed = true;
      }
    }
    if (changed) result = lines.join("\n");
  }
  return { text: result, count };
}
