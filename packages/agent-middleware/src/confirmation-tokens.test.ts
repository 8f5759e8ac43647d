// createAgent: a dry run's confirmation token belongs to the run in Reins' own run record
// (`state.reinsRun.runId`), so it holds across an interrupt of that run, and only there.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent, humanInTheLoopMiddleware } from "langchain";
import { z } from "zod/v4";
import { createReinsMiddleware } from "./index";

const TOKEN = /"confirm": "(ok-[0-9a-f]{8})"/;

function emailTool(sent: string[]) {
  return tool(
    async ({ to }: { to: string }) => {
      sent.push(to);
      return `sent to ${to}`;
    },
    { name: "send_email", description: "Sends an email.", schema: z.object({ to: z.string() }) },
  );
}

/** The token of the latest dry run among the messages. */
function latestToken(messages: readonly BaseMessage[]): string | undefined {
  const results = messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
  for (let index = results.length - 1; index >= 0; index -= 1) {
    const token = TOKEN.exec(String(results[index].content))?.[1];
    if (token !== undefined) return token;
  }
  return undefined;
}

/** Asks for the email, then confirms with the token its own dry run showed, then answers. */
function confirmingModel() {
  return fakeModel()
    .respondWithTools([{ name: "send_email", args: { to: "a@example.com" }, id: "ask" }])
    .respond((messages: BaseMessage[]) => new AIMessage({ content: "", tool_calls: [{ name: "send_email", args: { to: "a@example.com", confirm: latestToken(messages) ?? "none" }, id: "confirm", type: "tool_call" }] }))
    .respond(new AIMessage("Sent."));
}

describe("createReinsMiddleware: confirmation tokens", () => {
  describe.each(["invoke", "stream"] as const)("a run paused at an interrupt between its dry run and the confirmation (%s)", (path) => {
    it("keeps its token when resumed by the same agent: the confirmed call runs once", async () => {
      const sent: string[] = [];
      const agent = createAgent({
        model: confirmingModel(),
        tools: [emailTool(sent)],
        middleware: [createReinsMiddleware({ toolExecutor: { policies: { send_email: { sideEffects: true } } } }), humanInTheLoopMiddleware({ interruptOn: { send_email: true } })],
        checkpointer: new MemorySaver(),
      });
      const config = { configurable: { thread_id: `resume-${path}` } };
      const run = async (input: unknown): Promise<{ messages: BaseMessage[]; __interrupt__?: unknown; reinsRun?: { runId: string } }> => {
        if (path === "invoke") return (await agent.invoke(input as never, config)) as never;
        let last: unknown;
        for await (const chunk of await agent.stream(input as never, { ...config, streamMode: "values" as const })) last = chunk;
        const state = (await agent.getState(config)) as { tasks: { interrupts: unknown[] }[] };
        return { ...(last as object), ...(state.tasks.some((task) => task.interrupts.length > 0) ? { __interrupt__: true } : {}) } as never;
      };
      const approve = new Command({ resume: { decisions: [{ type: "approve" }] } });
      let result = await run({ messages: [new HumanMessage("Email a@example.com.")] });
      const runIds = new Set<string>();
      let resumes = 0;
      while (result.__interrupt__ !== undefined && resumes < 5) {
        if (result.reinsRun !== undefined) runIds.add(result.reinsRun.runId);
        resumes += 1;
        result = await run(approve);
      }
      expect(resumes).toBe(2);
      expect(sent).toEqual(["a@example.com"]);
      const outcomes = result.messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message)).map((message) => message.metadata?.reinsOutcome);
      expect(outcomes).toEqual(["dry_run", "success"]);
      // One run throughout: the token was issued and confirmed under the same run record.
      if (result.reinsRun !== undefined) runIds.add(result.reinsRun.runId);
      expect(runIds.size).toBe(1);
    });
  });

  describe.each(["invoke", "stream"] as const)("a confirmation of another input than the dry run showed (%s)", (path) => {
    const sqlTool = (ran: string[]) =>
      tool(
        async ({ query }: { query: string }) => {
          ran.push(query);
          return "done";
        },
        { name: "run_sql", description: "Runs a SQL statement.", schema: z.object({ query: z.string() }) },
      );

    async function runOn(agent: ReturnType<typeof createAgent>): Promise<BaseMessage[]> {
      const input = { messages: [new HumanMessage("Run it.")] };
      if (path === "invoke") return (await agent.invoke(input)).messages;
      let last: { messages: BaseMessage[] } | undefined;
      for await (const chunk of await agent.stream(input, { streamMode: "values" })) last = chunk as { messages: BaseMessage[] };
      return last?.messages ?? [];
    }

    it.each([
      ["a line comment turned into a line break", "SELECT 1 -- DROP TABLE users", "SELECT 1 --\nDROP TABLE users"],
      ["whitespace folded", "DELETE FROM t WHERE id = 1  OR 1=1", "DELETE FROM t WHERE id = 1 OR 1=1"],
    ])("%s: gets its own dry run; the token confirms only the shown input", async (_case, shown, other) => {
      const ran: string[] = [];
      const model = fakeModel()
        .respondWithTools([{ name: "run_sql", args: { query: shown }, id: "ask" }])
        .respond((messages: BaseMessage[]) => new AIMessage({ content: "", tool_calls: [{ name: "run_sql", args: { query: other, confirm: latestToken(messages) ?? "none" }, id: "swap", type: "tool_call" }] }))
        .respond(new AIMessage("Stopped."));
      const agent = createAgent({ model, tools: [sqlTool(ran)], middleware: [createReinsMiddleware({ toolExecutor: { policies: { run_sql: { sideEffects: true } } } })] });
      const messages = await runOn(agent);
      expect(ran).toEqual([]);
      const results = messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
      expect(results.map((message) => message.metadata?.reinsOutcome)).toEqual(["dry_run", "dry_run"]);
      expect(String(results[1]?.content)).toContain(JSON.stringify({ query: other }));
    });

    it("an input longer than maxConfirmableInputChars gets no token and asks for approve", async () => {
      const ran: string[] = [];
      const query = `SELECT ${"x, ".repeat(80)}1`;
      const model = fakeModel().respondWithTools([{ name: "run_sql", args: { query }, id: "ask" }]).respond(new AIMessage("Needs approval."));
      const agent = createAgent({ model, tools: [sqlTool(ran)], middleware: [createReinsMiddleware({ toolExecutor: { policies: { run_sql: { sideEffects: true, maxConfirmableInputChars: 100 } } } })] });
      const [dryRun] = (await runOn(agent)).filter((message): message is ToolMessage => ToolMessage.isInstance(message));
      expect(dryRun?.metadata?.reinsOutcome).toBe("dry_run");
      expect(String(dryRun?.content)).toContain("approve hook");
      expect(String(dryRun?.content)).not.toMatch(/ok-[0-9a-f]{8}/);
      expect(ran).toEqual([]);
    });
  });

  it("does not carry a token into the thread's next run: a new input is a new run, whose confirmation gets its own dry run", async () => {
    const sent: string[] = [];
    let token: string | undefined;
    const model = fakeModel()
      .respondWithTools([{ name: "send_email", args: { to: "a@example.com" }, id: "ask" }])
      .respond((messages: BaseMessage[]) => {
        token = latestToken(messages);
        return new AIMessage("Shall I send it?");
      })
      .respond(() => new AIMessage({ content: "", tool_calls: [{ name: "send_email", args: { to: "a@example.com", confirm: token ?? "none" }, id: "replay", type: "tool_call" }] }))
      .respond(new AIMessage("Done."));
    const agent = createAgent({
      model,
      tools: [emailTool(sent)],
      middleware: [createReinsMiddleware({ toolExecutor: { policies: { send_email: { sideEffects: true } } } })],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "next-run" } };
    const first = await agent.invoke({ messages: [new HumanMessage("Email a@example.com.")] }, config);
    expect(token).toMatch(/^ok-[0-9a-f]{8}$/);
    const second = await agent.invoke({ messages: [new HumanMessage("Yes.")] }, config);
    expect(second.reinsRun?.runId).not.toBe(first.reinsRun?.runId);
    expect(sent).toEqual([]);
    const last = second.messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message)).at(-1);
    expect(last?.metadata?.reinsOutcome).toBe("dry_run");
  });
});
