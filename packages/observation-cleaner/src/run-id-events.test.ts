import type { ReinsEvent } from "@reins/core";
import { ObservationCleaner } from "./index";

describe("ObservationCleaner events", () => {
  describe("when format gets a run id in its context", () => {
    it("copies it onto observation_cleaned", () => {
      const events: ReinsEvent[] = [];
      const cleaner = new ObservationCleaner({ onEvent: (event) => events.push(event) });
      cleaner.format({ temperature: 4 }, { toolName: "forecast", toolInput: "Oslo", runId: "run-7" });
      cleaner.format({ temperature: 5 }, { toolName: "forecast" });
      expect(events.map((event) => (event as { runId?: string }).runId)).toEqual(["run-7", undefined]);
    });
  });
});
