/**
 * A client of the served graph, through `@langchain/langgraph-sdk` (the same calls work against
 * `langgraphjs dev` and the Agent Server): a question that needs a tool call, then a refund that
 * pauses for approval and is resumed by a second request. `npx tsx src/client.ts` while the server
 * runs (`LANGGRAPH_API_URL`, default http://127.0.0.1:2024).
 */
import { Client } from "@langchain/langgraph-sdk";

const client = new Client({ apiUrl: process.env.LANGGRAPH_API_URL ?? "http://127.0.0.1:2024" });

const thread = await client.threads.create();
// durability "sync": each checkpoint is written before the next step starts (side-effect tools).
const answer = await client.runs.wait(thread.thread_id, "agent", {
  input: { messages: [{ role: "user", content: "Where is my order A-1001? If it was delivered, refund it in full." }] },
  durability: "sync",
});
console.log(JSON.stringify(answer, null, 2)); // the last state, or { __interrupt__: [...] } while a refund waits

const state = await client.threads.getState(thread.thread_id);
if (state.tasks.some((task) => task.interrupts.length > 0)) {
  // A person approves (or { type: "reject", message }) — from any process, minutes or days later.
  const resumed = await client.runs.wait(thread.thread_id, "agent", { command: { resume: { decisions: [{ type: "approve" }] } }, durability: "sync" });
  console.log(JSON.stringify(resumed, null, 2)); // messages, stopReason, reinsRun
}
