/** Echoes instead of values: "no action" words, prompt placeholders, and argument schemas echoed back. */
import { trimCharacters } from "./text-lines";

const NO_OP_DECORATION = new Set(["*", "`", '"', "'", "_", ".", " ", "\t"]);

const NO_OP_PREFIXES = ["none", "n/a", "no tool", "no action", "no tools", "not applicable", "nothing"];
const NO_OP_ACTIONS = new Set(["-", "--", "\u2013", "\u2014", "\u2026", "...", "nil", "empty", "skip", "无", "なし",  "n/a", "na", "no action", "no tool", "nothing", "null", "no", "no tool needed", "no action needed", "not applicable", "no_action", "no-op", "noop"]);

/**
 * Whether an Action value means "no action" (`None`, `N/A`, `-`, `—`, `nothing`, `None: reason`,
 * `None (no tool needed)`).
 */
export function isNoOpAction(written: string): boolean {
  if (written.length > 200) return false;
  const cleaned = trimCharacters(written, NO_OP_DECORATION).toLowerCase();
  if (NO_OP_ACTIONS.has(cleaned)) return true;
  for (const prefix of NO_OP_PREFIXES) {
    if (cleaned.startsWith(prefix) && !/[\p{L}\p{N}_]/u.test(cleaned[prefix.length] ?? "")) return true;
  }
  for (const separator of [":", "(", " -", ",", " \u2014"]) {
    const index = cleaned.indexOf(separator);
    if (index > 0 && NO_OP_ACTIONS.has(cleaned.slice(0, index).trim())) return true;
  }
  return false;
}

const PROMPT_ECHO_ACTION_PREFIXES = ["one of", "should be one of", "the action to take", "the name of the tool", "name of the tool", "the tool to use", "tool name", "<tool", "[tool", "{tool"];

const PROMPT_ECHO_FIRST_CHARACTERS = new Set(["t", "T", "w", "W", "<", "i", "I"]);
const PROMPT_ECHO_INPUTS = new Set(["the input to the action", "what to send to the tool", "the input for the tool", "<input>", "<the input for the tool>", "the action input", "input to the action", "<tool input>"]);

/** Lengths a placeholder can have (with one trailing period or space): a cheap first filter. */
const PROMPT_ECHO_LENGTHS = new Set([...PROMPT_ECHO_INPUTS].flatMap((phrase) => [phrase.length, phrase.length + 1]));

/** Whether an Action Input is a template placeholder from the prompt ("the input to the action"). */
export function isPromptEchoInput(text: string): boolean {
  if (!PROMPT_ECHO_LENGTHS.has(text.length) || !PROMPT_ECHO_FIRST_CHARACTERS.has(text[0])) return false;
  return PROMPT_ECHO_INPUTS.has(text.trim().toLowerCase().replace(/[.\s]+$/, ""));
}

/** Whether an Action value is a template placeholder from the prompt ("one of [search]", "the action to take"). */
export function isPromptEchoAction(written: string): boolean {
  if (written.length > 300) return false;
  const lower = written.trim().toLowerCase();
  if (lower.includes("{tool_names}")) return true;
  return PROMPT_ECHO_ACTION_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/**
 * Whether a parsed input is a tool's argument schema echoed back (`{type: "object", properties}`,
 * or every argument given as `{type, description}`) rather than argument values.
 */
export function isSchemaEcho(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  if (record.type === "object" && (typeof record.properties === "object" || Array.isArray(record.required))) return true;
  if (isSchemaDocument(record)) return true;
  if (isToolDefinition(record)) return true;
  // One field's schema echoed as the value ({'title': 'Query', 'type': 'string'}, a Python repr).
  if (isSchemaField(record) && ("title" in record || "description" in record) && typeof record.type === "string") return true;
  const entries = Object.entries(record);
  if (entries.length === 0) return false;
  // The example of a correction pasted back ({"city": "<string>"}), or type names as values ({"city": "string"}).
  if (entries.every(([, field]) => typeof field === "string" && (PLACEHOLDER.test(field.trim()) || VALUE_TYPE_NAMES.has(field.trim().toLowerCase())))) return true;
  return entries.every(([, field]) => isSchemaField(field));
}

/** A placeholder as prompts and corrections write them: `<string>`, `<the city>`. */
const PLACEHOLDER = /^<[^<>\n]{1,40}>$/;
/** Type names that are no argument value when they stand alone as one. */
const VALUE_TYPE_NAMES = new Set(["string", "str", "integer", "int", "number", "float", "boolean", "bool"]);
/** Keys a tool definition carries its argument schema under (OpenAI, Anthropic, MCP, LangChain). */
const DEFINITION_SCHEMA_KEYS = ["parameters", "input_schema", "inputSchema", "args_schema", "schema"];

/** A whole tool definition pasted as the input: `{"name": "x", "parameters": {"type": "object", …}}`, or `{"type": "function", "function": {…}}`. */
function isToolDefinition(record: Record<string, unknown>): boolean {
  if (record.type === "function" && typeof record.function === "object" && record.function !== null) return isToolDefinition(record.function as Record<string, unknown>);
  if (typeof record.name !== "string") return false;
  return DEFINITION_SCHEMA_KEYS.some((key) => {
    const schema = record[key];
    return typeof schema === "object" && schema !== null && !Array.isArray(schema) && ((schema as Record<string, unknown>).type === "object" || isSchemaDocument(schema as Record<string, unknown>));
  });
}

/** Keys of a JSON-schema document besides `properties` (a schema without `"type": "object"`). */
const SCHEMA_DOCUMENT_KEYS = new Set(["type", "title", "description", "required", "additionalProperties", "$schema", "definitions", "$defs"]);

/**
 * A JSON-schema object document echoed without `"type": "object"`: `{"properties": {...}}` where
 * every property is a schema field, and any other key is a schema keyword (`required`, `title`, …).
 * Real arguments named `properties` (`{"database_id": …, "properties": {"Status": "Done"}}`) hold
 * values, not schema fields, so they are not mistaken for it.
 */
function isSchemaDocument(record: Record<string, unknown>): boolean {
  const properties = record.properties;
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return false;
  if (!Object.keys(record).every((key) => key === "properties" || SCHEMA_DOCUMENT_KEYS.has(key))) return false;
  const fields = Object.values(properties);
  if (fields.length === 0) return Array.isArray(record.required) || typeof record.type === "string";
  return fields.every((field) => isSchemaField(field));
}

const SCHEMA_KEYWORDS = new Set(["type", "description", "title", "default", "enum", "items", "properties", "required", "examples", "format", "minimum", "maximum", "anyOf", "oneOf"]);
const SCHEMA_TYPE_NAMES = new Set(["string", "str", "integer", "int", "number", "float", "boolean", "bool", "object", "dict", "array", "list", "null", "any"]);

function isSchemaField(field: unknown): boolean {
  if (typeof field !== "object" || field === null || Array.isArray(field)) return false;
  const keys = Object.keys(field);
  if (keys.length === 0 || !keys.every((key) => SCHEMA_KEYWORDS.has(key))) return false;
  const type = (field as Record<string, unknown>).type;
  const typeIsName = typeof type === "string" && SCHEMA_TYPE_NAMES.has(type.toLowerCase());
  // An optional field as pydantic writes it: {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}.
  const union = (field as Record<string, unknown>).anyOf ?? (field as Record<string, unknown>).oneOf;
  const unionOfTypes = Array.isArray(union) && union.length > 0 && union.every((member) => isSchemaField(member));
  return typeIsName || unionOfTypes || (keys.includes("description") && keys.includes("type"));
}


/** Python's type names as an annotation writes them (`str`, `Optional[int]`, `typing.List[str]`). */
const PYTHON_TYPE_NAMES = new Set(["str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set", "any", "none", "nonetype", "object", "optional", "union", "literal", "annotated", "sequence", "mapping", "iterable"]);
/** Reprs only a schema has: pydantic's field objects, a class, a tool's `args_schema`. */
const PYTHON_SCHEMA_REPR = /\b(?:FieldInfo|ModelField|ModelPrivateAttr)\(|<class '[\w.]+'>|\bargs_schema\s*=|\bannotation\s*=\s*[\w.[\]]+/;
const MAX_REPR_CHARS = 2_000;

/** A Python type annotation: names from {@link PYTHON_TYPE_NAMES}, subscripted or joined by `|`. */
function isPythonType(text: string): boolean {
  // The subscripts (`[str]`, `Literal['a', 'b']`) are dropped: the names outside them decide.
  let outer = text;
  for (let pass = 0; pass < 8 && outer.includes("["); pass += 1) outer = outer.replace(/\[[^[\]]*\]/g, "");
  const words = outer.split(/[\s|]+/).filter((word) => word.length > 0);
  return words.length > 0 && words.every((word) => PYTHON_TYPE_NAMES.has(word.replace(/^typing\./, "").toLowerCase()));
}

/** `text` split on commas outside brackets. */
function topLevelParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (character === "[" || character === "(" || character === "{") depth += 1;
    else if (character === "]" || character === ")" || character === "}") depth -= 1;
    else if (character === "," && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}

/**
 * Whether an Action Input is a Python repr of the tool's argument schema rather than values:
 * pydantic's `FieldInfo(annotation=str, required=True)`, a `<class 'str'>`, `args_schema=…`, or
 * the tool's fields as a Python signature (`query: str`, `SearchInput(query: str, limit: int = 5)`,
 * `(query: str) -> str`) naming only fields the tool has. The dict reprs
 * (`{'query': {'title': 'Query', 'type': 'string'}}`) are read as JSON and caught by {@link isSchemaEcho}.
 *
 * @param text - the Action Input as written
 * @param fields - the tool's argument names (the signature form needs them)
 */
export function isPythonSchemaRepr(text: string, fields: readonly string[]): boolean {
  if (text.length > MAX_REPR_CHARS) return false;
  if (PYTHON_SCHEMA_REPR.test(text)) return true;
  if (fields.length === 0 || !text.includes(":")) return false;
  // Name(…) or (…) -> type around the fields.
  let body = text.trim().replace(/\s*->\s*[\w.[\], |]+$/, "");
  const call = /^[A-Za-z_][\w.]*\s*\(([\s\S]*)\)$/.exec(body) ?? /^\(([\s\S]*)\)$/.exec(body) ?? /^\{([\s\S]*)\}$/.exec(body);
  if (call !== null) body = call[1] as string;
  const parts = topLevelParts(body);
  if (parts.length === 0) return false;
  return parts.every((part) => {
    const match = /^['"]?([A-Za-z_]\w*)['"]?\s*:\s*([^=]+?)(?:\s*=\s*[\s\S]+)?$/.exec(part);
    return match !== null && fields.includes(match[1] as string) && isPythonType(match[2] as string);
  });
}
