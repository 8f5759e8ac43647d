// The app a doc snippet is written in: the names a guide may use without defining them (an `llm`,
// its `tools`, a ReAct `prompt`, an `input`, a model's raw `modelText`…). scripts/check-docs.mjs
// imports, into every block, each of these names the block does not declare itself, so the rest of
// the block is type-checked (and, for a `run` block, run) for real. Keep this list short and
// plain; CONTRIBUTING.md lists it. The values are real: the tools answer, `llm` talks to
// OPENAI_BASE_URL (the replay server under check-docs).
import { PromptTemplate } from "@langchain/core/prompts";
import { DynamicTool, tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { REACT_PROMPT_TEMPLATE } from "@reins/core";
import { createAgentMetrics } from "@reins/metrics";
import { z } from "zod";

/** A chat model on any OpenAI-compatible endpoint. */
export const llm = new ChatOpenAI({ model: process.env.OPENAI_MODEL ?? "gpt-4o-mini", temperature: 0, configuration: { baseURL: process.env.OPENAI_BASE_URL } });
/** LangChain's ReAct prompt (hwchase17/react). */
export const prompt = PromptTemplate.fromTemplate(REACT_PROMPT_TEMPLATE);
/** The user's question. */
export const input = "What is the capital of France?";
/** One raw model reply, as the agent's parser receives it. */
export const modelText = "Thought: I should look this up.\nAction: search\nAction Input: capital of France";
/** A raw tool result (JSON, HTML, text…). */
export const payload: unknown = { results: [{ title: "Paris", snippet: "Paris is the capital of France." }] };
/** An HTTP response a tool fetched. */
export const response = new Response("<html><body><h1>Oslo</h1><p>Light rain, 7 °C.</p></body></html>", { headers: { "content-type": "text/html" } });
/** The app's logger. */
export const logger: Pick<Console, "info" | "warn" | "error"> = console;
/** An audit sink that keeps what it is given. */
export const audit = { write(record: unknown): void { void record; } };
/** The app's metrics recorder. */
export const metrics = createAgentMetrics();

export const search = new DynamicTool({ name: "search", description: "Searches the web; input: a query.", func: async (query) => `Results for ${query}` });
export const rawSearchTool = search;
export const calculator = new DynamicTool({ name: "calculator", description: "Evaluates arithmetic; input: an expression.", func: async (expression) => `${expression} = 42` });
export const weather = new DynamicTool({ name: "weather", description: "Current weather; input: a city.", func: async (city) => `Sunny in ${city}` });
export const weatherHistory = new DynamicTool({ name: "weather_history", description: "Typical weather; input: a city.", func: async (city) => `Usually mild in ${city}` });
/** A tool with a zod object schema (and side effects). */
export const sendEmail = tool(async ({ to, body }) => `Sent to ${to}: ${body}`, {
  name: "send_email",
  description: "Sends an email.",
  schema: z.object({ to: z.string(), body: z.string(), confirm: z.boolean().optional() }),
});
/** The agent's tools, as in docs/getting-started.md's program. */
export const tools = [search, calculator];
