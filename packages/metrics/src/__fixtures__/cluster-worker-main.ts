/**
 * A Node cluster worker for `cluster-mode.integration.test.ts` (bundled with esbuild): records one tool call
 * and the circuit state named by WORKER_CIRCUIT, serves its registry to the primary, says "ready".
 */
import { Registry } from "prom-client";
import { createAgentMetrics, registerClusterWorker } from "../index";

const metrics = createAgentMetrics({ registry: new Registry(), toolNames: ["search"] });
registerClusterWorker(metrics.registry);
metrics.record({ type: "tool_call", toolName: "search", outcome: "error", durationMs: 5 });
metrics.record({ type: "circuit_state", toolName: "search", state: process.env.WORKER_CIRCUIT === "open" ? "open" : "closed", halfOpenAfterMs: 600_000 });
process.send?.("ready");
