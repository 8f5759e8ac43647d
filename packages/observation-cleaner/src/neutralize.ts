/**
 * Neutralises the shapes of `@reins/core`'s one grammar inside tool output: the cleaner's view of
 * `neutralizeUntrustedText`, the very declaration the parser reads model text through. A line that
 * would read as `Final Answer:`, `Action:`… has its label quoted (`«Final Answer»: …`), a tag's
 * `<` becomes `‹`, a JSON action blob's name key is quoted, a paper-style call of a tool or a
 * finish is marked — also when written with HTML entities, JSON escapes, zero-width characters,
 * full-width colons or CR-only line breaks. So a web page cannot end or steer the run.
 */
import { createReActGrammar, neutralizeUntrustedText, type ReActGrammar, type ReActLabelSet } from "@reins/core";

/** The result of neutralising a text. */
export interface NeutralizedText {
  readonly text: string;
  /** The labels found, as written (e.g. `Final Answer`, `**Action 2**`). */
  readonly labels: readonly string[];
}

const grammarCache = new WeakMap<ReActLabelSet, Map<string, ReActGrammar>>();

/**
 * The grammar for a label set and tool names, built once per pair.
 *
 * @param labels - the parser's labels
 * @param toolNames - the agent's tool names
 */
export function grammarFor(labels: ReActLabelSet, toolNames: readonly string[] = []): ReActGrammar {
  let byNames = grammarCache.get(labels);
  if (byNames === undefined) {
    byNames = new Map();
    grammarCache.set(labels, byNames);
  }
  const key = toolNames.join("\u0000");
  let grammar = byNames.get(key);
  if (grammar === undefined) {
    grammar = createReActGrammar({ labels, toolNames });
    if (byNames.size < 64) byNames.set(key, grammar);
  }
  return grammar;
}

/**
 * Neutralises every shape of the grammar in `text` (labels, tags, blobs, paper-style calls).
 *
 * @param text - tool output
 * @param labels - the label grammar (the parser's)
 * @param toolNames - the agent's tool names (paper-style calls of them are neutralised)
 * @returns the text and the labels found
 */
export function neutralizeControlLines(text: string, labels: ReActLabelSet, toolNames: readonly string[] = []): NeutralizedText {
  const { text: neutralized, found } = neutralizeUntrustedText(text, grammarFor(labels, toolNames));
  return { text: neutralized, labels: found.filter((item) => item.startsWith("label ")).map((item) => item.slice(6)) };
}

/**
 * Neutralises JSON action blobs, tags and paper-style calls (kept for callers of the earlier API;
 * {@link neutralizeControlLines} now covers every shape).
 *
 * @returns the text and how many shapes other than labels were neutralised
 */
export function neutralizeActionBlobs(text: string, labels?: ReActLabelSet, toolNames: readonly string[] = []): { text: string; count: number } {
  const { text: neutralized, found } = neutralizeUntrustedText(text, labels === undefined ? grammarFor(createReActGrammar().labels, toolNames) : grammarFor(labels, toolNames));
  return { text: neutralized, count: found.filter((item) => !item.startsWith("label ")).length };
}
