/** Line and character helpers shared by the reading stages (loops, no end-anchored regexes). */

import { isRecord } from "@reins/core";

export function hasText(lines: readonly string[], from: number): boolean {
  for (let index = from; index < lines.length; index += 1) if (!isBlank(lines[index])) return true;
  return false;
}

export function isBlank(line: string): boolean {
  for (let index = 0; index < line.length; index += 1) {
    const code = line.charCodeAt(index);
    if (code !== 32 && code !== 9 && code !== 13 && code !== 0xa0 && code !== 0x3000) return false;
  }
  return true;
}

export function trimBlankLines(lines: readonly string[]): string {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start].trim().length === 0) start += 1;
  while (end > start && lines[end - 1].trim().length === 0) end -= 1;
  return lines.slice(start, end).join("\n");
}

/** True for a non-null object that is not an array (core's `isRecord`, under the name this package's readers use). */
export const isPlainObject = isRecord;

/** Removes the given characters from both ends (a loop, not an end-anchored regex). */
export function trimCharacters(text: string, characters: ReadonlySet<string>): string {
  let start = 0;
  let end = text.length;
  while (start < end && characters.has(text[start])) start += 1;
  while (end > start && characters.has(text[end - 1])) end -= 1;
  return text.slice(start, end);
}
