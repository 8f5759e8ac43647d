/**
 * `read_artifact(id, range)`: the follow-up tool an app registers next to an
 * {@link ArtifactStore}, so the model can read what the cleaner cut — a line range
 * (`"120-480"`), a character range (`"chars 5000-11000"`) or the lines containing a text
 * (`find`). Each page is at most `pageChars` long, says where it sits and how to ask for the next
 * one, and is neutralised like any observation (the stored text is tool output, untrusted).
 */
import { DEFAULT_REACT_LABELS, type ReActLabelSet } from "@reins/core";
import { DynamicStructuredTool } from "@langchain/core/tools";
import type { ArtifactStore } from "./artifact-store";
import { ArtifactStoreError } from "./errors";
import { neutralizeControlLines } from "./neutralize";

/** Options of {@link createReadArtifactTool} and {@link readArtifactPage}. */
export interface ReadArtifactToolOptions {
  /** The tool's name; the cleaner's `artifactToolName` must match. @default "read_artifact" */
  readonly name?: string;
  /** Longest page, in characters. @default 6000 */
  readonly pageChars?: number;
  /** Label grammar to neutralise in pages (the parser's, with custom labels). @default DEFAULT_REACT_LABELS */
  readonly labels?: ReActLabelSet;
  /** The agent's tool names (paper-style calls of them are neutralised). @default [] */
  readonly toolNames?: readonly string[];
}

/** What the model asks `read_artifact` for. */
export interface ReadArtifactInput {
  /** The artifact id from the observation (`art_…`). */
  readonly id: string;
  /** `"120-480"` or `"lines 120-480"` (1-based, inclusive), `"120-"`, `"chars 5000-11000"` (0-based, end exclusive). Default: from the start. */
  readonly range?: string;
  /** Lists the lines containing this text (case-insensitive), with their numbers, instead of a range. */
  readonly find?: string;
}

const FIND_LIMIT = 40;
const FIND_CONTEXT = 3;

interface Range {
  readonly unit: "lines" | "chars";
  readonly start: number;
  readonly end: number | undefined;
}

function parseRange(range: string | undefined): Range | string {
  if (range === undefined || range.trim().length === 0) return { unit: "lines", start: 1, end: undefined };
  const match = /^\s*(lines?|chars?|characters?)?\s*(\d+)\s*(?:[-–—:]|\.\.|to)?\s*(\d+)?\s*$/i.exec(range);
  if (match === null) return `The range "${range.slice(0, 80)}" is not one read_artifact reads; write "120-480" (lines), "120-" or "chars 5000-11000".`;
  const unit = match[1] !== undefined && /^c/i.test(match[1]) ? "chars" : "lines";
  const start = Number(match[2]);
  const end = match[3] === undefined ? undefined : Number(match[3]);
  if (end !== undefined && end < start) return `The range "${range.slice(0, 80)}" ends before it starts.`;
  return { unit, start: unit === "lines" ? Math.max(1, start) : start, end };
}

/** Offsets of the start of every line. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf("\n"); index !== -1 && index + 1 < text.length; index = text.indexOf("\n", index + 1)) starts.push(index + 1);
  return starts;
}

function page(text: string, id: string, range: Range, pageChars: number): string {
  if (range.unit === "chars") {
    const start = Math.min(range.start, text.length);
    const end = Math.min(range.end ?? start + pageChars, start + pageChars, text.length);
    const more = end < text.length ? `\n[next: range "chars ${end}-${Math.min(text.length, end + pageChars)}"]` : "\n[end of the artifact]";
    return `Artifact ${id}, characters ${start}–${end} of ${text.length}:\n${text.slice(start, end)}${more}`;
  }
  const starts = lineStarts(text);
  const total = starts.length;
  if (range.start > total) return `Artifact ${id} has ${total} lines; line ${range.start} is past its end.`;
  const first = range.start;
  const lastWanted = Math.min(range.end ?? total, total);
  const startOffset = starts[first - 1] as number;
  let last = first;
  const endOf = (line: number): number => (line < total ? (starts[line] as number) - 1 : text.length);
  while (last < lastWanted && endOf(last + 1) - startOffset <= pageChars) last += 1;
  let body = text.slice(startOffset, endOf(last));
  let note = last < total ? `\n[next: range "${last + 1}-${Math.min(total, range.end !== undefined && range.end > last ? range.end : last + (last - first + 1))}"]` : "\n[end of the artifact]";
  if (body.length > pageChars) {
    // One line longer than a page (minified JSON): its first page of characters.
    body = body.slice(0, pageChars);
    note = `\n[line ${first} goes on; next: range "chars ${startOffset + pageChars}-${startOffset + 2 * pageChars}"]`;
  }
  return `Artifact ${id}, ${first === last ? `line ${first}` : `lines ${first}–${last}`} of ${total}:\n${body}${note}`;
}

function findLines(text: string, id: string, needle: string, pageChars: number): string {
  const wanted = needle.toLowerCase();
  const lines = text.split("\n");
  const hits = lines.flatMap((line, index) => (line.toLowerCase().includes(wanted) ? [index] : []));
  if (hits.length === 0) return `Artifact ${id} (${lines.length} lines) has no line containing "${needle.slice(0, 80)}".`;
  // Each hit with the line before and FIND_CONTEXT after (a JSON record's other fields), windows merged.
  const shown: string[] = [];
  let used = 0;
  let lastShown = -1;
  let listed = 0;
  for (const hit of hits) {
    if (listed >= FIND_LIMIT) break;
    const from = Math.max(hit - 1, lastShown + 1);
    const to = Math.min(lines.length - 1, hit + FIND_CONTEXT);
    const block: string[] = [];
    if (lastShown >= 0 && from > lastShown + 1) block.push("…");
    for (let index = from; index <= to; index += 1) {
      const line = lines[index] as string;
      block.push(`${index + 1}: ${line.length > 300 ? `${line.slice(0, 300)} …` : line}`);
    }
    const cost = block.reduce((sum, line) => sum + line.length + 1, 0);
    if (used + cost > pageChars) break;
    shown.push(...block);
    used += cost;
    lastShown = Math.max(lastShown, to);
    listed += 1;
  }
  const more = hits.length > listed ? `\n[${hits.length - listed} more matching lines not shown; narrow the text or read a range]` : "";
  return `Artifact ${id}: ${hits.length} line(s) containing "${needle.slice(0, 80)}", shown with the line before and ${FIND_CONTEXT} after (line number: text):\n${shown.join("\n")}${more}`;
}

/**
 * One page of an artifact as an observation. Never throws: an unknown or expired id, a bad
 * range or a failed write is answered in words the model can act on.
 *
 * @param store - where the cleaner saved the artifacts
 * @param input - the id, and a range or a text to find
 * @param options - page size and the grammar to neutralise
 */
export async function readArtifactPage(store: ArtifactStore, input: ReadArtifactInput, options: ReadArtifactToolOptions = {}): Promise<string> {
  const pageChars = options.pageChars ?? 6000;
  const id = typeof input?.id === "string" ? input.id.trim() : "";
  if (id.length === 0) return 'read_artifact needs the artifact id from the observation, e.g. {"id": "art_0123456789abcdef", "range": "1-200"}.';
  let text: string;
  try {
    text = await store.text(id);
  } catch (error) {
    if (!ArtifactStoreError.isInstance(error)) throw error;
    return `${error.message} Call the original tool again to get the result anew.`;
  }
  let result: string;
  if (typeof input.find === "string" && input.find.length > 0) result = findLines(text, id, input.find, pageChars);
  else {
    const range = parseRange(input.range);
    result = typeof range === "string" ? range : page(text, id, range, pageChars);
  }
  return neutralizeControlLines(result, options.labels ?? DEFAULT_REACT_LABELS, options.toolNames ?? []).text;
}

/**
 * The `read_artifact` tool over a store: register it with the agent's tools (both agent paths)
 * next to an `ObservationCleaner` given the same store.
 *
 * @param store - the store the cleaner writes to
 * @param options - name, page size, neutralisation grammar
 * @returns a LangChain structured tool taking `{ id, range?, find? }` (JSON schema) and returning text
 * @throws {ArtifactStoreError} when `pageChars` is not an integer of at least 200
 * @example
 * ```ts
 * const artifacts = new ArtifactStore({ directory: "./artifacts" });
 * const agent = await createReactAgent({ llm, tools: [search, createReadArtifactTool(artifacts)], observation: { artifacts } });
 * ```
 */
export function createReadArtifactTool(store: ArtifactStore, options: ReadArtifactToolOptions = {}): DynamicStructuredTool {
  const pageChars = options.pageChars ?? 6000;
  if (!Number.isInteger(pageChars) || pageChars < 200) {
    throw new ArtifactStoreError({ reason: "options", message: `Invalid read_artifact option "pageChars": expected an integer of at least 200, got ${String(options.pageChars)}.` });
  }
  return new DynamicStructuredTool({
    name: options.name ?? "read_artifact",
    description:
      'Reads more of a tool result that was shortened. Input: {"id": the artifact id from the observation, "range": lines "120-480" or "chars 5000-11000" (optional), "find": a text to list the lines containing it (optional)}.',
    schema: {
      type: "object",
      properties: {
        id: { type: "string", description: "The artifact id (art_…) named in the shortened observation." },
        range: { type: "string", description: 'Lines "120-480" (1-based, inclusive), "120-", or "chars 5000-11000". Default: from the start.' },
        find: { type: "string", description: "List the lines containing this text (case-insensitive) instead of a range." },
      },
      required: ["id"],
      additionalProperties: false,
    },
    func: async (input: Record<string, unknown>) => readArtifactPage(store, input as unknown as ReadArtifactInput, { ...options, pageChars }),
  });
}
