import { callFailedIn, MAX_RUN_CALL_RECORDS, recordRunCall, RunContextStore, runIdsFrom } from "./run-context";

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

describe("the run's call records", () => {
  it("keep typed outcomes, bounded, and tell a failed or refused call from one merely worded like a failure", () => {
    const store = new RunContextStore();
    const context = store.start("run-1");
    const step = (tool: string, toolInput: unknown, observation: string) => ({ action: { tool, toolInput }, observation });
    expect(callFailedIn(context, step("search", "a", "x"))).toBeUndefined();
    recordRunCall(context, { toolName: "send_email", toolInput: { to: "a" }, outcome: "dry_run", observation: "DRY RUN …", durationMs: 1 });
    recordRunCall(context, { toolName: "search", toolInput: "a", outcome: "success", observation: 'Tool "search" failed: it is the data', durationMs: 1 });
    expect(callFailedIn(context, step("send_email", { to: "a" }, "DRY RUN …"))).toBe(true);
    expect(callFailedIn(context, step("search", "a", 'Tool "search" failed: it is the data'))).toBe(false);
    expect(callFailedIn(context, step("search", "b", 'Tool "search" failed: it is the data'))).toBeUndefined();
    for (let index = 0; index < MAX_RUN_CALL_RECORDS + 5; index += 1) {
      recordRunCall(context, { toolName: "t", toolInput: index, outcome: "success", observation: "ok", durationMs: 0 });
    }
    expect(context.calls).toHaveLength(MAX_RUN_CALL_RECORDS);
    expect(callFailedIn(context, step("send_email", { to: "a" }, "DRY RUN …"))).toBeUndefined();
  });
});
