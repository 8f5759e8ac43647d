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

  it("leaves out a call the ToolExecutor refused because the run was stopping (RunCallRecord.stoppedRun), keeps a refusal that was not", () => {
    const refusal = 'Tool "lookup" was not called: this task is being stopped.';
    const trajectory = [
      { action: { tool: "lookup", toolInput: { query: "france" } }, observation: "Paris" },
      { action: { tool: "lookup", toolInput: { query: "japan" } }, observation: refusal },
    ];
    const record = (stoppedRun: boolean) => ({
      calls: [
        { toolName: "lookup", toolInput: { query: "france" }, outcome: "success" as const, observation: "Paris", durationMs: 1 },
        { toolName: "lookup", toolInput: { query: "japan" }, outcome: "rejected" as const, observation: refusal, durationMs: 0, ...(stoppedRun ? { stoppedRun } : {}) },
      ],
    });
    const stopped = buildLoopStopFinish({ reason: "max_steps", message: "budget" }, trajectory, {}, record(true)).returnValues.output;
    expect(stopped).toContain("- lookup(");
    expect(stopped).not.toContain("What did not work:");
    const refused = buildLoopStopFinish({ reason: "max_steps", message: "budget" }, trajectory, {}, record(false)).returnValues.output;
    expect(refused).toContain("What did not work:");
  });

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

describe("buildLoopStopFinish", () => {
  const failure = (input: string) =>
    `Tool "exchange_rate_live" answered, but the result reports a failure (code_mismatch: code 500: system busy). ` +
    `The service seems to be having a temporary problem: use another tool or answer with what you already know.`;
  const stallSteps = ["EUR/USD", "EUR/GBP", "EUR/JPY", "EUR/CHF", "EUR/NOK"].map((input, index) => ({
    action: { tool: "exchange_rate_live", toolInput: input },
    observation:
      failure(input) +
      (index >= 3 ? `\n\n[Loop notice] Your last ${index} thoughts say nearly the same thing, so you are not making progress. Use what you found.` : ""),
  }));

  describe("with the same failure for several inputs (the demo's stall run)", () => {
    const output = buildLoopStopFinish({ reason: "stall", message: "m" }, stallSteps).returnValues.output;

    it("lists the failure once, naming every input that gave it", () => {
      const entries = output.split("\n").filter((line) => line.startsWith("- "));
      expect(entries).toEqual([
        '- exchange_rate_live(EUR/USD, EUR/GBP, EUR/JPY, EUR/CHF, EUR/NOK): Tool "exchange_rate_live" answered, but the result reports a failure (code_mismatch: code 500: system busy).',
      ]);
    });

    it("puts it under a 'did not work' line, not under what was found", () => {
      expect(output).not.toContain("What I found so far:");
      expect(output).toContain("I did not find anything useful yet.");
      expect(output.indexOf("What did not work:")).toBeLessThan(output.indexOf("- exchange_rate_live"));
      expect(output.indexOf("What did not work:")).toBeGreaterThan(-1);
    });

    it("leaves out the advice meant for the model and the loop notes", () => {
      expect(output).not.toMatch(/what you already know|use another tool|Use what you found|Loop notice|temporary problem/i);
    });

    it("keeps the stop reason and the escape hatch", () => {
      const finish = buildLoopStopFinish({ reason: "stall", message: "m" }, stallSteps);
      expect(finish.returnValues.stopReason).toBe("stall");
      expect(output.endsWith(`\n\n${DEFAULT_LOOP_FINISH_OPTIONS.escapeHatch}`)).toBe(true);
    });
  });

  describe("with identical successful results for different inputs", () => {
    it("groups them into one finding and keeps distinct results apart", () => {
      const output = buildLoopStopFinish({ reason: "cycle", message: "m" }, [
        { action: { tool: "search", toolInput: "a" }, observation: "No results." },
        { action: { tool: "search", toolInput: "b" }, observation: "No  results.\n" },
        { action: { tool: "lookup", toolInput: "c" }, observation: "No results." },
        { action: { tool: "lookup", toolInput: "d" }, observation: "42" },
      ]).returnValues.output;
      expect(output.split("\n").filter((line) => line.startsWith("- "))).toEqual(["- search(a, b), lookup(c): No results.", "- lookup(d): 42"]);
    });
  });

  describe("with successes and failures", () => {
    it.each([
      ['Tool "send_email" was not run: this action was not approved. Do not call it again with the same input; tell the user what you wanted to do, or use another way.', 'Tool "send_email" was not run: this action was not approved.'],
      ['Tool "send_email" was stopped: the time allowed for this task has run out. Do not call more tools; give your final answer now with what you already know.', 'Tool "send_email" was stopped: the time allowed for this task has run out.'],
    ])("lists a refusal without a typed outcome under what did not work: %s", (observation, fact) => {
      const output = buildLoopStopFinish({ reason: "repeat", message: "m" }, [{ action: { tool: "send_email", toolInput: "a" }, observation }], { escapeHatch: "" }).returnValues.output;
      expect(output).toContain(`What did not work:\n- send_email(a): ${fact}`);
      expect(output).not.toContain("What I found so far:");
    });

    it("takes a step's typed outcome from the run's call records: a dry run is no finding, a result worded like a failure is", () => {
      const calls = [
        { toolName: "send_email", toolInput: { to: "a" }, outcome: "dry_run" as const, observation: "Would send the email to a.", durationMs: 1 },
        { toolName: "search", toolInput: "b", outcome: "success" as const, observation: 'Tool "search" failed: this is the data.', durationMs: 1 },
      ];
      const steps = calls.map((call) => ({ action: { tool: call.toolName, toolInput: call.toolInput }, observation: call.observation }));
      const output = buildLoopStopFinish({ reason: "repeat", message: "m" }, steps, { escapeHatch: "" }, { calls }).returnValues.output;
      const [found, failed] = output.split("What did not work:");
      expect(found).toContain('- search(b): Tool "search" failed: this is the data.');
      expect(failed).toContain("- send_email(");
      // Without the records, the wording decides (the fallback): the preview reads like a finding.
      const fallback = buildLoopStopFinish({ reason: "repeat", message: "m" }, steps, { escapeHatch: "" }).returnValues.output;
      expect(fallback.split("What did not work:")[0]).toContain("- send_email(");
    });

    it("lists findings first, then what did not work", () => {
      const output = buildLoopStopFinish(
        { reason: "repeat", message: "m" },
        [
          { action: { tool: "weather", toolInput: "Oslo" }, observation: 'Tool "weather" did not answer within 10 s. The service may be slow or down right now: do not call it again with the same input; use another tool or answer with what you already know.' },
          { action: { tool: "search", toolInput: "Oslo weather" }, observation: "Rain, 8 °C" },
        ],
        { escapeHatch: "" },
      ).returnValues.output;
      expect(output).toBe(
        [
          "I stopped because I kept repeating the same step without getting new information.",
          "What I found so far:",
          "- search(Oslo weather): Rain, 8 °C",
          "What did not work:",
          '- weather(Oslo): Tool "weather" did not answer within 10 s.',
        ].join("\n"),
      );
    });

    it("prefers a call's successful result over a later refusal of the same call", () => {
      const output = buildLoopStopFinish({ reason: "repeat", message: "m" }, [
        { action: { tool: "country_lookup", toolInput: "France" }, observation: "capital: Paris" },
        {
          action: { tool: "country_lookup", toolInput: "France" },
          observation:
            'Tool "country_lookup" was already called 2 times in this task, its limit, so this call was not made. Use the results you already have to answer, or use another tool.',
        },
      ]).returnValues.output;
      expect(output).toContain("- country_lookup(France): capital: Paris");
      expect(output).not.toContain("What did not work:");
      expect(output).not.toContain("Use the results you already have");
    });

    it("treats a step flagged not failed as a finding whatever its wording", () => {
      const observation = 'Tool "t" failed: that is the literal status text.';
      const output = buildLoopStopFinish({ reason: "stall", message: "m" }, [
        { action: { tool: "status", toolInput: "q" }, observation, failed: false },
      ]).returnValues.output;
      expect(output).toContain(`What I found so far:\n- status(q): ${observation}`);
      expect(output).not.toContain("What did not work:");
    });

    it("treats a step flagged failed as a failure whatever its wording, keeping its first sentence", () => {
      const output = buildLoopStopFinish({ reason: "stall", message: "m" }, [
        { action: { tool: "db", toolInput: "q" }, observation: "ERR 42: locked. Call it again later.", failed: true },
      ]).returnValues.output;
      expect(output).toContain("What did not work:\n- db(q): ERR 42: locked.");
      expect(output).not.toContain("Call it again later");
      expect(output).not.toContain("What I found so far:");
    });
  });

  describe("with the ToolExecutor's and AgentExecutor's failure texts", () => {
    it.each([
      ['Tool "t" did not answer within 30 s (tried 2 times). The service may be slow or down right now: do not call it again with the same input; use another tool or answer with what you already know.', 'Tool "t" did not answer within 30 s (tried 2 times).'],
      ['Tool "t" failed with a temporary error (tried 3 times): ECONNRESET. Trying again right away is unlikely to help: use another tool or answer with what you already know.', 'Tool "t" failed with a temporary error (tried 3 times): ECONNRESET.'],
      ['Tool "t" failed: bad thing at v1.2. Retrying the same input will fail the same way: change the input, use another tool, or answer with what you already know.', 'Tool "t" failed: bad thing at v1.2.'],
      ['Tool "t" rejected the request (HTTP 404): not found. Retrying the same input will fail the same way: fix the input or use another tool.', 'Tool "t" rejected the request (HTTP 404): not found.'],
      ['Tool "t" is unavailable right now (it failed repeatedly, so calls are paused for about 30 s). Do not call it again now: use another tool, or answer with what you already know and say this source was unavailable.', 'Tool "t" is unavailable right now (it failed repeatedly, so calls are paused for about 30 s).'],
      ['Tool "t" is busy (4 calls already running and its queue is full), so this call was not made. Wait for the results you already requested, or use another tool.', 'Tool "t" is busy (4 calls already running and its queue is full), so this call was not made.'],
      ['Tool "t" was already called 5 times in this task, its limit, so this call was not made. Use the results you already have to answer, or use another tool.', 'Tool "t" was already called 5 times in this task, its limit, so this call was not made.'],
      ['Invalid input for tool "t": city: Required. Expected: {"city": string}. Fix the input and call the tool again.', 'Invalid input for tool "t": city: Required.'],
      ['Invalid input for tool "t": the input must be a JSON object ({"city": string}). Write it as JSON and call the tool again.', 'Invalid input for tool "t": the input must be a JSON object ({"city": string}).'],
      ['Tool "t" answered, but the result reports a failure (status: error). The data cannot be used as is: change the input or use another tool.', 'Tool "t" answered, but the result reports a failure (status: error).'],
      ['DRY RUN: tool "t" has side effects and was NOT executed. It would run with input {"to":"a"}. If this action is really intended, call "t" again with the same input plus "confirm": true.', 'DRY RUN: tool "t" has side effects and was NOT executed.'],
      ['Tool "t" returned no data.', 'Tool "t" returned no data.'],
      ['Tool "t" returned a value that could not be turned into text. Try a different input or another tool.', 'Tool "t" returned a value that could not be turned into text.'],
      ['Tool "t" failed and its backup "u" failed too. Use another tool or answer with what you already know.', 'Tool "t" failed and its backup "u" failed too.'],
      ['Tool "t" was cancelled before it finished.', 'Tool "t" was cancelled before it finished.'],
      ["t is not a valid tool, try another one.", "t is not a valid tool."],
      ["t is not a valid tool, try another available tool: a, b", "t is not a valid tool."],
    ])("lists %j as %j under 'did not work'", (observation, expected) => {
      const output = buildLoopStopFinish({ reason: "stall", message: "m" }, [{ action: { tool: "t", toolInput: "x" }, observation }], {
        escapeHatch: "",
      }).returnValues.output;
      expect(output.split("\n").slice(1)).toEqual(["I did not find anything useful yet.", "What did not work:", `- t(x): ${expected}`]);
    });
  });

  describe("with many distinct results", () => {
    it("lists at most maxFindings entries, the most recent ones, and bounds the inputs named per entry", () => {
      const steps = Array.from({ length: 12 }, (_, index) => ({
        action: { tool: "page", toolInput: String(index) },
        observation: index < 8 ? "same" : `result ${index}`,
      }));
      const entries = buildLoopStopFinish({ reason: "max_steps", message: "m" }, steps, { maxFindings: 2 })
        .returnValues.output.split("\n")
        .filter((line) => line.startsWith("- "));
      expect(entries).toEqual(["- page(10): result 10", "- page(11): result 11"]);
      const grouped = buildLoopStopFinish({ reason: "max_steps", message: "m" }, steps).returnValues.output;
      expect(grouped).toContain("- page(0, 1, 2, 3, 4) and 3 more calls: same");
    });
  });
});
