// The package checks scripts/smoke.mjs runs inside an app installed from the tarballs: every
// package's main exports from plain CommonJS and ES module projects, objects working with the
// app's own peers (one @langchain/core, one zod, its prom-client and @opentelemetry/api), and a
// walk of node_modules counting the installed copies of a package.
import { readdir } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** The exports each package must expose; every one is a function or class. */
export const MAIN_EXPORTS = {
  "@reins/core": ["RunContextStore", "emitEvent", "matchReActLabel", "actionKey"],
  "@reins/metrics": ["createAgentMetrics"],
  "@reins/react-output-parser": ["HardenedReActOutputParser"],
  "@reins/observation-cleaner": ["ObservationCleaner", "cleanObservation"],
  "@reins/tool-executor": ["ToolExecutor"],
  "@reins/loop-control": ["LoopControlHandler"],
  "@reins/react-agent": ["createReactAgent"],
  "@reins/otel": ["createOtelRecorder"],
  "@reins/agent-middleware": ["createReinsMiddleware"],
  "@reins/redis-store": ["RedisResultStore"],
  "@reins/replay": ["startReplayServer", "runWithReplayServer"],
};

// One body, two module systems: `load(name)` is `require` in the CJS project and `import()` in
// the ESM one. It throws on the first failed expectation.
const CHECK_BODY = `
const report = [];
for (const [name, exportNames] of Object.entries(expected)) {
  const mod = await load(name);
  for (const exportName of exportNames) {
    if (typeof mod[exportName] !== "function") {
      throw new Error(name + " has no function export " + exportName + " (got " + typeof mod[exportName] + ")");
    }
  }
  report.push(name);
}

// The peers are the app's: objects made by Reins work with the app's @langchain/core and prom-client.
const { BaseOutputParser } = await load("@langchain/core/output_parsers");
const { HardenedReActOutputParser } = await load("@reins/react-output-parser");
const parser = new HardenedReActOutputParser({ toolNames: ["search"] });
if (!(parser instanceof BaseOutputParser)) {
  throw new Error("HardenedReActOutputParser is not an instance of the app's BaseOutputParser (two copies of @langchain/core?)");
}
const action = await parser.parse("Thought: look it up\\nAction: search\\nAction Input: reins");
if (action.tool !== "search") throw new Error("parser returned " + JSON.stringify(action));

const { Registry } = await load("prom-client");
const { createAgentMetrics } = await load("@reins/metrics");
const registry = new Registry();
createAgentMetrics({ registry });
const exposition = await registry.metrics();
if (!exposition.includes("react_agent_runs_total")) throw new Error("metrics not registered in the app's Registry");

// The OTel recorder runs on the app's @opentelemetry/api (no SDK registered: the API's no-ops).
const { createOtelRecorder } = await load("@reins/otel");
const otel = createOtelRecorder();
otel.record({ type: "run_start", runId: "smoke" });
otel.record({ type: "run_end", runId: "smoke", status: "success", stopReason: "final_answer", durationMs: 1 });
if (otel.openRuns !== 0) throw new Error("createOtelRecorder left a run open");

const { cleanObservation } = await load("@reins/observation-cleaner");
const cleaned = cleanObservation({ price: "199.00" });
if (typeof cleaned.text !== "string" || !cleaned.text.includes("199.00")) throw new Error("cleanObservation returned " + JSON.stringify(cleaned));

// The app's one zod (v3 on the 0.3 line, v4 on 1.x): a zod-schema tool through the ToolExecutor
// and the parser, which read the schema of whichever zod made it.
const { z } = await load("zod");
const { tool } = await load("@langchain/core/tools");
const { ToolExecutor } = await load("@reins/tool-executor");
const add = tool(async ({ a, b }) => String(a + b), { name: "add", description: "Adds a and b.", schema: z.object({ a: z.number(), b: z.number() }) });
const [wrappedAdd] = new ToolExecutor().wrap([add]);
const sum = await wrappedAdd.invoke('{"a": 2, "b": 3}');
if (sum !== "5") throw new Error("wrapped zod tool returned " + JSON.stringify(sum));
const rejected = await wrappedAdd.invoke('{"a": "two", "b": 3}');
if (typeof rejected !== "string" || !rejected.includes('Invalid input for tool "add"')) throw new Error("wrapped zod tool accepted a bad input: " + JSON.stringify(rejected));
const zodParser = new HardenedReActOutputParser({ tools: [add] });
const zodAction = await zodParser.parse('Action: add\\nAction Input: {"a": 1, "b": 2}');
if (zodAction.toolInput?.a !== 1) throw new Error("parser with a zod tool returned " + JSON.stringify(zodAction));
const zodReport = zodParser.parseDetailed('Action: add\\nAction Input: {"a": "x"}');
if (zodReport.ok) throw new Error("parser accepted an input its zod schema rejects: " + JSON.stringify(zodReport));

if (expected["@reins/agent-middleware"] !== undefined) {
  // The middleware is built with the app's langchain: a LangChain v1 AgentMiddleware.
  const { createReinsMiddleware } = await load("@reins/agent-middleware");
  const middleware = createReinsMiddleware();
  if (middleware.name !== "ReinsMiddleware" || typeof middleware.wrapToolCall !== "function" || typeof middleware.afterModel !== "object") {
    throw new Error("createReinsMiddleware returned " + JSON.stringify(Object.keys(middleware)));
  }
}

console.log("ok " + MODE + ": " + report.join(", ") + "; a zod " + (typeof z.object({})._zod === "object" ? "v4" : "v3") + " tool through ToolExecutor and the parser");
`;

export const CJS_SOURCE = (expected) => `"use strict";
const MODE = "require (CommonJS)";
const expected = ${JSON.stringify(expected, null, 2)};
const load = async (name) => require(name);
(async () => {${CHECK_BODY}})().catch((error) => { console.error(error); process.exit(1); });
`;

export const ESM_SOURCE = (expected) => `const MODE = "import (ES module)";
const expected = ${JSON.stringify(expected, null, 2)};
const load = (name) => import(name);
${CHECK_BODY}`;


/** Every installed copy of `name` under `nodeModules` (nested ones too): their versions. */
export async function installedCopies(nodeModules, name) {
  const copies = [];
  async function walk(dir) {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const full = path.join(dir, entry.name);
      if (entry.name.startsWith("@")) {
        await walk(full);
        continue;
      }
      const packageName = path.basename(dir).startsWith("@") ? `${path.basename(dir)}/${entry.name}` : entry.name;
      if (packageName === name) copies.push(JSON.parse(readFileSync(path.join(full, "package.json"), "utf8")).version);
      if (existsSync(path.join(full, "node_modules"))) await walk(path.join(full, "node_modules"));
    }
  }
  await walk(nodeModules);
  return copies;
}

