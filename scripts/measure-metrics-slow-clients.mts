// Measures whether `startMetricsServer` keeps answering scrapes while slow clients that reconnect
// hold connections (issue 33: 6 of 120 scrapes answered under 150 such clients). Loopback only,
// bounded: 150 slow clients (each sends one header byte every second and reconnects when cut),
// 120 scrapes 100 ms apart with a 2 s timeout each; then everything is closed.
// Run: npx tsx scripts/measure-metrics-slow-clients.mts [slowClients] [scrapes]
import { connect, type Socket } from "node:net";
import { Registry } from "prom-client";
import { startMetricsServer } from "../packages/metrics/src/metrics-server";

const slowClients = Number(process.argv[2] ?? 150);
// The slow clients' source address: the scraper's own (127.0.0.1) by default, or another loopback address.
const slowFrom = process.argv[4] ?? "127.0.0.1";
const scrapes = Number(process.argv[3] ?? 120);
const server = await startMetricsServer({ registry: new Registry() });
const { port } = server;
let stopping = false;
const sockets = new Set<Socket>();
function slowClient(): void {
  if (stopping) return;
  const socket = connect({ port, host: "127.0.0.1", localAddress: slowFrom });
  sockets.add(socket);
  let timer: NodeJS.Timeout | undefined;
  socket.on("connect", () => {
    socket.write("GET /metrics HTTP/1.1\r\n");
    timer = setInterval(() => socket.write("X"), 1000);
  });
  const again = (): void => {
    clearInterval(timer);
    sockets.delete(socket);
    if (!stopping) setTimeout(slowClient, 10);
  };
  socket.on("close", again);
  socket.on("error", () => undefined);
}
for (let index = 0; index < slowClients; index += 1) slowClient();
await new Promise((resolve) => setTimeout(resolve, 500));
let answered = 0;
const started = Date.now();
for (let index = 0; index < scrapes; index += 1) {
  try {
    const response = await fetch(server.url, { signal: AbortSignal.timeout(2_000) });
    if (response.ok) answered += 1;
    await response.text();
  } catch {
    // a refused, reset or timed-out scrape
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}
stopping = true;
for (const socket of sockets) socket.destroy();
await server.close();
process.stdout.write(`${answered} of ${scrapes} scrapes answered under ${slowClients} slow reconnecting clients from ${slowFrom} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
