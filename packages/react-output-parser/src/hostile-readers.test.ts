import { neutralizeUntrustedText } from "@reins/core";
import { HardenedReActOutputParser } from "./hardened-react-output-parser";
import { rescueToolCalls } from "./tool-call-rescue";
import { readWrittenToolCalls } from "./written-tool-calls";
import { HOSTILE_READER_FAMILIES } from "./__fixtures__/hostile-reader-families";

/**
 * Every reader of untrusted text (the neutraliser, the written-call reader, the createAgent rescue,
 * the ReAct parser) on the families of input that made them quadratic (an opener searched for its
 * closer from every position: 32 KB of `<|` took ~6 s): runs of openers without closers, DeepSeek's
 * full-width bars, harmony headers, tags, and calls on one long line. Here each must complete on
 * 128 KB+ and answer; the growth ratio (×4 size ≤ ×6 time) is measured by the hostile-text bench
 * (examples/bench/hostile-text-bench.ts), never by a timed test.
 */
const CHARS = 128_000;
const toolNames = ["search", "get_weather"];
const parser = new HardenedReActOutputParser({ toolNames });

describe("readers of untrusted text on hostile input", () => {
  describe.each(HOSTILE_READER_FAMILIES)("%s (128 KB)", (_family, build) => {
    const text = build(CHARS);

    it("is neutralised, keeping every character", () => {
      expect(text.length).toBeGreaterThanOrEqual(CHARS * 0.95);
      const { text: neutralized } = neutralizeUntrustedText(text);
      expect(neutralized.length).toBeGreaterThanOrEqual(text.length);
    });

    it("is read by the written-call reader and the rescue", () => {
      expect(Array.isArray(readWrittenToolCalls(text, { toolNames }).calls)).toBe(true);
      expect(rescueToolCalls({ content: text, toolCalls: [] }, toolNames.map((name) => ({ name })) as never).outcome).toEqual(expect.any(String));
    });

    it("is answered by the ReAct parser", () => {
      expect(parser.parseDetailed(text)).toEqual(expect.objectContaining({ ok: expect.any(Boolean) }));
    });
  });
});
