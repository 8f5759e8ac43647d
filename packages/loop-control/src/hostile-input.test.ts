import type { ReinsEvent } from "@reins/core";
import { LoopControlHandler } from "./index";
import { RunDriver } from "./__fixtures__/run-driver";

const search = (input: string, observation = `result for ${input}`) => ({ tool: "search", toolInput: input, observation });

describe("LoopControlHandler", () => {
  describe("with an onError that throws itself", () => {
    it("still never breaks the run and falls back to a process warning", async () => {
      const warnings: string[] = [];
      const emitWarning = jest.spyOn(process, "emitWarning").mockImplementation((warning) => {
        warnings.push(String(warning));
      });
      const events: ReinsEvent[] = [];
      const handler = new LoopControlHandler({
        onEvent: (event) => {
          events.push(event);
          throw new Error("listener down");
        },
        onError: () => {
          throw new Error("onError down");
        },
      });
      const run = new RunDriver(handler, "r");
      try {
        await run.start();
        expect(await run.step(search("a"))).toBeUndefined();
        await run.finish("ok");
      } finally {
        emitWarning.mockRestore();
      }
      expect(events.at(-1)).toMatchObject({ type: "run_end", status: "success" });
      expect(handler.activeRunCount).toBe(0);
      expect(warnings.some((message) => message.includes("onError down") && message.includes("listener down"))).toBe(true);
    });
  });
});
