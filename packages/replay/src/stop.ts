/**
 * Cuts `text` at the earliest of the `stop` strings (the stop string itself excluded), as the
 * OpenAI Chat Completions API does; empty stop strings are ignored.
 *
 * @returns the text as the model returns it, and whether a stop string cut it
 */
export function applyStopSequences(text: string, stop: readonly string[]): { text: string; stopped: boolean } {
  let cut = -1;
  for (const sequence of stop) {
    if (sequence.length === 0) continue;
    const index = text.indexOf(sequence);
    if (index !== -1 && (cut === -1 || index < cut)) cut = index;
  }
  return cut === -1 ? { text, stopped: false } : { text: text.slice(0, cut), stopped: true };
}
