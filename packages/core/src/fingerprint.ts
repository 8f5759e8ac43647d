/**
 * The observation fingerprint and the normalised tool-input key. Loop control compares
 * observations and actions with them; the observation cleaner reports the same fingerprint; the
 * tool executor's cache keys use the same normalisation. One definition, so all agree.
 */

/**
 * Serialises a value with object keys sorted, so `{a:1,b:2}` and `{b:2,a:1}` give the same text.
 * Strings inside are kept as written. Safe on circular references (`"[Circular]"`), `BigInt`
 * (`"123n"`), `undefined` (omitted in objects, `null` in arrays, as JSON does) and functions
 * (`"[Function]"`). Iterative depth is bounded by the value itself; recursion depth is capped at
 * 200 levels (deeper levels become `"[Deep]"`).
 *
 * @param value - any value
 * @returns a stable JSON-like string
 */
export function stableStringify(value: unknown): string {
  const seen = new Set<object>();
  const walk = (current: unknown, depth: number): string | undefined => {
    if (current === undefined) return undefined;
    if (current === null) return "null";
    switch (typeof current) {
      case "string":
        return JSON.stringify(current);
      case "number":
        return Number.isFinite(current) ? String(current) : JSON.stringify(String(current));
      case "boolean":
        return String(current);
      case "bigint":
        return JSON.stringify(`${current.toString()}n`);
      case "function":
        return JSON.stringify("[Function]");
      case "symbol":
        return JSON.stringify(current.toString());
      default:
        break;
    }
    if (depth > 200) return JSON.stringify("[Deep]");
    const object = current as object;
    if (seen.has(object)) return JSON.stringify("[Circular]");
    if (current instanceof Date) return JSON.stringify(Number.isNaN(current.getTime()) ? "Invalid Date" : current.toISOString());
    seen.add(object);
    try {
      if (Array.isArray(current)) {
        return `[${current.map((item) => walk(item, depth + 1) ?? "null").join(",")}]`;
      }
      if (current instanceof Map) {
        return walk(Object.fromEntries(current), depth + 1);
      }
      if (current instanceof Set) {
        return walk([...current], depth + 1);
      }
      const record = current as Record<string, unknown>;
      const parts: string[] = [];
      for (const key of Object.keys(record).sort()) {
        const text = walk(record[key], depth + 1);
        if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
      }
      return `{${parts.join(",")}}`;
    } finally {
      seen.delete(object);
    }
  };
  return walk(value, 0) ?? "null";
}

/**
 * Normalises a tool input for comparison: a string is trimmed, whitespace runs collapsed to one
 * space, and one pair of wrapping quotes removed; a string holding a JSON object or array is read
 * as that value; objects are serialised with sorted keys ({@link stableStringify}).
 * Letter case is kept (`"Paris"` and `"paris"` may differ for a tool).
 *
 * @param toolInput - the `toolInput` of an `AgentAction`, or a tool's argument
 * @returns a string key
 */
export function normalizeToolInput(toolInput: unknown): string {
  if (typeof toolInput === "string") {
    let text = toolInput.trim();
    const first = text[0];
    if ((first === "{" || first === "[") && text.length > 1) {
      try {
        return stableStringify(JSON.parse(text));
      } catch {
        // Not JSON: compare as text.
      }
    }
    if (text.length >= 2) {
      const last = text[text.length - 1];
      if ((first === '"' && last === '"') || (first === "'" && last === "'")) text = text.slice(1, -1).trim();
    }
    return text.replace(/\s+/g, " ");
  }
  return stableStringify(toolInput);
}

/**
 * The identity of an action: tool name plus normalised input.
 *
 * @param toolName - the tool's registered name
 * @param toolInput - the action's input
 */
export function actionKey(toolName: string, toolInput: unknown): string {
  return `${toolName}\u0000${normalizeToolInput(toolInput)}`;
}

/**
 * A short, stable fingerprint of an observation: whitespace collapsed, then 64-bit FNV-1a as
 * 16 hex characters. Equal observations give equal fingerprints; it is not a cryptographic hash.
 *
 * @param observation - the observation text (or any value, serialised with {@link stableStringify})
 * @returns 16 lower-case hex characters
 */
export function fingerprintObservation(observation: unknown): string {
  const text = (typeof observation === "string" ? observation : stableStringify(observation))
    .replace(/\s+/g, " ")
    .trim();
  // FNV-1a 64-bit over UTF-16 code units, with BigInt-free 32-bit halves.
  let high = 0xcbf29ce4;
  let low = 0x84222325;
  for (let index = 0; index < text.length; index += 1) {
    // `^` yields a signed 32-bit value: keep `low` unsigned so the carry below is right.
    low = (low ^ text.charCodeAt(index)) >>> 0;
    // Multiply the 64-bit (high, low) by the FNV prime 0x100000001b3.
    const lowTimesPrime = low * 0x1b3;
    const carry = Math.floor(lowTimesPrime / 0x100000000);
    const newLow = lowTimesPrime >>> 0;
    const newHigh = (high * 0x1b3 + (low << 8) + carry) >>> 0;
    low = newLow;
    high = newHigh;
  }
  return high.toString(16).padStart(8, "0") + (low >>> 0).toString(16).padStart(8, "0");
}
