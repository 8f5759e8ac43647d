import { combineRecorders } from "./combine-recorders";
import type { ReinsEvent, ReinsEventRecorder } from "./events";

const EVENT: ReinsEvent = { type: "run_start", runId: "r1" };

describe("combineRecorders", () => {
  describe("with two recorders", () => {
    it("sends every event to both, in order", () => {
      const seen: string[] = [];
      const combined = combineRecorders([{ record: () => void seen.push("a") }, { record: () => void seen.push("b") }]);
      combined.record(EVENT);
      expect(seen).toEqual(["a", "b"]);
    });

    it("asks for content when one of them does, and not otherwise", () => {
      const plain: ReinsEventRecorder = { record: () => undefined };
      expect(combineRecorders([plain, { record: () => undefined, captureContent: true }]).captureContent).toBe(true);
      expect(combineRecorders([plain, undefined]).captureContent).toBe(false);
    });

    it("keeps delivering when one throws, reporting the error", () => {
      const errors: unknown[] = [];
      const seen: string[] = [];
      const combined = combineRecorders(
        [
          {
            record: () => {
              throw new Error("boom");
            },
          },
          { record: () => void seen.push("b") },
        ],
        (error) => errors.push(error),
      );
      combined.record(EVENT);
      expect(seen).toEqual(["b"]);
      expect(errors).toEqual([new Error("boom")]);
    });
  });
});
