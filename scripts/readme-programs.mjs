// What scripts/smoke.mjs follows literally: the install lines of the README's "Install before the
// first release" section (one per LangChain line) and the programs a newcomer copies — the quick
// start (ES module and CommonJS), the createAgent quick start, the fakeModel() example and the
// first snippet of packages/agent-middleware/README.md — each with the scripted replies of the
// `<!-- docs:replay [...] -->` comment above it. Every lookup fails with the file and what is missing.
import { readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./lib.mjs";

/** The import a 0.3 app changes, as the quick starts' comments say; and what it becomes. */
export const IMPORT_SWAPS = [
  { from: `import { AgentExecutor } from "@langchain/classic/agents"; // LangChain 0.3: from "langchain/agents"`, to: `import { AgentExecutor } from "langchain/agents";` },
  { from: `const { AgentExecutor } = require("@langchain/classic/agents"); // LangChain 0.3: require("langchain/agents")`, to: `const { AgentExecutor } = require("langchain/agents");` },
];

class ReadmeError extends Error {}

/** The fenced blocks of a Markdown text: lang, the opening line (1-based), code, and the replay outputs above it. */
function fencedBlocks(file, text) {
  const lines = text.split("\n");
  const blocks = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(`{3,})\s*(\S*)\s*(.*)$/.exec(lines[index]);
    if (!open) continue;
    let end = index + 1;
    while (end < lines.length && !new RegExp(`^${open[1]}\\s*$`).test(lines[end])) end += 1;
    const block = { file, line: index + 1, lang: open[2], markers: open[3].split(/\s+/).filter(Boolean), code: lines.slice(index + 1, end).join("\n") };
    let above = index - 1;
    while (above >= 0 && lines[above].trim() === "") above -= 1;
    const replay = above >= 0 ? /^<!--\s*docs:replay\s+([\s\S]*?)-->\s*$/.exec(lines[above].trim()) : null;
    if (replay) {
      try {
        block.replay = JSON.parse(replay[1]);
      } catch (error) {
        throw new ReadmeError(`${file}:${above + 1}: the docs:replay comment is not JSON (${error.message})`);
      }
    }
    blocks.push(block);
    index = end;
  }
  return blocks;
}

function read(relative) {
  return readFileSync(path.join(repoRoot, relative), "utf8");
}

/** The line index of the first heading matching `pattern`, or a ReadmeError. */
function headingLine(file, text, pattern) {
  const line = text.split("\n").findIndex((textLine) => pattern.test(textLine));
  if (line === -1) throw new ReadmeError(`${file}: no heading matching ${pattern}`);
  return line + 1;
}

/** The first block after `heading` (and before the next heading of the same level or higher) matching `accept`. */
function blockUnder(file, text, heading, accept, what) {
  const start = headingLine(file, text, heading);
  const level = /^#+/.exec(text.split("\n")[start - 1])[0].length;
  const after = text.split("\n").slice(start);
  const stopAt = after.findIndex((line) => new RegExp(`^#{1,${level}} `).test(line));
  const endLine = stopAt === -1 ? Infinity : start + stopAt + 1;
  const block = fencedBlocks(file, text).find((candidate) => candidate.line > start && candidate.line < endLine && accept(candidate));
  if (!block) throw new ReadmeError(`${file}: no ${what} under the heading ${heading}`);
  return block;
}

/**
 * The README's install lines: the `npm install ../reins/dist-packs/…` lines of the sh block under
 * "## Install before the first release", each after a `# LangChain <line>: …` comment.
 * @returns {{ line: string, command: string, where: string }[]}
 */
export function readInstallLines() {
  const file = "README.md";
  const text = read(file);
  const block = blockUnder(file, text, /^## Install before the first release/, (candidate) => candidate.lang === "sh" && /npm install (?:--\S+ )*\.\.\/reins\/dist-packs\//.test(candidate.code), "sh block with `npm install ../reins/dist-packs/…` lines");
  const result = [];
  let current;
  block.code.split("\n").forEach((line, offset) => {
    const comment = /^#\s*LangChain (\S+?):/.exec(line);
    if (comment) current = comment[1];
    if (/^npm install /.test(line)) {
      if (current === undefined) throw new ReadmeError(`${file}:${block.line + offset + 1}: an install line without a "# LangChain <line>:" comment above it`);
      result.push({ line: current, command: line.trim(), where: `${file}:${block.line + offset + 1}` });
      current = undefined;
    }
  });
  return result;
}

/**
 * The programs the smoke runs, with where they come from.
 * @returns {{ name: string, where: string, file: string, code: string, replay: unknown[] | undefined, lines: string[], typecheck: boolean }[]}
 */
export function readPrograms() {
  const readme = read("README.md");
  const middleware = read("packages/agent-middleware/README.md");
  const ts = (candidate) => ["ts", "typescript"].includes(candidate.lang) && candidate.markers.includes("run");
  const program = (name, block, extra) => ({ name, where: `${block.file}:${block.line}`, code: block.code, replay: block.replay, ...extra });
  const programs = [
    program("quick start (ES module)", blockUnder("README.md", readme, /^## Quick start/, ts, "`ts run` block"), { file: "app.ts", lines: ["1.x", "0.3"], typecheck: true }),
    program("quick start (CommonJS)", blockUnder("README.md", readme, /^### CommonJS/, (candidate) => candidate.lang === "js", "`js` block"), { file: "app.cjs", lines: ["1.x", "0.3"], typecheck: false }),
    program("createAgent quick start", blockUnder("README.md", readme, /^### createAgent/, ts, "`ts run` block"), { file: "app.ts", lines: ["1.x"], typecheck: true }),
    program("fakeModel() example", blockUnder("README.md", readme, /^### Tests without a server/, ts, "`ts run` block"), { file: "app.ts", lines: ["1.x"], typecheck: true }),
    program("agent-middleware README snippet", fencedBlocks("packages/agent-middleware/README.md", middleware).find(ts) ?? missing("packages/agent-middleware/README.md: no `ts run` block"), { file: "app.ts", lines: ["1.x"], typecheck: true }),
  ];
  for (const item of programs.filter((candidate) => candidate.lines.includes("0.3"))) {
    if (!IMPORT_SWAPS.some((swap) => item.code.includes(swap.from))) {
      throw new ReadmeError(`${item.where}: the ${item.name} runs on LangChain 0.3 too, so it must import AgentExecutor with one of\n  ${IMPORT_SWAPS.map((swap) => swap.from).join("\n  ")}\n(the 0.3 app changes that import as its comment says)`);
    }
  }
  return programs;
}

function missing(message) {
  throw new ReadmeError(message);
}

/** A program's code for one LangChain line (0.3: the one import its comment names, changed). */
export function codeFor(program, line) {
  if (line !== "0.3") return program.code;
  return IMPORT_SWAPS.reduce((code, swap) => code.replace(swap.from, swap.to), program.code);
}

/**
 * The install line for a version set: floor is the line as written; latest widens each exact pin
 * `name@X.Y.Z` to `name@^X.Y.Z`, except the names in `caps`, which get the range given there.
 */
export function commandFor(command, versionSet, caps) {
  if (versionSet === "floor") return command;
  return command.replace(/(^|\s)((?:@[\w.-]+\/)?[\w.-]+)@(\d+\.\d+\.\d+)(?=\s|$)/g, (match, space, name, version) => `${space}${name}@${caps[name] ?? `^${version}`}`);
}

export { ReadmeError };
