/**
 * The exact cache key of a tool input. Two inputs share a key only when they are the same input:
 * a string is kept as written (whitespace, quotes and line breaks count), and only object inputs
 * are canonicalised (keys sorted). When an object input arrived as JSON text, the key is built from
 * that text with every number literal kept as written, so `1.0` and `1`, or two 20-digit ids that
 * `JSON.parse` rounds to the same double, stay apart.
 */

/** Canonical JSON of a JSON text: keys sorted, no insignificant whitespace, number literals verbatim. Returns `undefined` when the text is not JSON. */
export function canonicalJsonText(text: string): string | undefined {
  const reader = new JsonCanonicalReader(text);
  try {
    const value = reader.readValue();
    reader.skipWhitespace();
    return reader.atEnd() ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Canonical JSON of a value: keys sorted, `undefined` members dropped (as `JSON.stringify` does),
 * BigInt written as its digits, cycles marked. Used for object inputs that arrived already parsed.
 */
export function canonicalJsonValue(value: unknown, seen: Set<unknown> = new Set()): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : JSON.stringify(String(value));
  if (typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (seen.has(value)) return '"[Circular]"';
  seen.add(value);
  try {
    if (Array.isArray(value)) return `[${value.map((item) => canonicalJsonValue(item, seen)).join(",")}]`;
    const json = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof json === "function") return canonicalJsonValue(json.call(value), seen);
    const entries = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJsonValue((value as Record<string, unknown>)[key], seen)}`);
    return `{${entries.join(",")}}`;
  } finally {
    seen.delete(value);
  }
}

/**
 * The default cache key of a call's input.
 *
 * @param toolInput - the prepared input the tool runs with
 * @param sourceText - the JSON text an object input was parsed from, when it arrived as text and
 *   no hook rewrote it (its number literals are then kept as written)
 */
export function exactInputKey(toolInput: unknown, sourceText?: string): string {
  if (typeof toolInput === "string") return `s${JSON.stringify(toolInput)}`;
  if (sourceText !== undefined) {
    const canonical = canonicalJsonText(sourceText);
    if (canonical !== undefined) return `j${canonical}`;
  }
  return `j${canonicalJsonValue(toolInput)}`;
}

/** A small JSON reader that writes canonical JSON as it reads (linear time, no recursion limit issues below 1000 levels). */
class JsonCanonicalReader {
  private index = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.index >= this.text.length;
  }

  skipWhitespace(): void {
    while (this.index < this.text.length && " \t\n\r".includes(this.text[this.index])) this.index += 1;
  }

  readValue(): string {
    this.skipWhitespace();
    const char = this.text[this.index];
    if (char === "{") return this.readObject();
    if (char === "[") return this.readArray();
    if (char === '"') return JSON.stringify(this.readString());
    for (const literal of ["true", "false", "null"]) {
      if (this.text.startsWith(literal, this.index)) {
        this.index += literal.length;
        return literal;
      }
    }
    return this.readNumber();
  }

  private enter(): void {
    this.depth += 1;
    if (this.depth > 1000) throw new Error("too deep");
  }

  private readObject(): string {
    this.enter();
    this.index += 1;
    const members: Array<[string, string]> = [];
    this.skipWhitespace();
    if (this.text[this.index] === "}") {
      this.index += 1;
      this.depth -= 1;
      return "{}";
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.index] !== '"') throw new Error("expected a key");
      const key = this.readString();
      this.skipWhitespace();
      if (this.text[this.index] !== ":") throw new Error("expected :");
      this.index += 1;
      const value = this.readValue();
      // Later duplicates win, as in JSON.parse.
      const existing = members.findIndex(([name]) => name === key);
      if (existing >= 0) members.splice(existing, 1);
      members.push([key, value]);
      this.skipWhitespace();
      const next = this.text[this.index];
      this.index += 1;
      if (next === "}") break;
      if (next !== ",") throw new Error("expected , or }");
    }
    this.depth -= 1;
    members.sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${members.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`;
  }

  private readArray(): string {
    this.enter();
    this.index += 1;
    const items: string[] = [];
    this.skipWhitespace();
    if (this.text[this.index] === "]") {
      this.index += 1;
      this.depth -= 1;
      return "[]";
    }
    for (;;) {
      items.push(this.readValue());
      this.skipWhitespace();
      const next = this.text[this.index];
      this.index += 1;
      if (next === "]") break;
      if (next !== ",") throw new Error("expected , or ]");
    }
    this.depth -= 1;
    return `[${items.join(",")}]`;
  }

  private readString(): string {
    const start = this.index;
    this.index += 1;
    while (this.index < this.text.length) {
      const char = this.text[this.index];
      if (char === "\\") this.index += 2;
      else if (char === '"') {
        this.index += 1;
        return JSON.parse(this.text.slice(start, this.index)) as string;
      } else this.index += 1;
    }
    throw new Error("unterminated string");
  }

  private readNumber(): string {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.index, this.index + 400));
    if (match === null) throw new Error("expected a value");
    this.index += match[0].length;
    return match[0];
  }
}
