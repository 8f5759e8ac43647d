/** Calls written inline: `Tool[input]` (ReAct paper), `tool(input)`, and Python keyword arguments. */

/** A call written inline on the Action line: `Tool[input]` (ReAct paper) or `tool(input)`. */
export interface InlineCall {
  readonly name: string;
  readonly input: string;
  readonly style: "bracket" | "parenthesis";
}

/**
 * Reads `Tool[input]` or `tool(input)`: the name runs to the first bracket, the input to the last
 * matching closing bracket at the end of the text (inner brackets are kept).
 */
export function readInlineCall(text: string): InlineCall | undefined {
  const trimmed = text.trim();
  for (const [open, close, style] of [["[", "]", "bracket"], ["(", ")", "parenthesis"]] as const) {
    const openIndex = trimmed.indexOf(open);
    if (openIndex <= 0 || !trimmed.endsWith(close)) continue;
    const name = trimmed.slice(0, openIndex).trim();
    if (name.length === 0 || name.length > 100) continue;
    return { name, input: trimmed.slice(openIndex + 1, trimmed.length - 1).trim(), style };
  }
  return undefined;
}

/**
 * Reads Python-style keyword arguments (`city="Paris", days=3`) into an object, or `undefined` when
 * the text is not of that shape. Values are JSON-parsed when they can be (numbers, booleans, quoted
 * strings), else kept as text.
 */
export function parseKeywordArguments(text: string): Record<string, unknown> | undefined {
  if (text.length > 10_000 || !/^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(text)) return undefined;
  const result: Record<string, unknown> = {};
  const parts: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (const character of text) {
    if (quote !== undefined) {
      current += character;
      if (character === quote) quote = undefined;
      continue;
    }
    if (character === '"' || character === "'") {
      quote = character;
      current += character;
      continue;
    }
    if (character === ",") {
      parts.push(current);
      current = "";
      continue;
    }
    current += character;
  }
  parts.push(current);
  for (const part of parts) {
    const equals = part.indexOf("=");
    if (equals <= 0) return undefined;
    const key = part.slice(0, equals).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return undefined;
    const raw = part.slice(equals + 1).trim();
    result[key] = keywordValue(raw);
  }
  return result;
}

function keywordValue(raw: string): unknown {
  if (raw === "True") return true;
  if (raw === "False") return false;
  if (raw === "None") return null;
  if (raw.length >= 2 && raw[0] === "'" && raw[raw.length - 1] === "'") return raw.slice(1, -1);
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
