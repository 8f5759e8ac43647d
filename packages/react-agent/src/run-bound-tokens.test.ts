// A dry run's confirmation token counts only in the run whose own trajectory holds that dry run:
// a token replayed into another run never runs the side-effect tool, on every classic path.
import { AgentExecutor, createReactAgent as createStockReactAgent } from "@langchain/classic/agents";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicStructuredTool, DynamicTool } from "@langchain/core/tools";
import { z } from "zod";
import { REACT_PROMPT_TEMPLATE, type ToolCallEvent } from "@reins/core";
import { ScriptedChatModel } from "@reins/testing";
import { ToolExecutor } from "@reins/tool-executor";
import { createReactAgent } from "./index";

const REACT_PROMPT = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);
type Path = "invoke" | "stream" | "streamEvents" | "invoke with callbacks" | "stream with callbacks";
const PATHS: readonly Path[] = ["invoke", "stream", "streamEvents", "invoke with callbacks", "stream with callbacks"];
const TOKEN = /"confirm": "(ok-[0-9a-f]{8})"/;

class NoopHandler extends BaseCallbackHandler {
  name = "noop";
}

async function runOn(executor: AgentExecutor, input: string, path: Path): Promise<Record<string, unknown>> {
  if (path === "invoke") return executor.invoke({ input });
  if (path === "invoke with callbacks") return executor.invoke({ input }, { callbacks: [new NoopHandler()] });
  if (path === "stream" || path === "stream with callbacks") {
    let merged: Record<string, unknown> = {};
    const config = path === "stream" ? undefined : { callbacks: [new NoopHandler()] };
    for await (const chunk of await executor.stream({ input }, config)) merged = { ...merged, ...(chunk as Record<string, unknown>) };
    return merged;
  }
  let merged: Record<string, unknown> = {};
  for await (const event of executor.streamEvents({ input }, { version: "v2" })) {
    if (event.name === "AgentExecutor" && event.event === "on_chain_stream") merged = { ...merged, ...(event.data.chunk as Record<string, unknown>) };
  }
  return merged;
}

/**
 * The model of both runs. "send": asks for the email, confirms with the token its own dry run
 * showed, answers. "replay <token>": confirms at once with a token it never saw, answers.
 */
function tokenModel(asInput: (fields: Record<string, string>) => string): ScriptedChatModel {
  const reply = async (prompt: string): Promise<string> => {
    const question = prompt.slice(prompt.lastIndexOf("\nQuestion: "));
    const step = question.split("\nObservation:").length - 1;
    const replayed = /Question: replay (ok-[0-9a-f]{8})/.exec(question)?.[1];
    if (replayed !== undefined) {
      return step === 0 ? `Thought: confirm\nAction: send_email\nAction Input: ${asInput({ to: "a@example.com", confirm: replayed })}` : "Thought: done\nFinal Answer: replayed";
    }
    if (step === 0) return `Thought: send\nAction: send_email\nAction Input: ${asInput({ to: "a@example.com" })}`;
    const own = TOKEN.exec(question.replace(/\\"/g, '"'))?.[1];
    if (step === 1 && own !== undefined) return `Thought: confirm\nAction: send_email\nAction Input: ${asInput({ to: "a@example.com", confirm: own })}`;
    return "Thought: done\nFinal Answer: sent";
  };
  return new ScriptedChatModel({ replies: [reply], cycle: true, recordCalls: false });
}

function emailTools(sent: string[]): { object: DynamicStructuredTool; text: DynamicTool } {
  return {
    object: new DynamicStructuredTool({
      name: "send_email",
      description: "Sends an email.",
      schema: z.object({ to: z.string() }),
      func: async ({ to }: { to: string }) => {
        sent.push(to);
        return `sent to ${to}`;
      },
    }),
    text: new DynamicTool({
      name: "send_email",
      description: "Sends an email. Input: the address.",
      func: async (to: string) => {
        sent.push(to);
        return `sent to ${to}`;
      },
    }),
  };
}

/** The token of the first dry run among the events. */
function issuedToken(events: readonly ToolCallEvent[]): string {
  const token = events.map((event) => TOKEN.exec(String(event.observation))?.[1]).find((found) => found !== undefined);
  if (token === undefined) throw new Error("no dry run issued a token");
  return token;
}

describe("dry-run tokens are bound to their run", () => {
  describe.each(PATHS)("Reins' createReactAgent on executor.%s", (path) => {
    it.each(["object", "string"] as const)("with a %s-input tool: the run's own token runs the tool once; the same token replayed in another run is a dry run", async (kind) => {
      const sent: string[] = [];
      const events: ToolCallEvent[] = [];
      const asInput = kind === "object" ? (fields: Record<string, string>) => JSON.stringify(fields) : (fields: Record<string, string>) => (fields.confirm === undefined ? fields.to : JSON.stringify({ input: fields.to, confirm: fields.confirm }));
      const agent = await createReactAgent({
        llm: tokenModel(asInput),
        tools: [emailTools(sent)[kind === "object" ? "object" : "text"]],
        prompt: REACT_PROMPT,
        toolExecutor: { policies: { send_email: { sideEffects: true } } },
        // The run's events carry the observations, for the token.
        onEvent: (event) => {
          if (event.type === "tool_call") events.push(event);
        },
      });
      // The content of events is off by default; the observation is read from the steps instead.
      const executor = new AgentExecutor({ agent, tools: agent.tools, returnIntermediateSteps: true });
      const first = await runOn(executor, "send", path);
      expect(first.output).toBe("sent");
      expect(sent).toEqual(["a@example.com"]);
      const steps = first.intermediateSteps as { observation: string }[] | undefined;
      const token = issuedToken(steps === undefined ? events : steps.map((step) => ({ observation: step.observation }) as ToolCallEvent));
      const replay = await runOn(executor, `replay ${token}`, path);
      expect(replay.output).toBe("replayed");
      expect(sent).toEqual(["a@example.com"]);
      expect(events.map((event) => event.outcome)).toEqual(["dry_run", "success", "dry_run"]);
    });
  });

  describe.each(["invoke", "stream"] as const)("ToolExecutor.wrap in the stock createReactAgent (%s)", (stockPath) => {
    async function stock(callbacks: boolean): Promise<{ sent: string[]; events: ToolCallEvent[]; run: (input: string) => Promise<Record<string, unknown>> }> {
      const sent: string[] = [];
      const events: ToolCallEvent[] = [];
      const toolExecutor = new ToolExecutor({
        policies: { send_email: { sideEffects: true } },
        onEvent: (event) => {
          if (event.type === "tool_call") events.push(event);
        },
      });
      const tools = toolExecutor.wrap([emailTools(sent).text]);
      const asInput = (fields: Record<string, string>): string => (fields.confirm === undefined ? fields.to : JSON.stringify({ input: fields.to, confirm: fields.confirm }));
      const agent = await createStockReactAgent({ llm: tokenModel(asInput), tools, prompt: REACT_PROMPT });
      const executor = new AgentExecutor({ agent, tools, returnIntermediateSteps: true });
      const config = callbacks ? { callbacks: [new NoopHandler()] } : {};
      const run = async (input: string): Promise<Record<string, unknown>> => {
        if (stockPath === "invoke") return executor.invoke({ input }, config);
        let merged: Record<string, unknown> = {};
        for await (const chunk of await executor.stream({ input }, config)) {
          const values = chunk as Record<string, unknown>;
          // stream() yields the steps one chunk at a time; keep them all.
          const steps = [...((merged.intermediateSteps as unknown[] | undefined) ?? []), ...((values.intermediateSteps as unknown[] | undefined) ?? [])];
          merged = { ...merged, ...values, intermediateSteps: steps };
        }
        return merged;
      };
      return { sent, events, run };
    }

    it("with callbacks (a run id): the run's own token runs the tool; replayed in another run it is a dry run", async () => {
      const { sent, events, run } = await stock(true);
      const first = await run("send");
      expect(sent).toEqual(["a@example.com"]);
      const token = TOKEN.exec(String((first.intermediateSteps as { observation: string }[])[0].observation))?.[1];
      expect(token).toMatch(/^ok-/);
      await run(`replay ${token}`);
      expect(sent).toEqual(["a@example.com"]);
      expect(events.map((event) => event.outcome)).toEqual(["dry_run", "success", "dry_run"]);
    });

    it("without callbacks (no run to bind a token to): no token is shown or accepted, and the dry run says what the call needs", async () => {
      const { sent, events, run } = await stock(false);
      const first = await run("send");
      const observation = String((first.intermediateSteps as { observation: string }[])[0].observation);
      expect(observation).toMatch(/^DRY RUN: tool "send_email" has side effects and was NOT executed/);
      expect(observation).toMatch(/needs the application's approval \(an approve hook\) or a run that can be identified \(the application passes callbacks/);
      expect(observation).not.toMatch(/ok-[0-9a-f]{8}/);
      // A token issued in a run with callbacks, replayed here, is no confirmation either.
      const other = await stock(true);
      const issued = TOKEN.exec(String(((await other.run("send")).intermediateSteps as { observation: string }[])[0].observation))?.[1];
      expect(issued).toMatch(/^ok-/);
      await run(`replay ${issued}`);
      expect(sent).toEqual([]);
      expect(events.map((event) => event.outcome)).toEqual(["dry_run", "dry_run"]);
    });
  });
});

describe("a dry run repeated for the same call", () => {
  it.each(["invoke", "stream"] as const)("is a repeat (its observation is stable within the run): stopped after three dry runs on %s, the tool never runs", async (path) => {
    const sent: string[] = [];
    const events: ToolCallEvent[] = [];
    const ask = 'Thought: send it\nAction: send_email\nAction Input: {"to": "a@example.com"}';
    const agent = await createReactAgent({
      llm: new ScriptedChatModel({ replies: Array(6).fill(ask) }),
      tools: [emailTools(sent).object],
      prompt: REACT_PROMPT,
      toolExecutor: { policies: { send_email: { sideEffects: true } } },
      onEvent: (event) => {
        if (event.type === "tool_call") events.push(event);
      },
    });
    const executor = new AgentExecutor({ agent, tools: agent.tools, returnIntermediateSteps: true });
    const result = await runOn(executor, "send", path);
    expect(result.stopReason).toBe("repeat");
    expect(sent).toEqual([]);
    expect(events.map((event) => event.outcome)).toEqual(["dry_run", "dry_run", "dry_run"]);
    const observations = (result.intermediateSteps as { observation: string }[]).map((step) => TOKEN.exec(step.observation)?.[1]);
    expect(new Set(observations).size).toBe(1);
  });
});

describe("two invocations given the same LangChain runId", () => {
  type IdPath = "invoke" | "stream" | "streamEvents" | "invoke with callbacks" | "stream with callbacks";
  const ID_PATHS: readonly IdPath[] = ["invoke", "stream", "streamEvents", "invoke with callbacks", "stream with callbacks"];

  async function runWithId(executor: AgentExecutor, input: string, path: IdPath, runId: string): Promise<Record<string, unknown>> {
    const callbacks = path.endsWith("with callbacks") ? { callbacks: [new NoopHandler()] } : {};
    if (path.startsWith("invoke")) return executor.invoke({ input }, { runId, ...callbacks });
    let merged: Record<string, unknown> = {};
    if (path.startsWith("stream ") || path === "stream") {
      for await (const chunk of await executor.stream({ input }, { runId, ...callbacks })) merged = { ...merged, ...(chunk as Record<string, unknown>) };
      return merged;
    }
    for await (const event of executor.streamEvents({ input }, { version: "v2", runId })) {
      if (event.name === "AgentExecutor" && event.event === "on_chain_stream") merged = { ...merged, ...(event.data.chunk as Record<string, unknown>) };
    }
    return merged;
  }

  /**
   * "ask": dry-runs the email, hands the token it saw to `seen`, waits for `release`, answers
   * without confirming. "replay <token>": confirms at once with that token.
   */
  function askThenReplayModel(seen: (token: string) => void, release: Promise<void>): ScriptedChatModel {
    const reply = async (prompt: string): Promise<string> => {
      const question = prompt.slice(prompt.lastIndexOf("\nQuestion: "));
      const step = question.split("\nObservation:").length - 1;
      const replayed = /Question: replay (ok-[0-9a-f]{8})/.exec(question)?.[1];
      if (replayed !== undefined) return step === 0 ? `Thought: confirm\nAction: send_email\nAction Input: ${JSON.stringify({ to: "a@example.com", confirm: replayed })}` : "Thought: done\nFinal Answer: replayed";
      if (step === 0) return `Thought: send\nAction: send_email\nAction Input: ${JSON.stringify({ to: "a@example.com" })}`;
      const token = TOKEN.exec(question.replace(/\\"/g, '"'))?.[1];
      if (token !== undefined) seen(token);
      await release;
      return "Thought: I will ask the user first\nFinal Answer: asked";
    };
    return new ScriptedChatModel({ replies: [reply], cycle: true, recordCalls: false });
  }

  describe.each(ID_PATHS)("on executor.%s", (path) => {
    it.each(["one after the other", "at once"] as const)("do not share a run (%s): one's dry-run token does not confirm the other's call", async (timing) => {
      const sent: string[] = [];
      const events: ToolCallEvent[] = [];
      let seen!: (token: string) => void;
      const token = new Promise<string>((resolve) => (seen = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      if (timing === "one after the other") release();
      const agent = await createReactAgent({
        llm: askThenReplayModel(seen, released),
        tools: [emailTools(sent).object],
        prompt: REACT_PROMPT,
        toolExecutor: { policies: { send_email: { sideEffects: true } } },
        onEvent: (event) => {
          if (event.type === "tool_call") events.push(event);
        },
      });
      const executor = new AgentExecutor({ agent, tools: agent.tools, returnIntermediateSteps: true });
      const runId = "11111111-2222-4333-8444-555555555555";
      const first = runWithId(executor, "ask", path, runId);
      if (timing === "one after the other") expect((await first).output).toBe("asked");
      const issued = await token;
      expect(issued).toMatch(/^ok-[0-9a-f]{8}$/);
      const second = await runWithId(executor, `replay ${issued}`, path, runId);
      release();
      expect((await first).output).toBe("asked");
      expect(second.output).toBe("replayed");
      expect(sent).toEqual([]);
      expect(events.map((event) => event.outcome)).toEqual(["dry_run", "dry_run"]);
    });
  });
});

describe("a confirmation of another input than the dry run showed", () => {
  it.each(["invoke", "stream"] as const)("gets its own dry run on executor.%s: a token binds the exact string its dry run showed", async (path) => {
    const ran: string[] = [];
    const events: ToolCallEvent[] = [];
    const shown = "SELECT 1 -- DROP TABLE users";
    const other = "SELECT 1 --\nDROP TABLE users";
    const reply = async (prompt: string): Promise<string> => {
      const question = prompt.slice(prompt.lastIndexOf("\nQuestion: "));
      const step = question.split("\nObservation:").length - 1;
      if (step === 0) return `Thought: run it\nAction: run_sql\nAction Input: ${shown}`;
      const token = TOKEN.exec(question.replace(/\\"/g, '"'))?.[1];
      if (step === 1) return `Thought: confirm\nAction: run_sql\nAction Input: ${JSON.stringify({ input: other, confirm: token })}`;
      return "Thought: stop\nFinal Answer: not run";
    };
    const agent = await createReactAgent({
      llm: new ScriptedChatModel({ replies: [reply], cycle: true, recordCalls: false }),
      tools: [new DynamicTool({ name: "run_sql", description: "Runs a SQL statement.", func: async (query: string) => {
        ran.push(query);
        return "done";
      } })],
      prompt: REACT_PROMPT,
      toolExecutor: { policies: { run_sql: { sideEffects: true } } },
      onEvent: (event) => {
        if (event.type === "tool_call") events.push(event);
      },
    });
    const executor = new AgentExecutor({ agent, tools: agent.tools, returnIntermediateSteps: true });
    const result = await runOn(executor, "run", path);
    expect(ran).toEqual([]);
    expect(events.map((event) => event.outcome)).toEqual(["dry_run", "dry_run"]);
    const observations = (result.intermediateSteps as { observation: string }[]).map((step) => step.observation);
    expect(observations[0]).toContain(`It would run with input ${JSON.stringify(shown)}.`);
    expect(observations[1]).toContain(`It would run with input ${JSON.stringify(other)}.`);
  });
});
