/**
 * Provenance on `createAgent`: the calls that stand in the text the model is shown from outside
 * itself — the system prompt (also one a `dynamicSystemPromptMiddleware` builds from retrieved
 * documents, when Reins' middleware comes after it), human messages (the app's, and summaries
 * `summarizationMiddleware` writes), tool results, failure texts and artifacts read back — read
 * with `@reins/react-output-parser`'s {@link readUntrustedCalls} before each model call. Their
 * keys go into the run record (`reinsRun.untrustedCalls`), so a resume in another process, or a
 * summary that replaced the tool results, keeps them; a call the model then writes as text that
 * repeats one does not run. Only the model's own replies (`AIMessage`s) are not untrusted text.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { readUntrustedCalls, UNTRUSTED_JOIN_TAIL_CHARS } from "@reins/react-output-parser";
import { textOf } from "./run-record";

/** What this process has read of a run's untrusted text (a cache: the record keeps the keys). */
export interface ProvenanceCache {
  readonly pieces: readonly string[];
  readonly keys: ReadonlySet<string>;
  /** The end of the joined text read so far (a call split across the next piece is found). */
  readonly tail: string;
}

/** The untrusted texts of one model request, in the order the model reads them. */
export function untrustedPiecesOf(system: unknown, messages: readonly BaseMessage[]): string[] {
  const pieces: string[] = [];
  const systemText = typeof system === "string" ? system : system !== null && typeof system === "object" && "content" in system ? textOf(system as BaseMessage) : "";
  if (systemText.length > 0) pieces.push(systemText);
  for (const message of messages) {
    if (AIMessage.isInstance(message)) continue;
    const text = textOf(message);
    if (text.length > 0) pieces.push(text);
  }
  return pieces;
}

function startsWith(pieces: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > pieces.length) return false;
  for (let index = 0; index < prefix.length; index += 1) if (pieces[index] !== prefix[index]) return false;
  return true;
}

/**
 * The keys of the calls in `pieces`, read incrementally when the pieces extend those read before.
 *
 * @param cache - what this process read for the run before (undefined: read everything)
 * @param pieces - the request's untrusted texts ({@link untrustedPiecesOf})
 * @param toolNames - the agent's tool names
 * @returns the keys and the cache for the next call
 */
export function readRequestProvenance(cache: ProvenanceCache | undefined, pieces: readonly string[], toolNames: readonly string[]): ProvenanceCache {
  const incremental = cache !== undefined && startsWith(pieces, cache.pieces);
  const fresh = incremental ? pieces.slice(cache.pieces.length) : pieces;
  if (incremental && fresh.length === 0) return cache;
  const found = readUntrustedCalls(fresh, { toolNames }, incremental ? cache.tail : "");
  const keys = incremental ? new Set([...cache.keys, ...found]) : found;
  const joined = (incremental ? cache.tail : "") + fresh.join("");
  return { pieces: [...pieces], keys, tail: joined.slice(-UNTRUSTED_JOIN_TAIL_CHARS) };
}

/** The record with `keys` added to its `untrustedCalls` (the same record when none is new). */
export function withUntrustedCalls<Record extends { readonly untrustedCalls?: readonly string[] }>(record: Record, keys: ReadonlySet<string> | undefined): Record {
  if (keys === undefined || keys.size === 0) return record;
  const known = new Set(record.untrustedCalls ?? []);
  const added = [...keys].filter((key) => !known.has(key));
  return added.length === 0 ? record : { ...record, untrustedCalls: [...(record.untrustedCalls ?? []), ...added] };
}
