/**
 * `npm run demo` — runs every scripted scenario through the stock AgentExecutor with Reins'
 * createReactAgent and the real ChatOpenAI client (against the replay server, or live with
 * OPENAI_API_KEY [+ OPENAI_BASE_URL, OPENAI_MODEL]). The summary comes last, with a table of the
 * main counters; `--metrics` prints the whole Prometheus exposition before it.
 * `npm run demo -- --serve [--port N]` keeps /metrics on 127.0.0.1 afterwards, with a bounded
 * background load of the scenarios (replay server only), and prints a Prometheus scrape config,
 * until Ctrl-C. `--stream` runs the executor's stream() loop. `--audit FILE` writes loop control's
 * audit trail (JSONL) for `reins-trace FILE [--html]`.
 * `--agent create-agent` also runs the same fault kinds through LangChain v1 `createAgent` with
 * `createReinsMiddleware` and prints a summary of both agent styles.
 */
import { createWriteStream } from "node:fs";
import { runDemo, serveMetrics } from "./demo-runner";
import { scrapeInstructions, startBackgroundLoad, stopServing } from "./demo-serve";

async function main(argv: readonly string[]): Promise<number> {
  const serve = argv.includes("--serve");
  const portIndex = argv.indexOf("--port");
  const port = portIndex === -1 ? 0 : Number(argv[portIndex + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(`--port must be an integer between 0 and 65535, got ${argv[portIndex + 1]}\n`);
    return 2;
  }
  const auditIndex = argv.indexOf("--audit");
  const auditPath = auditIndex === -1 ? undefined : argv[auditIndex + 1];
  if (auditIndex !== -1 && (auditPath === undefined || auditPath.startsWith("--"))) {
    process.stderr.write("--audit needs a file path, e.g. --audit demo-audit.jsonl\n");
    return 2;
  }
  const audit = auditPath === undefined ? undefined : createWriteStream(auditPath);
  const agentIndex = argv.indexOf("--agent");
  const agentStyle = agentIndex === -1 ? "classic" : argv[agentIndex + 1];
  if (agentStyle !== "classic" && agentStyle !== "create-agent") {
    process.stderr.write(`--agent must be classic or create-agent, got ${String(agentStyle)}\n`);
    return 2;
  }
  const apiKey = process.env.OPENAI_API_KEY;
  // Loaded only when asked for: the createAgent mode needs langchain 1.x.
  const run = agentStyle === "create-agent" ? (await import("./create-agent-demo")).runBothAgentStyles : runDemo;
  const report = await run({
    executorPath: argv.includes("--stream") ? "stream" : "invoke",
    printExposition: argv.includes("--metrics"),
    ...(audit !== undefined ? { audit } : {}),
    ...(apiKey !== undefined && apiKey !== ""
      ? { live: { apiKey, baseURL: process.env.OPENAI_BASE_URL || undefined, model: process.env.OPENAI_MODEL || undefined } }
      : {}),
  });
  if (audit !== undefined) {
    await new Promise<void>((resolve, reject) => audit.end((error?: Error | null) => (error ? reject(error) : resolve())));
    process.stdout.write(`Audit trail written to ${auditPath}; view it with: npx reins-trace ${auditPath} [--html > run.html]\n`);
  }
  if (serve) {
    const { server, url } = await serveMetrics(report.metrics.registry, port);
    // Against a live model the load would spend real tokens: only the replay server gets one.
    const load =
      apiKey === undefined || apiKey === ""
        ? startBackgroundLoad({
            metrics: report.metrics,
            onError: (error) => process.stderr.write(`background round failed: ${error instanceof Error ? error.message : String(error)}\n`),
          })
        : undefined;
    process.stdout.write(`\n${scrapeInstructions(url)}`);
    if (load === undefined) process.stdout.write("(Live model: no background load; the metrics stay as the run left them.)\n");
    await new Promise<void>((resolve) => {
      const stop = () => void stopServing(server, load).then(resolve);
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
  }
  return report.passed ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
