/** Line and character helpers shared by the reading stages (loops, no end-anchored regexes). */

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

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Removes the given characters from both ends (a loop, not an end-anchored regex). */
export function trimCharacters(text: string, characters: ReadonlySet<string>): string {
  let start = 0;
  let end = text.length;
  while (start < end && characters.has(text[start])) start += 1;
  while (end > start && characters.has(text[end - 1])) end -= 1;
  return text.slice(start, end);
}
