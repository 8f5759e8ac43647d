import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { DynamicTool, tool } from "@langchain/core/tools";
import { RunContextStore, type ToolCallEvent } from "@reins/core";
import { z } from "zod";
import { confirmationLedgerOf, createConfirmationToken } from "./confirmation";
import { SideEffectNotApprovedError } from "./errors";
import { ToolExecutor } from "./tool-executor";
import type { ToolPolicy } from "./tool-policy";

class NoopHandler extends BaseCallbackHandler {
  name = "noop";
}

const TOKEN = /"confirm": "(ok-[0-9a-f]{8})"/;

function tokenOf(observation: unknown): string {
  const token = TOKEN.exec(String(observation))?.[1];
  if (token === undefined) throw new Error(`no confirmation token in ${String(observation)}`);
  return token;
}

/** A side-effect `send_email` tool in one run of a fresh store; every call is a new tool run of that run. */
function setUp(policy: ToolPolicy = {}, runId = "run-1", store = new RunContextStore()) {
  const sent: unknown[] = [];
  const events: ToolCallEvent[] = [];
  const sendEmail = tool(
    async (input: { to: string }) => {
      sent.push(input);
      return `sent to ${input.to}`;
    },
    { name: "send_email", description: "Sends an email.", schema: z.object({ to: z.string() }) },
  );
  const executor = new ToolExecutor({
    runContext: store,
    policies: { send_email: { sideEffects: true, ...policy } },
    onEvent: (event) => {
      if (event.type === "tool_call") events.push(event);
    },
  });
  const [wrapped] = executor.wrap([sendEmail]);
  store.start(runId);
  let call = 0;
  const invoke = (input: Record<string, unknown>): Promise<unknown> => {
    call += 1;
    const toolRunId = `${runId}-tool-${call}`;
    store.link(toolRunId, runId);
    return wrapped.invoke(input as never, { runId: toolRunId, callbacks: [new NoopHandler()] });
  };
  return { sent, events, invoke, wrapped, store };
}

describe("side-effect confirmation", () => {
  describe("without an approve hook", () => {
    it("dry-runs a call confirmed before any dry run, and again with another token", async () => {
      const { sent, invoke, events } = setUp();
      const first = await invoke({ to: "a@example.com", confirm: true });
      expect(first).toMatch(/^DRY RUN/);
      const guessed = await invoke({ to: "a@example.com", confirm: "ok-00000000" });
      expect(guessed).toMatch(/^DRY RUN/);
      expect(tokenOf(guessed)).toBe(tokenOf(first));
      expect(sent).toEqual([]);
      expect(events.map((event) => event.outcome)).toEqual(["dry_run", "dry_run"]);
    });

    it("runs only with the token of a dry run of the same input", async () => {
      const { sent, invoke } = setUp();
      const token = tokenOf(await invoke({ to: "a@example.com" }));
      expect(await invoke({ to: "b@example.com", confirm: token })).toMatch(/^DRY RUN/);
      expect(await invoke({ to: "a@example.com", confirm: token })).toBe("sent to a@example.com");
      expect(sent).toEqual([{ to: "a@example.com" }]);
    });

    it("gives each run its own token: a token from another run is a dry run", async () => {
      const store = new RunContextStore();
      const one = setUp({}, "run-1", store);
      const token = tokenOf(await one.invoke({ to: "a@example.com" }));
      store.start("run-2");
      store.link("run-2-tool-1", "run-2");
      const other = await one.wrapped.invoke({ to: "a@example.com", confirm: token } as never, { runId: "run-2-tool-1", callbacks: [new NoopHandler()] });
      expect(other).toMatch(/^DRY RUN/);
      expect(tokenOf(other)).not.toBe(token);
      expect(one.sent).toEqual([]);
    });

    it("asks a user's confirmWhen only after a dry run of the same call", async () => {
      const asked: unknown[] = [];
      const { sent, invoke } = setUp({
        confirmWhen: (input) => {
          asked.push(input);
          return (input as { confirm?: unknown }).confirm === "yes";
        },
      });
      expect(await invoke({ to: "a@example.com", confirm: "yes" })).toMatch(/^DRY RUN.*explicit confirmation/);
      expect(asked).toEqual([]);
      expect(await invoke({ to: "a@example.com", confirm: "yes" })).toBe("sent to a@example.com");
      expect(asked).toEqual([{ to: "a@example.com", confirm: "yes" }]);
      expect(sent).toHaveLength(1);
    });

    it("appends the token to a user's own preview", async () => {
      const { invoke } = setUp({ preview: (input) => `Would email ${(input as { to: string }).to}.` });
      const preview = String(await invoke({ to: "a@example.com" }));
      expect(preview).toMatch(/^Would email a@example.com\.\nTo really run "send_email", call it again with the same input and the confirmation "confirm": "ok-[0-9a-f]{8}"\./);
    });
  });

  describe("with an approve hook", () => {
    it("wins over the token: an approved call runs without a dry run", async () => {
      const calls: unknown[] = [];
      const { sent, invoke } = setUp({
        approve: async (call, context) => {
          calls.push([call, context.dryRunShown]);
          return true;
        },
      });
      expect(await invoke({ to: "a@example.com" })).toBe("sent to a@example.com");
      expect(sent).toHaveLength(1);
      expect(calls).toEqual([[{ toolName: "send_email", toolInput: { to: "a@example.com" } }, false]]);
    });

    it.each([
      ["refuses", () => false],
      ["throws", () => {
        throw new Error("reviewer unreachable");
      }],
    ])("tells the model the action was not approved when the hook %s, even with a valid token", async (_what, approve) => {
      const { sent, invoke, events } = setUp({ approve });
      const observation = await invoke({ to: "a@example.com", confirm: "ok-00000000" });
      expect(observation).toMatch(/^Tool "send_email" was not run: this action was not approved/);
      expect(sent).toEqual([]);
      expect(events[0].outcome).toBe("rejected");
      expect(SideEffectNotApprovedError.isInstance(events[0].error)).toBe(true);
    });
  });

  describe("on a string-input tool", () => {
    it("asks for {input, confirm} and runs with the input alone", async () => {
      const deleted: string[] = [];
      const store = new RunContextStore();
      store.start("run-1");
      const config = { runId: "run-1" };
      const [wrapped] = new ToolExecutor({ runContext: store, policies: { rm: { sideEffects: true } } }).wrap([
        new DynamicTool({ name: "rm", description: "Deletes a file.", func: async (input: string) => {
          deleted.push(input);
          return "deleted";
        } }),
      ]);
      expect(await wrapped.invoke("CONFIRM: /tmp/x", config)).toMatch(/^DRY RUN/);
      const preview = await wrapped.invoke("/tmp/x", config);
      expect(await wrapped.invoke(JSON.stringify({ input: "/tmp/x", confirm: tokenOf(preview) }))).toMatch(/^DRY RUN.*cannot be confirmed from here/);
      expect(await wrapped.invoke(JSON.stringify({ input: "/tmp/x", confirm: tokenOf(preview) }), config)).toBe("deleted");
      expect(deleted).toEqual(["/tmp/x"]);
    });
  });

  describe("createConfirmationToken and confirmationLedgerOf", () => {
    it("makes distinct tokens and keeps one ledger per run key", () => {
      const tokens = new Set(Array.from({ length: 100 }, () => createConfirmationToken()));
      expect(tokens.size).toBe(100);
      const run = {};
      expect(confirmationLedgerOf(run)).toBe(confirmationLedgerOf(run));
      expect(confirmationLedgerOf({})).not.toBe(confirmationLedgerOf(run));
    });
  });
});
