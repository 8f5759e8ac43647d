/** Code fences around values (```lang … ```, ``, ~~~). */
import { trimCharacters } from "./text-lines";

const NOT_A_FENCE = Object.freeze({ isFence: false, rest: "" });

/** Cheap check: the first non-space character is a backtick or a tilde. */
function mayBeFence(line: string): boolean {
  for (let index = 0; index < line.length; index += 1) {
    const code = line.charCodeAt(index);
    if (code === 32 || code === 9) continue;
    return code === 96 || code === 126;
  }
  return false;
}

/** Whether a line (trimmed) is a code-fence marker (```lang, ``, ~~~). */
export function fenceMarker(line: string): { readonly isFence: boolean; readonly rest: string } {
  if (!mayBeFence(line)) return NOT_A_FENCE;
  const trimmed = line.trim();
  if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) return { isFence: true, rest: trimmed.slice(3) };
  if (trimmed.startsWith("``") && !trimmed.startsWith("```")) return { isFence: true, rest: trimmed.slice(2) };
  return { isFence: false, rest: trimmed };
}

/** Whether a fence line is bare (no language tag and nothing else): a closing fence. */
export function isBareFence(line: string): boolean {
  if (!mayBeFence(line)) return false;
  const marker = fenceMarker(line);
  return marker.isFence && marker.rest.replace(/[`~]/g, "").trim().length === 0;
}

const NEWLINES = new Set(["\n", "\r"]);

/**
 * Removes a code fence wrapped around the whole text: the opening line (```lang) and, when present,
 * the last closing fence.
 *
 * @returns the inner text, or `undefined` when the text does not start with a fence
 */
export function unwrapCodeFence(text: string): string | undefined {
  const trimmed = text.trim();
  const marker = fenceMarker(trimmed.slice(0, trimmed.indexOf("\n") < 0 ? trimmed.length : trimmed.indexOf("\n")));
  if (!marker.isFence) return undefined;
  const newline = trimmed.indexOf("\n");
  // A one-line fence: ```code```
  if (newline < 0) {
    const inner = trimmed.replace(/^(`{2,3}|~~~)/, "").replace(/(`{2,3}|~~~)$/, "");
    return inner.trim();
  }
  let body = trimmed.slice(newline + 1);
  const lastNewline = body.lastIndexOf("\n");
  const lastLine = lastNewline < 0 ? body : body.slice(lastNewline + 1);
  if (isBareFence(lastLine)) body = lastNewline < 0 ? "" : body.slice(0, lastNewline);
  else if (body.trimEnd().endsWith("```")) body = body.trimEnd().slice(0, -3);
  return trimCharacters(body, NEWLINES);
}

