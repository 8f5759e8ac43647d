import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { DynamicTool, tool } from "@langchain/core/tools";
import { RunContextStore, type ToolCallEvent } from "@reins/core";
import { z } from "zod";
import { confirmationLedgerOf, createConfirmationToken } from "./confirmation";
import { SideEffectNotApprovedError } from "./errors";
import { DEFAULT_MAX_CONFIRMABLE_INPUT_CHARS } from "./index";
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

  describe("a token confirms exactly the input its dry run showed", () => {
    /** A side-effect string tool (`run_sql`) and an object tool (`send_email` with a body) in one run. */
    function sqlSetUp(policy: ToolPolicy = {}) {
      const ran: unknown[] = [];
      const store = new RunContextStore();
      store.start("run-1");
      const config = { runId: "run-1" };
      const executor = new ToolExecutor({ runContext: store, policies: { run_sql: { sideEffects: true, ...policy }, send_email: { sideEffects: true, ...policy } } });
      const [sql, email] = executor.wrap([
        new DynamicTool({ name: "run_sql", description: "Runs a SQL statement.", func: async (input: string) => {
          ran.push(input);
          return "done";
        } }),
        tool(
          async (input: { to: string; body: string }) => {
            ran.push(input);
            return "sent";
          },
          { name: "send_email", description: "Sends an email.", schema: z.object({ to: z.string(), body: z.string() }) },
        ),
      ]);
      return { ran, sql: (input: string) => sql.invoke(input, config), email: (input: Record<string, unknown>) => email.invoke(input as never, config) };
    }

    // Each row: the input the dry run showed, and an input that differs only in what a normalised key folds away.
    it.each([
      ["a line comment turned into a line break", "SELECT 1 -- DROP TABLE users", "SELECT 1 --\nDROP TABLE users"],
      ["whitespace runs folded", "rm  /tmp/a", "rm /tmp/a"],
      ["a tab for a space", "DELETE FROM t WHERE id = 1", "DELETE FROM t WHERE id =\t1"],
      ["surrounding spaces trimmed", "DROP TABLE x ", "DROP TABLE x"],
      ["wrapping quotes stripped", '"DROP TABLE x"', "DROP TABLE x"],
      ["JSON text re-read as its value", '{"b": 1, "a": 2}', '{"a":2,"b":1}'],
    ])("on a string tool (%s): the dry run's token does not confirm the other form, which gets its own dry run", async (_case, shown, other) => {
      const { ran, sql } = sqlSetUp();
      const dryRun = String(await sql(shown));
      expect(dryRun).toContain(`It would run with input ${JSON.stringify(shown)}.`);
      const token = tokenOf(dryRun);
      const refused = String(await sql(JSON.stringify({ input: other, confirm: token })));
      expect(refused).toMatch(/^DRY RUN/);
      expect(refused).toContain(`It would run with input ${JSON.stringify(other)}.`);
      expect(tokenOf(refused)).not.toBe(token);
      expect(ran).toEqual([]);
      expect(await sql(JSON.stringify({ input: shown, confirm: token }))).toBe("done");
      expect(ran).toEqual([shown]);
    });

    it.each([
      ["a body's whitespace folded", { to: "a@example.com", body: "Hi,\n\nsee you" }, { to: "a@example.com", body: "Hi, see you" }],
      ["a value trimmed", { to: "a@example.com ", body: "x" }, { to: "a@example.com", body: "x" }],
    ])("on an object tool (%s): the token does not confirm the other input", async (_case, shown, other) => {
      const { ran, email } = sqlSetUp();
      const token = tokenOf(await email(shown));
      expect(String(await email({ ...other, confirm: token }))).toMatch(/^DRY RUN/);
      expect(ran).toEqual([]);
    });

    it("binds an object by its canonical JSON: the same fields in another key order confirm", async () => {
      const { ran, email } = sqlSetUp();
      const token = tokenOf(await email({ to: "a@example.com", body: "x" }));
      expect(await email({ confirm: token, body: "x", to: "a@example.com" })).toBe("sent");
      expect(ran).toEqual([{ to: "a@example.com", body: "x" }]);
    });
  });

  describe("an input longer than the dry run shows whole", () => {
    it(`shows inputs up to DEFAULT_MAX_CONFIRMABLE_INPUT_CHARS (${DEFAULT_MAX_CONFIRMABLE_INPUT_CHARS}) whole, with a token`, async () => {
      const { sent, invoke } = setUp();
      // A recipient after a long body: a preview cut anywhere before it would confirm it unseen.
      const frame = JSON.stringify({ to: "a@example.com", body: "", cc: "boss@example.com" }).length;
      const input = { to: "a@example.com", body: "x".repeat(DEFAULT_MAX_CONFIRMABLE_INPUT_CHARS - frame), cc: "boss@example.com" };
      const text = JSON.stringify(input);
      expect(text.length).toBe(DEFAULT_MAX_CONFIRMABLE_INPUT_CHARS);
      const dryRun = String(await invoke(input));
      expect(dryRun).toContain(`It would run with input ${text}.`);
      expect(await invoke({ ...input, confirm: tokenOf(dryRun) })).toBe("sent to a@example.com");
      expect(sent).toHaveLength(1);
    });

    it.each([
      ["the default", {}, DEFAULT_MAX_CONFIRMABLE_INPUT_CHARS],
      ["a policy's maxConfirmableInputChars", { maxConfirmableInputChars: 100 }, 100],
    ] as const)("over %s: no token is issued or accepted, the cut is marked and the dry run asks for approve", async (_limit, policy, maxChars) => {
      const { sent, invoke, events } = setUp(policy);
      const input = { to: "a@example.com", body: "y".repeat(maxChars) };
      const dryRun = String(await invoke(input));
      expect(dryRun).toMatch(/^DRY RUN: tool "send_email" has side effects and was NOT executed\. It would run with input /);
      expect(dryRun).toMatch(/… \(\d+ more characters not shown\)/);
      expect(dryRun).toContain(`longer than the ${maxChars} characters a dry run shows whole`);
      expect(dryRun).toContain("approve hook");
      expect(dryRun).not.toMatch(/ok-[0-9a-f]{8}/);
      // Neither a guessed token nor a repeat runs it.
      expect(String(await invoke({ ...input, confirm: "ok-00000000" }))).not.toMatch(/ok-[0-9a-f]{8}/);
      expect(sent).toEqual([]);
      expect(events.map((event) => event.outcome)).toEqual(["dry_run", "dry_run"]);
    });

    it("is still decided by an approve hook", async () => {
      const shown: boolean[] = [];
      const { sent, invoke } = setUp({
        maxConfirmableInputChars: 50,
        approve: (_call, context) => {
          shown.push(context.dryRunShown);
          return true;
        },
      });
      expect(await invoke({ to: "a@example.com", body: "z".repeat(200) })).toBe("sent to a@example.com");
      expect(sent).toHaveLength(1);
      expect(shown).toEqual([false]);
    });

    it("appends the approve hint, not a token, to a user's own preview", async () => {
      const { invoke } = setUp({ maxConfirmableInputChars: 50, preview: () => "Would send a long email." });
      const preview = String(await invoke({ to: "a@example.com", body: "z".repeat(200) }));
      expect(preview).toMatch(/^Would send a long email\.\nThis input is longer than the 50 characters/);
      expect(preview).not.toMatch(/ok-[0-9a-f]{8}/);
    });

    it("rejects a maxConfirmableInputChars that is not a positive integer, naming the field", () => {
      expect(() => new ToolExecutor({ policies: { send_email: { sideEffects: true, maxConfirmableInputChars: 0 } } })).toThrow(/maxConfirmableInputChars/);
      expect(() => new ToolExecutor({ policies: { send_email: { sideEffects: true, maxConfirmableInputChars: 1.5 } } })).toThrow(/maxConfirmableInputChars/);
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
