import { RunContextStore, runIdsFrom } from "./run-context";

describe("RunContextStore", () => {
  describe("with nested runs", () => {
    it("finds the top-level context from any depth and frees it all on release", () => {
      const store = new RunContextStore({ now: () => 5 });
      const context = store.start("root");
      store.link("agent", "root");
      store.link("llm", "agent");
      expect(store.contextOf("llm")).toBe(context);
      expect(context.startedAtMs).toBe(5);
      store.release("root");
      expect(store.size).toBe(0);
      expect(store.linkCount).toBe(0);
      expect(store.contextOf("llm")).toBeUndefined();
    });
  });
});

describe("runIdsFrom", () => {
  it("reads a run manager's ids, most specific first", () => {
    expect(runIdsFrom({ runId: "tool", parentRunId: "exec" })).toEqual(["tool", "exec"]);
  });
  it("returns nothing for non-objects", () => {
    expect(runIdsFrom(undefined)).toEqual([]);
  });
});
