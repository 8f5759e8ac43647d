import type { ReinsEvent } from "@reins/core";
import { ToolProgress } from "./tool-progress";

describe("ToolProgress", () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  const start = (callId: string, toolName = "stock_quote"): ReinsEvent => ({ type: "tool_start", toolName, callId, runId: "run-1" });
  const end = (callId: string, toolName = "stock_quote"): ReinsEvent => ({ type: "tool_call", toolName, outcome: "timeout", durationMs: 0, callId, runId: "run-1" });

  it("writes a line with the elapsed seconds every interval while a call runs, and none after it settles", () => {
    const lines: string[] = [];
    const progress = new ToolProgress({ write: (text) => lines.push(text), everyMs: 5000 });
    progress.record(start("call-1"));
    jest.advanceTimersByTime(4999);
    expect(lines).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(lines).toEqual(["  … stock_quote running 5 s\n"]);
    jest.advanceTimersByTime(10_000);
    expect(lines).toEqual(["  … stock_quote running 5 s\n", "  … stock_quote running 10 s\n", "  … stock_quote running 15 s\n"]);
    progress.record(end("call-1"));
    expect(progress.runningCalls).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(3);
  });

  it("keeps one line per running call, each with its own elapsed time", () => {
    const lines: string[] = [];
    const progress = new ToolProgress({ write: (text) => lines.push(text), everyMs: 2000 });
    progress.record(start("call-1", "fetch_page"));
    jest.advanceTimersByTime(1000);
    progress.record(start("call-2", "stock_quote"));
    jest.advanceTimersByTime(2000);
    expect(lines).toEqual(["  … fetch_page running 2 s\n", "  … stock_quote running 2 s\n"]);
    progress.record(end("call-1", "fetch_page"));
    jest.advanceTimersByTime(2000);
    expect(lines.slice(2)).toEqual(["  … stock_quote running 4 s\n"]);
  });

  it("clears every timer on stop(), and its timers never hold the process open", () => {
    const progress = new ToolProgress({ write: () => undefined });
    progress.record(start("call-1"));
    progress.record(start("call-2"));
    expect(jest.getTimerCount()).toBe(2);
    progress.stop();
    expect(jest.getTimerCount()).toBe(0);
    jest.useRealTimers();
    const real = new ToolProgress({ write: () => undefined, everyMs: 60_000 });
    const spy = jest.spyOn(global, "setInterval");
    real.record(start("call-3"));
    const timer = spy.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    real.stop();
    spy.mockRestore();
  });

  it("ignores events without a call id and rejects a bad interval", () => {
    const progress = new ToolProgress({ write: () => undefined });
    progress.record({ type: "tool_call", toolName: "x", outcome: "success", durationMs: 1 });
    progress.record({ type: "step", runId: "r", step: "action" } as ReinsEvent);
    expect(progress.runningCalls).toBe(0);
    expect(() => new ToolProgress({ write: () => undefined, everyMs: 0 })).toThrow("everyMs must be a positive number");
  });
});
