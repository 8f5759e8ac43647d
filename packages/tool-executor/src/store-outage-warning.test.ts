import { DynamicTool } from "@langchain/core/tools";
import { ToolExecutor } from "./index";

/** A store that fails while `down` is true. */
function flakyStore() {
  const entries = new Map<string, { value: unknown; storedAtMs: number }>();
  const state = { down: true };
  return {
    state,
    store: {
      get: async (key: string) => {
        if (state.down) throw new Error("connect ECONNREFUSED 127.0.0.1:6379");
        return entries.get(key);
      },
      set: async (key: string, entry: { value: unknown; storedAtMs: number }) => {
        if (state.down) throw new Error("connect ECONNREFUSED 127.0.0.1:6379");
        entries.set(key, entry);
      },
    },
  };
}

const lookup = () => new DynamicTool({ name: "lookup", description: "Looks up.", func: async (input) => `result for ${input}` });

describe("a cache store outage with no logger", () => {
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(console, "warn").mockImplementation(() => {});
  });
  afterEach(() => warn.mockRestore());

  it("warns on the console once per outage, and again after the store worked and failed anew", async () => {
    const { store, state } = flakyStore();
    const [wrapped] = new ToolExecutor({ defaults: { cache: { ttlMs: 60_000, scope: "global", store } } }).wrap([lookup()]);
    expect(await wrapped.invoke("a")).toBe("result for a"); // the call still runs, without the cache
    await wrapped.invoke("b");
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/cache store failed on get for tool "lookup" \(connect ECONNREFUSED.*pass \{ logger \}/);
    state.down = false;
    await wrapped.invoke("c");
    state.down = true;
    await wrapped.invoke("d");
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it("stays off the console when a logger is given, which gets every failure", async () => {
    const { store } = flakyStore();
    const logged: string[] = [];
    const logger = { warn: (message: string) => logged.push(message) };
    const [wrapped] = new ToolExecutor({ logger, defaults: { cache: { ttlMs: 60_000, scope: "global", store } } }).wrap([lookup()]);
    await wrapped.invoke("a");
    await wrapped.invoke("b");
    expect(warn).not.toHaveBeenCalled();
    expect(logged.filter((message) => /Cache store failed on get/.test(message))).toHaveLength(2);
  });

  it("is silenced by logger: {}", async () => {
    const { store } = flakyStore();
    const [wrapped] = new ToolExecutor({ logger: {}, defaults: { cache: { ttlMs: 60_000, scope: "global", store } } }).wrap([lookup()]);
    await wrapped.invoke("a");
    expect(warn).not.toHaveBeenCalled();
  });
});
