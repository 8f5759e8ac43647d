import { MODEL_MESSAGES } from "./messages";

/**
 * Turns a successful tool result into the observation text (the executor's `formatObservation`
 * option replaces it). Strings pass through; `undefined`, `null` and blank strings become
 * "returned no data"; numbers, booleans and BigInts are printed; a `Date` becomes ISO-8601; bytes
 * are decoded as UTF-8; objects and arrays become JSON (circular references as `"[Circular]"`, an
 * object shared by several keys printed each time, BigInts as strings). Never returns `""`,
 * `"undefined"` or `"[object Object]"`; text longer than {@link DEFAULT_MAX_OBSERVATION_CHARS} is cut
 * with a marker.
 *
 * @param result - the tool's raw result
 * @param context - the tool name (for the "no data" message) and input
 * @returns the observation text
 * @example
 * ```ts
 * defaultFormatObservation({ temp: 18 }, { toolName: "weather", toolInput: "Paris" }); // '{"temp":18}'
 * ```
 */
export function defaultFormatObservation(result: unknown, context: { toolName: string; toolInput: unknown }): string {
  return ensureReadableObservation(boundLength(formatValue(result, context.toolName)), context.toolName);
}

/**
 * Longest observation {@link defaultFormatObservation} returns, in characters (UTF-16 code units);
 * longer text is cut with an explicit marker saying how much was left out. A safety net against a
 * tool flooding the prompt, not a condenser: give `formatObservation` the observation cleaner
 * (`@reins/observation-cleaner`) for budgets in tokens and structure-aware truncation.
 */
export const DEFAULT_MAX_OBSERVATION_CHARS = 50_000;

function boundLength(text: string): string {
  if (text.length <= DEFAULT_MAX_OBSERVATION_CHARS) return text;
  let cut = DEFAULT_MAX_OBSERVATION_CHARS;
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1; // do not split a surrogate pair
  return `${text.slice(0, cut)}${MODEL_MESSAGES.truncated(text.length - cut)}`;
}

function formatValue(result: unknown, toolName: string): string {
  if (result === undefined || result === null) return MODEL_MESSAGES.noData(toolName);
  switch (typeof result) {
    case "string":
      return result;
    case "number":
    case "boolean":
      return String(result);
    case "bigint":
      return result.toString();
    case "symbol":
    case "function":
      return MODEL_MESSAGES.unreadable(toolName);
    default:
      break;
  }
  if (result instanceof Date) return Number.isNaN(result.getTime()) ? MODEL_MESSAGES.unreadable(toolName) : result.toISOString();
  if (result instanceof Uint8Array) return new TextDecoder("utf-8").decode(result);
  // Objects on the path from the root to the current value: only a reference back to one of them
  // is circular (the same object reached twice through different keys is printed both times).
  const ancestors: object[] = [];
  try {
    const text = JSON.stringify(result, function (this: unknown, _key: string, value: unknown) {
      if (typeof value === "bigint") return value.toString();
      if (typeof value === "object" && value !== null) {
        while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
        if (ancestors.includes(value)) return "[Circular]";
        ancestors.push(value);
      }
      return value;
    });
    return text ?? MODEL_MESSAGES.unreadable(toolName);
  } catch {
    return MODEL_MESSAGES.unreadable(toolName);
  }
}

const UNREADABLE_TEXTS = new Set(["undefined", "[object object]", "null", "nan"]);

/**
 * Last guard before text reaches the model: a blank string, `"undefined"`, `"null"`, `"NaN"` or
 * `"[object Object]"` is replaced by a clear "no data" / "unreadable" message.
 *
 * @param text - a candidate observation (any value: a custom formatter may return a non-string)
 * @param toolName - named in the replacement message
 */
export function ensureReadableObservation(text: unknown, toolName: string): string {
  if (typeof text !== "string") return MODEL_MESSAGES.unreadable(toolName);
  const trimmed = text.trim();
  if (trimmed === "") return MODEL_MESSAGES.noData(toolName);
  const lowered = trimmed.toLowerCase();
  if (UNREADABLE_TEXTS.has(lowered)) {
    return lowered === "[object object]" ? MODEL_MESSAGES.unreadable(toolName) : MODEL_MESSAGES.noData(toolName);
  }
  return text;
}
