import { DynamicTool } from "@langchain/core/tools";
import { InMemoryToolResultStore, isFreshCachedResult, type ToolResultStore } from "./result-store";
import { ToolExecutor } from "./tool-executor";

function countingTool(name: string): { tool: DynamicTool; calls: string[] } {
  const calls: string[] = [];
  const tool = new DynamicTool({ name, description: `${name} tool`, func: async (input: string) => {
    calls.push(input);
    return `r:${input}`;
  } });
  return { tool, calls };
}

describe("isFreshCachedResult", () => {
  describe("an entry of the documented shape", () => {
    it("is fresh from the moment it is stored until ttlMs have passed by the reader's clock", () => {
      expect(isFreshCachedResult({ value: 1, storedAtMs: 1_000 }, 1_000, 500)).toBe(true);
      expect(isFreshCachedResult({ value: 1, storedAtMs: 1_000 }, 1_499, 500)).toBe(true);
      expect(isFreshCachedResult({ value: 1, storedAtMs: 1_000 }, 1_500, 500)).toBe(false);
    });

    it("is never fresh when stamped in the future, however far", () => {
      expect(isFreshCachedResult({ value: 1, storedAtMs: 1_001 }, 1_000, 500)).toBe(false);
      expect(isFreshCachedResult({ value: 1, storedAtMs: 1_000 + 365 * 86_400_000 }, 1_000, 500)).toBe(false);
    });
  });

  describe("anything else", () => {
    it.each([
      ["undefined", undefined],
      ["null", null],
      ["a string", "{\"value\":1,\"storedAtMs\":1000}"],
      ["an array", [1, 1000]],
      ["no value", { storedAtMs: 1_000 }],
      ["a string storedAtMs", { value: 1, storedAtMs: "1000" }],
      ["a NaN storedAtMs", { value: 1, storedAtMs: Number.NaN }],
      ["an infinite storedAtMs", { value: 1, storedAtMs: -Infinity }],
    ])("rejects %s", (_name, entry) => {
      expect(isFreshCachedResult(entry, 1_000, 500)).toBe(false);
    });
  });
});

describe("ToolExecutor", () => {
  describe("cache with a shared store that holds an entry stamped a year ahead and no TTL of its own", () => {
    it("calls the tool instead of serving it, and a fresh entry it writes is served", async () => {
      const clock = 1_700_000_000_000;
      // Like Redis without PX: JSON text kept for ever, the documented `{ value, storedAtMs }` shape.
      const texts = new Map<string, string>();
      const store: ToolResultStore = {
        get: (key) => {
          const text = texts.get(key);
          return text === undefined ? undefined : JSON.parse(text);
        },
        set: (key, entry) => void texts.set(key, JSON.stringify(entry)),
      };
      const counting = countingTool("search");
      const [wrapped] = new ToolExecutor({ now: () => clock, defaults: { cache: { ttlMs: 60_000, scope: "global", store } } }).wrap([counting.tool]);
      await wrapped.invoke("warm");
      const [key] = [...texts.keys()];
      const { keyCheck } = JSON.parse(texts.get(key as string) as string) as { keyCheck: string };
      texts.set(key as string, JSON.stringify({ value: "stale from the future", storedAtMs: clock + 365 * 86_400_000, keyCheck }));
      await expect(wrapped.invoke("warm")).resolves.toBe("r:warm");
      expect(counting.calls).toEqual(["warm", "warm"]);
      expect(JSON.parse(texts.get(key as string) as string)).toEqual({ value: "r:warm", storedAtMs: clock, keyCheck });
      await expect(wrapped.invoke("warm")).resolves.toBe("r:warm");
      expect(counting.calls).toEqual(["warm", "warm"]);
    });
  });

  describe("cache with the in-memory store", () => {
    it("keeps serving within the TTL", async () => {
      let clock = 0;
      const store = new InMemoryToolResultStore({ now: () => clock });
      const counting = countingTool("search");
      const [wrapped] = new ToolExecutor({ now: () => clock, defaults: { cache: { ttlMs: 1_000, scope: "global", store } } }).wrap([counting.tool]);
      await wrapped.invoke("a");
      clock = 999;
      await wrapped.invoke("a");
      expect(counting.calls).toEqual(["a"]);
    });
  });
});
