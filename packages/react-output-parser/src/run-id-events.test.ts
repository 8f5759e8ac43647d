import type { ReinsEvent } from "@reins/core";
import { HardenedReActOutputParser } from "./index";

describe("HardenedReActOutputParser events", () => {
  describe("with a run id in the parse context", () => {
    it("copies it onto parser_repair and parser_error, and leaves the reply out without a content recorder", () => {
      const events: ReinsEvent[] = [];
      const parser = new HardenedReActOutputParser({ toolNames: ["search"], onEvent: (event) => events.push(event) });
      parser.parseDetailed("**Action:** search\n**Action Input:** Oslo", { runId: "run-7" });
      parser.parseDetailed("Action: searhc_web\nAction Input: Oslo", { runId: "run-7" });
      const repair = events.find((event) => event.type === "parser_repair");
      const error = events.find((event) => event.type === "parser_error");
      expect(repair).toMatchObject({ runId: "run-7" });
      expect(error).toMatchObject({ runId: "run-7", reason: "unknown_tool" });
      expect(error).not.toHaveProperty("llmOutput");
    });
  });

  describe("with a recorder that asks for content", () => {
    it("puts the rejected reply on parser_error", () => {
      const events: ReinsEvent[] = [];
      const parser = new HardenedReActOutputParser({ toolNames: ["search"], metrics: { record: (event) => events.push(event), captureContent: true } });
      parser.parseDetailed("Action: searhc_web\nAction Input: Oslo");
      expect(events.find((event) => event.type === "parser_error")).toMatchObject({ llmOutput: "Action: searhc_web\nAction Input: Oslo" });
    });
  });
});
