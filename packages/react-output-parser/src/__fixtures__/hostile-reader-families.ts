/**
 * Families of untrusted text that made readers quadratic (an opener searched for its closer from
 * every position): used by hostile-readers.test.ts (each must complete) and by the hostile-text
 * bench (examples/bench/hostile-text-bench.ts: size ×4 must cost ≤ ×6 time).
 */
const fill = (unit: string, chars: number): string => unit.repeat(Math.ceil(chars / unit.length));

/** Each family: a name and a builder of `chars` characters of it. */
export const HOSTILE_READER_FAMILIES: ReadonlyArray<readonly [string, (chars: number) => string]> = [
  ["special-token openers `<|`", (chars) => fill("<|", chars)],
  ["full-width openers `<｜`", (chars) => fill("<\uff5c", chars)],
  ["full-width bars with ▁ names, never closed", (chars) => fill("<\uff5ctool\u2581call\u2581begin", chars)],
  ["harmony headers", (chars) => fill("<|start|>assistant<|channel|>", chars)],
  ["harmony headers without their closers", (chars) => fill("<|start|>assistant<|channel", chars)],
  ["square brackets", (chars) => fill("[", chars)],
  ["round brackets", (chars) => fill("(", chars)],
  ["square then round", (chars) => fill("[(", chars)],
  ["angle brackets", (chars) => fill("<", chars)],
  ["unclosed tool-call tags", (chars) => fill("<tool_call>", chars)],
  ["calls on one long line", (chars) => fill("search[x] ", chars)],
  ["call names before brackets, no line break", (chars) => fill("search(", chars)],
  ["Mistral openers", (chars) => fill("[TOOL_CALLS", chars)],
  ["JSON name keys", (chars) => fill('{"name": ', chars)],
];

