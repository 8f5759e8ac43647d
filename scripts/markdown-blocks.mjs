// The TypeScript code blocks of a Markdown file, with the markers scripts/check-docs.mjs reads
// (CONTRIBUTING.md, "Code in the docs"). Shared by check-docs.mjs and smoke.mjs (which copies the
// README quick start into an app).

export const TS_LANGS = new Set(["ts", "typescript", "mts", "tsx"]);
export const MARKERS = new Set(["run", "fragment", "postgres", "sqlite"]);
/** Markers naming a service a runnable block needs; the check starts it (CONTRIBUTING.md, "Code in the docs"). */
export const SERVICE_MARKERS = new Set(["postgres", "sqlite"]);
/** `file=<name>.ts`: the block is a module other blocks of the docs import as `./<name>`. */
const FILE_MARKER = /^file=([a-z0-9][a-z0-9-]*)\.ts$/;

/**
 * The fenced code blocks of one Markdown file.
 * @returns {{ file: string, line: number, lang: string, markers: string[], code: string, moduleName?: string, replay?: string[], problem?: string }[]}
 *   `line` is the 1-based line of the opening fence; `moduleName` is the `<name>` of a `file=<name>.ts` marker.
 */
export function extractBlocks(file, text) {
  const lines = text.split("\n");
  const blocks = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)\s*(.*)$/.exec(lines[index]);
    if (!open) continue;
    const [, indent, fence, lang, rest] = open;
    const body = [];
    let end = index + 1;
    while (end < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[end])) {
      body.push(lines[end].startsWith(indent) ? lines[end].slice(indent.length) : lines[end]);
      end += 1;
    }
    const words = rest.split(/\s+/).filter(Boolean);
    const block = { file, line: index + 1, lang: lang.toLowerCase(), markers: words.filter((word) => !word.startsWith("file=")), code: body.join("\n") };
    const named = words.filter((word) => word.startsWith("file="));
    if (end >= lines.length) block.problem = "the code block is never closed";
    index = end;
    if (!TS_LANGS.has(block.lang)) continue;
    const strange = block.markers.filter((marker) => !MARKERS.has(marker));
    if (strange.length > 0) block.problem = `unknown marker(s) ${strange.join(", ")} (known: ${[...MARKERS].join(", ")})`;
    if (block.markers.includes("run") && block.markers.includes("fragment")) block.problem = "a block cannot be both run and fragment";
    if (block.markers.some((marker) => SERVICE_MARKERS.has(marker)) && !block.markers.includes("run")) block.problem = `${block.markers.filter((marker) => SERVICE_MARKERS.has(marker)).join(", ")} marks a block that needs a service to run: mark it run too`;
    if (named.length > 1) block.problem = `more than one file= marker (${named.join(", ")})`;
    else if (named.length === 1) {
      const match = FILE_MARKER.exec(named[0]);
      if (match === null) block.problem = `${named[0]}: a file= marker names a module like file=agent.ts (lower case, digits, dashes)`;
      else block.moduleName = match[1];
    }
    // A `<!-- docs:replay [...] -->` comment ending on the line above the fence (blank lines allowed).
    let above = block.line - 2;
    while (above >= 0 && lines[above].trim() === "") above -= 1;
    if (above >= 0 && lines[above].trim().endsWith("-->")) {
      let start = above;
      while (start >= 0 && !lines[start].includes("<!--")) start -= 1;
      const comment = lines.slice(start, above + 1).join("\n");
      const replay = /<!--\s*docs:replay\s+([\s\S]*?)-->/.exec(comment);
      if (replay) {
        try {
          const outputs = JSON.parse(replay[1]);
          // Strings (ReAct text) and tool-calling turns `{ "toolCalls": [{ "name", "arguments" }], "content"? }`, as `reins-replay --outputs` takes them.
          const isTurn = (item) => typeof item === "object" && item !== null && Array.isArray(item.toolCalls) && item.toolCalls.every((call) => typeof call?.name === "string" && typeof call?.arguments === "string");
          if (!Array.isArray(outputs) || !outputs.every((item) => typeof item === "string" || isTurn(item))) throw new Error("not an array of strings and { toolCalls } turns");
          block.replay = outputs;
        } catch (error) {
          block.problem = `the docs:replay comment above it is not a JSON array of outputs (${error.message})`;
        }
        if (!block.markers.includes("run")) block.problem = "a docs:replay comment above a block not marked run";
      }
    }
    blocks.push(block);
  }
  return blocks;
}

