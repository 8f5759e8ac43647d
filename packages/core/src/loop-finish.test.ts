import { buildLoopStopFinish, DEFAULT_LOOP_FINISH_OPTIONS, resolveLoopFinishOptions, stripLoopNotes } from "./loop-finish";

describe("buildLoopStopFinish", () => {
  const steps = [
    { action: { tool: "search", toolInput: "weather Paris" }, observation: "22 °C and sunny" },
    { action: { tool: "_Exception", toolInput: "Invalid Format" }, observation: "Invalid Format" },
    {
      action: { tool: "search", toolInput: "weather Paris" },
      observation: "22 °C and sunny\n\n[Loop notice] You already called search with this input (2 times now).",
    },
  ];

  describe("with findings", () => {
    it("returns the stop reason and lists distinct findings, then the escape hatch", () => {
      const finish = buildLoopStopFinish({ reason: "repeat", message: "search was called 3 times." }, steps);
      expect(finish.returnValues.stopReason).toBe("repeat");
      expect(finish.returnValues.output).toBe(
        [
          "I stopped because I kept repeating the same step without getting new information.",
          "What I found so far:",
          "- search(weather Paris): 22 °C and sunny",
          "",
          DEFAULT_LOOP_FINISH_OPTIONS.escapeHatch,
        ].join("\n"),
      );
      expect(finish.log).toBe("search was called 3 times.");
    });

    it("quotes object inputs as sorted JSON and cuts long observations", () => {
      const finish = buildLoopStopFinish(
        { reason: "max_steps", message: "m" },
        [{ action: { tool: "lookup", toolInput: { b: 1, a: 2 } }, observation: "x".repeat(50) }],
        { maxObservationChars: 10, escapeHatch: "" },
      );
      expect(finish.returnValues.output).toBe(
        "I reached the maximum number of steps before I could finish.\nWhat I found so far:\n- lookup({\"a\":2,\"b\":1}): xxxxxxxxx…",
      );
    });
  });

  describe("with polling results", () => {
    it("keeps only the latest result of the same call", () => {
      const finish = buildLoopStopFinish({ reason: "stall", message: "m" }, [
        { action: { tool: "job", toolInput: "42" }, observation: "running" },
        { action: { tool: "job", toolInput: "42" }, observation: "done" },
      ]);
      expect(finish.returnValues.output).toContain("- job(42): done");
      expect(finish.returnValues.output).not.toContain("running");
    });
  });

  describe("without findings", () => {
    it("says nothing useful was found and uses a custom output key and escape hatch", () => {
      const finish = buildLoopStopFinish({ reason: "time_budget", message: "m" }, [], {
        outputKey: "answer",
        escapeHatch: "Type 'human' to reach a person.",
      });
      expect(finish.returnValues.answer).toBe(finish.returnValues.output);
      expect(finish.returnValues.output).toContain("I did not find anything useful yet.");
      expect(finish.returnValues.output.endsWith("Type 'human' to reach a person.")).toBe(true);
    });
  });
});

describe("stripLoopNotes", () => {
  it("removes note lines and keeps the tool's own text", () => {
    expect(stripLoopNotes("22 °C\n\n[Loop notice] You already called search.\n[Budget notice] Only 1 steps left.")).toBe("22 °C");
  });
  it("returns text without notes unchanged", () => {
    expect(stripLoopNotes("  a\nb  ")).toBe("  a\nb  ");
  });
});

describe("resolveLoopFinishOptions", () => {
  describe("with invalid options", () => {
    it.each([
      [{ maxFindings: -1 }, "maxFindings"],
      [{ maxFindings: Number.NaN }, "maxFindings"],
      [{ maxObservationChars: 0 }, "maxObservationChars"],
      [{ escapeHatch: 42 }, "escapeHatch"],
      [{ outputKey: "" }, "outputKey"],
      [{ ignoreTools: "_Exception" }, "ignoreTools"],
    ])("throws a TypeError naming the field for %j", (options, field) => {
      expect(() => resolveLoopFinishOptions(options as never)).toThrow(new RegExp(`^Invalid loop finish option "${field}"`));
      expect(() => resolveLoopFinishOptions(options as never)).toThrow(TypeError);
    });
  });
});

describe("buildLoopStopFinish", () => {
  describe("with invalid options at stop time", () => {
    it("still gives the graceful answer, using the defaults for the invalid fields", () => {
      const finish = buildLoopStopFinish(
        { reason: "repeat", message: "m" },
        [{ action: { tool: "search", toolInput: "x" }, observation: "22 °C" }],
        { maxFindings: Number.NaN, maxObservationChars: Number.NaN } as never,
      );
      expect(finish.returnValues.output).toContain("- search(x): 22 °C");
    });
  });
});
