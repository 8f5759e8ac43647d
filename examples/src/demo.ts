/**
 * `npm run demo` — runs every scripted scenario through the stock AgentExecutor with Reins'
 * createReactAgent and the real ChatOpenAI client (against the replay server, or live with
 * OPENAI_API_KEY [+ OPENAI_BASE_URL, OPENAI_MODEL]). `npm run demo -- --serve [--port N]` keeps
 * /metrics on 127.0.0.1 afterwards until Ctrl-C; `--stream` runs the executor's stream() loop;
 * `--agent create-agent` also runs the same fault kinds through LangChain v1 `createAgent` with
 * `createReinsMiddleware` and prints a summary of both agent styles.
 */
import { runDemo, serveMetrics } from "./demo-runner";

async function main(argv: readonly string[]): Promise<number> {
  const serve = argv.includes("--serve");
  const portIndex = argv.indexOf("--port");
  const port = portIndex === -1 ? 0 : Number(argv[portIndex + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(`--port must be an integer between 0 and 65535, got ${argv[portIndex + 1]}\n`);
    return 2;
  }
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
    ...(apiKey !== undefined && apiKey !== ""
      ? { live: { apiKey, baseURL: process.env.OPENAI_BASE_URL || undefined, model: process.env.OPENAI_MODEL || undefined } }
      : {}),
  });
  if (serve) {
    const { server, url } = await serveMetrics(report.metrics.registry, port);
    process.stdout.write(`\nServing metrics on ${url} — press Ctrl-C to stop.\n`);
    await new Promise<void>((resolve) => {
      const stop = () => server.close(() => resolve());
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
