/**
 * Structured logs written as JSON lines (zap, pino, logrus, bunyan, Cloud Logging exports: one
 * `{"level": "info", "ts": …, "msg": …}` object per line, as `kubectl logs` prints them) read as
 * log lines, so the log condensation keeps their errors wherever they sit instead of a table's
 * first and last rows. Each line becomes `time LEVEL message key=value …`; values keep their
 * source text (numbers as written), nested values are written as compact JSON.
 */
import type { Notes } from "./decode";
import { parseJsonText } from "./json-text";
import { stringNode, scalarText, isScalar, type ScalarNode, type TreeNode } from "./tree";

const TIME_KEY = /^(?:ts|time|timestamp|@timestamp|t|date|datetime|eventTime|logged_at)$/i;
const LEVEL_KEY = /^(?:level|lvl|severity|log\.level|levelname|loglevel)$/i;
const MESSAGE_KEY = /^(?:msg|message|event|text|log)$/i;
/** pino's numeric levels. */
const PINO_LEVELS: Record<string, string> = { "10": "TRACE", "20": "DEBUG", "30": "INFO", "40": "WARN", "50": "ERROR", "60": "FATAL" };

function compact(node: TreeNode): string {
  if (isScalar(node)) return node.kind === "string" ? JSON.stringify(node.value) : scalarText(node as ScalarNode);
  if (node.kind === "array") return `[${node.items.map(compact).join(",")}]`;
  if (node.kind === "object") return `{${node.entries.map(([key, value]) => `${JSON.stringify(key)}:${compact(value)}`).join(",")}}`;
  return "[table]";
}

function lineOf(node: TreeNode): string | undefined {
  if (node.kind !== "object") return undefined;
  let time = "";
  let level = "";
  let message = "";
  const rest: string[] = [];
  for (const [key, value] of node.entries) {
    const text = isScalar(value) ? scalarText(value as ScalarNode) : compact(value);
    if (time === "" && TIME_KEY.test(key) && isScalar(value)) time = text;
    else if (level === "" && LEVEL_KEY.test(key) && isScalar(value)) level = (PINO_LEVELS[text] ?? text).toUpperCase();
    else if (message === "" && MESSAGE_KEY.test(key) && value.kind === "string") message = value.value;
    else rest.push(`${key}=${isScalar(value) && value.kind === "string" && !/[\s=]/.test(value.value) ? value.value : isScalar(value) && value.kind !== "string" ? text : compact(value)}`);
  }
  if (level === "" && message === "") return undefined;
  return [time, level, message, ...rest].filter((part) => part.length > 0).join(" ");
}

/**
 * The log lines of a JSON-lines log, or `undefined` when `text` is not one: at least 12 lines,
 * nine in ten of them a JSON object with a level or a message field.
 *
 * @param text - trimmed text that starts with `{`
 */
export function jsonLinesLog(text: string, notes: Notes): string | undefined {
  const lines = text.split("\n");
  if (lines.length < 12 || lines.length > 200_000) return undefined;
  const out: string[] = [];
  let objects = 0;
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed.startsWith("{") && trimmed.endsWith("}")) {
      const tree = parseJsonText(trimmed, notes, 16, (value) => stringNode(value));
      const written = tree === undefined ? undefined : lineOf(tree);
      if (written !== undefined) {
        objects += 1;
        out.push(written);
        continue;
      }
    }
    out.push(line);
  }
  if (objects < lines.length * 0.9) return undefined;
  notes.add(`read ${objects} JSON log lines as log lines (time, level, message, fields)`);
  return out.join("\n");
}
