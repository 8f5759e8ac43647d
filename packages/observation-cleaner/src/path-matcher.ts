/** Keep/drop field path patterns (`CleanObservationOptions.keep` and `.drop`). */
function globToRegExpSource(segment: string): string {
  return segment.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^.]*");
}

/** Matches dotted field paths against keep/drop patterns (see `CleanObservationOptions.keep`). */
export class PathMatcher {
  private readonly expressions: RegExp[];

  constructor(patterns: readonly string[]) {
    this.expressions = patterns.map((pattern) => {
      const anchored = pattern.startsWith("$.");
      const body = (anchored ? pattern.slice(2) : pattern)
        .split(".")
        .map((segment) => (segment === "**" ? ".*" : globToRegExpSource(segment)))
        .join("\\.")
        .replace(/\\\.\.\*\\\./g, "(?:\\..*\\.|\\.)");
      return new RegExp(anchored ? `^${body}$` : `(?:^|\\.)${body}$`);
    });
  }

  get isEmpty(): boolean {
    return this.expressions.length === 0;
  }

  matches(path: string): boolean {
    for (const expression of this.expressions) if (expression.test(path)) return true;
    return false;
  }
}
