// Runs every usage example's main() (what `npx tsx examples/src/usage/run.ts` runs) and checks the
// outcome each one demonstrates, so the examples stay runnable and true on both LangChain lines.
import { main as core } from "./core";
import { USAGE_EXAMPLES } from "./index";
import { main as loopControl } from "./loop-control";
import { main as metrics } from "./metrics";
import { main as observationCleaner } from "./observation-cleaner";
import { main as reactAgent } from "./react-agent";
import { main as reactOutputParser } from "./react-output-parser";
import { main as toolExecutor } from "./tool-executor";

function capture(): { print: (line: string) => void; lines: string[] } {
  const lines: string[] = [];
  return { print: (line) => lines.push(line), lines };
}

describe("usage examples", () => {
  describe("USAGE_EXAMPLES", () => {
    it("has one example per published package", () => {
      expect(Object.keys(USAGE_EXAMPLES).sort()).toEqual(
        ["core", "loop-control", "metrics", "observation-cleaner", "react-agent", "react-output-parser", "tool-executor"],
      );
    });
  });

  describe("core", () => {
    it("reads decorated labels, matches reordered actions and finds a tool run's agent run", async () => {
      const { print, lines } = capture();
      const result = await core(print);
      expect(result.labels.map((entry) => entry.label)).toEqual(["action", "action_input", "final_answer", undefined]);
      expect(result.labels[1]?.value).toBe("weather in Paris");
      expect(result.sameAction).toBe(true);
      expect(result.rootOfToolRun).toBe("agent-run");
      expect(lines.length).toBeGreaterThan(0);
    });
  });

  describe("react-output-parser", () => {
    it("parses the messy replies and gives the unknown tool a corrective message naming the real tools", async () => {
      const { print } = capture();
      const { parsed } = await reactOutputParser(print);
      expect(parsed[0]?.result).toMatchObject({ tool: "search", toolInput: "ReAct prompting" });
      expect(parsed[1]?.result).toMatchObject({ tool: "convert_currency", toolInput: { amount: 12.5, to: "USD" } });
      expect(parsed[2]?.result).toMatchObject({ tool: "search", toolInput: "weather Paris" });
      expect(parsed[3]?.result).toMatchObject({ returnValues: { output: "42" } });
      expect(parsed[4]?.result).toBeUndefined();
      expect(parsed[4]?.observation).toContain("web_browser");
      expect(parsed[4]?.observation).toContain("convert_currency");
    });
  });

  describe("tool-executor", () => {
    it("retries the flaky tool to success, times out the hanging one and dry-runs the side effect", async () => {
      const { print } = capture();
      const result = await toolExecutor(print);
      expect(result.weatherAttempts).toBe(3);
      expect(result.observations.weather).toBe("Paris: 22 °C, light rain");
      expect(result.observations.slowSearch).toContain('"slow_search" did not answer');
      expect(result.observations.sendEmail).toContain("DRY RUN");
      expect(result.events.filter((event) => event.type === "tool_retry")).toHaveLength(2);
    });
  });

  describe("observation-cleaner", () => {
    it("keeps the facts, drops the noise, neutralises the hijack line and never returns empty", async () => {
      const { print } = capture();
      const { json, html, empty } = await observationCleaner(print);
      expect(json.text).toContain("199.00");
      expect(json.text).toContain("2026-11-30T09:00:00.000Z");
      expect(json.text).toContain("req_8f2c1a9e7b");
      expect(json.text).not.toContain("etag");
      expect(json.text).not.toContain("_links");
      expect(json.cleanChars).toBeLessThanOrEqual(600);
      expect(html.text).toContain("2 business days");
      expect(html.text).not.toMatch(/^Final Answer:/m);
      expect(html.text).not.toContain("track()");
      expect(empty.text.length).toBeGreaterThan(0);
    });
  });

  describe("loop-control", () => {
    it("stops the looping stock agent at the 4th identical call (after the same result 3 times) with stopReason repeat", async () => {
      const { print } = capture();
      const consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
      try {
        const result = await loopControl(print);
        expect(result.stopReason).toBe("repeat");
        expect(result.toolCalls).toBe(3);
        expect(result.stepsBeforeStop).toBe(3);
      } finally {
        consoleError.mockRestore();
      }
    });
  });

  describe("metrics", () => {
    it("exposes the recorded run, tool calls and retries with bounded tool labels", async () => {
      const { print } = capture();
      const { exposition } = await metrics(print);
      expect(exposition).toContain('react_agent_runs_total{status="success"} 1');
      expect(exposition).toContain('react_agent_tool_calls_total{tool="search",outcome="timeout"} 1');
      expect(exposition).toContain('react_agent_tool_calls_total{tool="unregistered",outcome="error"} 1');
      expect(exposition).not.toContain("rm -rf");
    });
  });

  describe("react-agent", () => {
    it("finishes through the unknown tool, the markdown reply and the flaky tool with stopReason final_answer", async () => {
      const { print } = capture();
      const result = await reactAgent(print);
      expect(result.modelCalls).toBe(3);
      expect(result.correctiveObservation).toContain("weather_api");
      expect(result.correctiveObservation).toContain("weather");
      expect(result.output).toBe("It is 22 °C with light rain in Paris.");
      expect(result.stopReason).toBe("final_answer");
      expect(result.weatherAttempts).toBe(3);
      expect(result.toolCallsMetric).toContain('tool="weather",outcome="success"} 1');
    });
  });
});
