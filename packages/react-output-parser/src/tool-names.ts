import { HARMONY_CHANNELS } from "@reins/core";

/**
 * Tool-name matching: exact first, then a safe normalisation accepted only when exactly one
 * registered tool matches, then (opt-in) fuzzy matching with the same uniqueness rule.
 */

/** How a written tool name was matched to a registered one. */
export type ToolNameMatch =
  | { readonly status: "exact"; readonly name: string }
  | { readonly status: "normalized"; readonly name: string; readonly repair: string }
  | { readonly status: "fuzzy"; readonly name: string }
  | { readonly status: "ambiguous"; readonly candidates: readonly string[] }
  | { readonly status: "unknown" };

const DECORATION = new Set(["*", "`", '"', "'", "\u201c", "\u201d", "\u2018", "\u2019", "[", "]", "<", ">", "(", ")", "{", "}"]);
const TRAILING_PUNCTUATION = new Set([".", ":", ",", ";", "!", "\uff1a", "\u3002"]);
const LEADING_VERBS = ["use ", "call ", "using ", "calling ", "tool name:", "tool:", "tool name "];
const MAX_NAME_CHARS = 200;
/** A harmony header word at the end of a normalised name (the content type, a channel name). */
const HARMONY_GLUED_WORD = new RegExp(`(?:json|${HARMONY_CHANNELS.join("|")})$`);

function isSeparator(character: string): boolean {
  return character === "-" || character === "_" || character === " " || character === "\t" || character === "." ;
}

/** Removes markdown escapes, wrapping decoration and trailing punctuation from a written name. */
export function stripNameDecoration(written: string): string {
  let text = written.trim();
  if (text.includes("\\")) text = text.replace(/\\([_*\-`])/g, "$1");
  let start = 0;
  let end = text.length;
  for (let pass = 0; pass < 3; pass += 1) {
    while (start < end && (DECORATION.has(text[start]) || text[start] === " ")) start += 1;
    while (end > start && (DECORATION.has(text[end - 1]) || TRAILING_PUNCTUATION.has(text[end - 1]) || text[end - 1] === " ")) end -= 1;
  }
  return text.slice(start, end);
}

/** Lower case, separators (`-`, `_`, space, `.`) collapsed to `_`, decoration removed. */
export function normalizeToolName(written: string): string {
  let text = stripNameDecoration(written).toLowerCase();
  for (const verb of LEADING_VERBS) {
    if (text.startsWith(verb)) {
      text = stripNameDecoration(text.slice(verb.length));
      break;
    }
  }
  if (text.startsWith("the ") && text.endsWith(" tool")) text = text.slice(4, -5);
  let result = "";
  let pendingSeparator = false;
  for (const character of text) {
    if (isSeparator(character)) {
      pendingSeparator = result.length > 0;
      continue;
    }
    if (pendingSeparator) result += "_";
    pendingSeparator = false;
    result += character;
  }
  return result;
}

const normalizedNames = new WeakMap<readonly string[], readonly string[]>();

/** The registered names normalised once per name list (lists are frozen by the parser's options). */
function normalizedToolNames(toolNames: readonly string[]): readonly string[] {
  let cached = normalizedNames.get(toolNames);
  if (cached === undefined) {
    cached = toolNames.map((name) => normalizeToolName(name));
    if (Object.isFrozen(toolNames)) normalizedNames.set(toolNames, cached);
  }
  return cached;
}

function levenshtein(left: string, right: string, limit: number): number {
  if (Math.abs(left.length - right.length) > limit) return limit + 1;
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    let rowMin = row;
    for (let column = 1; column <= right.length; column += 1) {
      const cost = left[row - 1] === right[column - 1] ? 0 : 1;
      const value = Math.min(previous[column] + 1, current[column - 1] + 1, previous[column - 1] + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[right.length];
}

/**
 * Matches a written tool name against the registered names: exact, then without decoration, then
 * normalised (case, separators `-`/`_`/space/`.`, a leading "use"/"call"/"tool:", "the … tool"), then with
 * separators dropped (`getWeather` for `get_weather`), then "… tool", then without a gpt-oss
 * harmony header word glued after it (`get_weatherjson`, `get_weathercommentary`: the content type
 * written without `<|constrain|>`, a channel left after a control token); each accepted only when
 * exactly one registered name matches.
 *
 * @param written - the text after `Action:` (one line)
 * @param toolNames - the registered names
 * @param fuzzyMaxDistance - edit distance allowed for fuzzy matching (on normalised names); 0 turns it off
 */
export function matchToolName(written: string, toolNames: readonly string[], fuzzyMaxDistance: number): ToolNameMatch {
  const trimmed = written.trim();
  if (toolNames.includes(trimmed)) return { status: "exact", name: trimmed };
  if (trimmed.length === 0 || trimmed.length > MAX_NAME_CHARS) return { status: "unknown" };
  const stripped = stripNameDecoration(trimmed);
  if (stripped !== trimmed && toolNames.includes(stripped)) return { status: "normalized", name: stripped, repair: "tool_name_decoration" };
  const normalized = normalizeToolName(trimmed);
  if (normalized.length === 0) return { status: "unknown" };
  const registered = normalizedToolNames(toolNames);
  const matches = toolNames.filter((_name, index) => registered[index] === normalized);
  if (matches.length === 1) return { status: "normalized", name: matches[0], repair: "tool_name_normalized" };
  if (matches.length > 1) return { status: "ambiguous", candidates: matches };
  // Separators dropped altogether: camelCase and run-together names ("getWeather", "websearch").
  const compact = normalized.replace(/_/g, "");
  const compactMatches = toolNames.filter((_name, index) => registered[index].replace(/_/g, "") === compact);
  if (compactMatches.length === 1) return { status: "normalized", name: compactMatches[0], repair: "tool_name_normalized" };
  if (compactMatches.length > 1) return { status: "ambiguous", candidates: compactMatches };
  // "Calculator tool": the word "tool" after exactly one registered name.
  if (normalized.endsWith("_tool")) {
    const withoutSuffix = normalized.slice(0, -5);
    const suffixMatches = toolNames.filter((_name, index) => registered[index] === withoutSuffix);
    if (suffixMatches.length === 1) return { status: "normalized", name: suffixMatches[0], repair: "tool_name_normalized" };
  }
  // gpt-oss harmony's header words glued to the name: the content type without `<|constrain|>`
  // (`get_weatherjson`), or a channel left after a control token was removed (`get_weather<|channel|>commentary`).
  const glued = HARMONY_GLUED_WORD.exec(normalized);
  if (glued !== null && glued.index > 0) {
    const withoutWord = normalized.slice(0, glued.index).replace(/_$/, "");
    const gluedMatches = toolNames.filter((_name, index) => registered[index] === withoutWord || registered[index].replace(/_/g, "") === withoutWord.replace(/_/g, ""));
    if (gluedMatches.length === 1) return { status: "normalized", name: gluedMatches[0], repair: "tool_name_harmony_word" };
  }
  if (fuzzyMaxDistance > 0) {
    let best: string[] = [];
    let bestDistance = fuzzyMaxDistance + 1;
    for (const [index, name] of toolNames.entries()) {
      const distance = levenshtein(normalized, registered[index], fuzzyMaxDistance);
      if (distance < bestDistance) {
        best = [name];
        bestDistance = distance;
      } else if (distance === bestDistance) {
        best.push(name);
      }
    }
    if (bestDistance <= fuzzyMaxDistance && best.length === 1) return { status: "fuzzy", name: best[0] };
    if (bestDistance <= fuzzyMaxDistance && best.length > 1) return { status: "ambiguous", candidates: best };
  }
  return { status: "unknown" };
}

function isWordCharacter(character: string | undefined): boolean {
  return character !== undefined && /[\p{L}\p{N}_]/u.test(character);
}

/** Whether `name` occurs in `text` (case-insensitive) as a whole word. */
export function containsWord(textLower: string, name: string): boolean {
  const needle = name.toLowerCase();
  if (needle.length === 0) return false;
  let from = 0;
  for (;;) {
    const index = textLower.indexOf(needle, from);
    if (index < 0) return false;
    if (!isWordCharacter(textLower[index - 1]) && !isWordCharacter(textLower[index + needle.length])) return true;
    from = index + 1;
  }
}

/**
 * Suggests the registered tool a rejected name most likely meant: the only registered name that
 * occurs in the written text as a word, or the only one the written text is a prefix of.
 */
export function suggestToolName(writtenText: string, toolNames: readonly string[]): string | undefined {
  const written = writtenText.slice(0, MAX_NAME_CHARS * 2);
  const lower = written.toLowerCase();
  const mentioned = toolNames.filter((name) => containsWord(lower, name));
  if (mentioned.length === 1) return mentioned[0];
  const normalized = normalizeToolName(written);
  if (normalized.length >= 3) {
    const prefixed = toolNames.filter((name) => normalizeToolName(name).startsWith(normalized));
    if (prefixed.length === 1) return prefixed[0];
  }
  return undefined;
}
