/**
 * Scripted runs for the createReactAgent tests: the tools (`capital`, `add`), a runner for each
 * executor path, and for the concurrency tests a chat model whose reply depends only on its prompt,
 * after a seeded pause in virtual time (run it under `jest.useFakeTimers()` and drive the runs with
 * `settleWithFakeTimers`), so concurrent runs interleave, the same way on every run of the test, and
 * any state shared between them shows up as a different result.
 */
import type { AgentExecutor } from "@langchain/classic/agents";
import { DynamicStructuredTool, DynamicTool } from "@langchain/core/tools";
import { z } from "zod";
import { ScriptedChatModel } from "@reins/testing";

/** The three ways to run an executor. */
export type Path = "invoke" | "stream" | "streamEvents";

/** Every executor path. */
export const PATHS: readonly Path[] = ["invoke", "stream", "streamEvents"];

/** `capital`: the capital of France, Japan or Germany; each input is pushed to `calls`. */
export function capitalTool(calls: string[] = []): DynamicTool {
  const capitals: Record<string, string> = { france: "Paris", japan: "Tokyo", germany: "Berlin" };
  return new DynamicTool({
    name: "capital",
    description: "Returns the capital city of a country. Input: the country name.",
    func: async (input: string) => {
      calls.push(input);
      return capitals[input.trim().toLowerCase()] ?? `No capital known for ${input}.`;
    },
  });
}

/** `add`: a structured tool adding two numbers. */
export function addTool(): DynamicStructuredTool {
  return new DynamicStructuredTool({
    name: "add",
    description: "Adds two numbers.",
    schema: z.object({ a: z.number(), b: z.number() }),
    func: async ({ a, b }: { a: number; b: number }) => String(a + b),
  });
}

/** Runs the executor on one path, with no config at all, and returns its final values. */
export async function runOn(executor: AgentExecutor, input: string, path: Path): Promise<Record<string, unknown>> {
  if (path === "invoke") return executor.invoke({ input });
  if (path === "stream") {
    let merged: Record<string, unknown> = {};
    for await (const chunk of await executor.stream({ input })) merged = { ...merged, ...(chunk as Record<string, unknown>) };
    return merged;
  }
  let merged: Record<string, unknown> = {};
  for await (const event of executor.streamEvents({ input }, { version: "v2" })) {
    if (event.name === "AgentExecutor" && event.event === "on_chain_stream") merged = { ...merged, ...(event.data.chunk as Record<string, unknown>) };
  }
  return merged;
}

/** What a scripted run does; the question names it: `"<name> <kind>"`. */
export type RunKind = "answer" | "repeat" | "cycle" | "garbled";

/** Every kind, in the order runs take them (`run-<index>` has `RUN_KINDS[index % 4]`). */
export const RUN_KINDS: readonly RunKind[] = ["answer", "repeat", "cycle", "garbled"];

/** The stop reason each kind of run ends with. */
export const RUN_KIND_STOP_REASONS: Readonly<Record<RunKind, string>> = { answer: "final_answer", repeat: "repeat", cycle: "cycle", garbled: "final_answer" };

/** A pause of a seeded 0 to `maxPauseMs - 1` ms on the (fake) timers. */
export function seededPause(random: () => number, maxPauseMs: number): () => Promise<void> {
  return () => new Promise((resolve) => setTimeout(resolve, Math.floor(random() * maxPauseMs)));
}

/**
 * Replies from the prompt alone: the question (`"<name> <kind>"`) names the run and its kind, the
 * number of observations so far is the step. Tools: `capital` (France, Japan, Germany) and `add`.
 * @param pause - awaited before each reply (see {@link seededPause})
 */
export function scriptedByPromptModel(pause: () => Promise<void>): ScriptedChatModel {
  const reply = async (prompt: string): Promise<string> => {
    const question = prompt.slice(prompt.lastIndexOf("\nQuestion: ") + "\nQuestion: ".length);
    const [name, kind] = question.split("\n")[0].split(" ") as [string, RunKind];
    const step = question.split("\nObservation:").length - 1;
    await pause();
    switch (kind) {
      case "answer":
        return step === 0 ? "Thought: look it up\nAction: capital\nAction Input: Japan" : `Thought: done\nFinal Answer: Tokyo for ${name}`;
      case "repeat":
        return "Thought: check again\nAction: capital\nAction Input: France";
      case "cycle":
        return step % 2 === 0 ? "Thought: capital\nAction: capital\nAction Input: Germany" : 'Thought: add\nAction: add\nAction Input: {"a": 1, "b": 2}';
      case "garbled":
        return step === 0 ? `Thought: hmm\nAction: wikipedia\nAction Input: ${name}` : `Thought: fine\nFinal Answer: nothing for ${name}`;
    }
  };
  return new ScriptedChatModel({ replies: [reply], cycle: true, recordCalls: false });
}
