import { connect, type Socket } from "node:net";
import { Registry } from "prom-client";
import { DEFAULT_METRICS_SERVER_OPTIONS, MetricsOptionsError, startMetricsServer, type MetricsServer } from "./index";

/** Resolves with what the server sent once it closes the connection; the guard fails the test instead of hanging. */
function untilClosed(socket: Socket, guardMs: number): Promise<{ received: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("error", () => undefined);
    const guard = setTimeout(() => {
      socket.destroy();
      resolve({ received, closedByServer: false });
    }, guardMs);
    socket.on("close", () => {
      clearTimeout(guard);
      resolve({ received, closedByServer: true });
    });
  });
}

function open(server: MetricsServer): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
  });
}

describe("startMetricsServer", () => {
  describe("defaults", () => {
    it("cut a client that never finishes its headers within 15 s and cap connections at 100", () => {
      const { headersTimeoutMs, requestTimeoutMs, connectionsCheckingIntervalMs, maxConnections } = DEFAULT_METRICS_SERVER_OPTIONS;
      expect(headersTimeoutMs + connectionsCheckingIntervalMs).toBeLessThanOrEqual(15_000);
      expect(headersTimeoutMs).toBeLessThanOrEqual(requestTimeoutMs);
      expect(maxConnections).toBeLessThanOrEqual(1_000);
    });
  });

  describe("with a client that sends its headers one byte at a time", () => {
    it("answers 408 and closes the connection once headersTimeoutMs has passed", async () => {
      const server = await startMetricsServer({ registry: new Registry(), headersTimeoutMs: 200, requestTimeoutMs: 300, connectionsCheckingIntervalMs: 50 });
      const socket = await open(server);
      socket.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      const dribble = setInterval(() => socket.writable && socket.write("X"), 40);
      try {
        const { received, closedByServer } = await untilClosed(socket, 5_000);
        expect(closedByServer).toBe(true);
        expect(received).toMatch(/^HTTP\/1\.1 408/);
      } finally {
        clearInterval(dribble);
        socket.destroy();
        await server.close();
      }
    });
  });

  describe("with more connections than maxConnections", () => {
    it("closes the oldest connection without a request in progress to make room, and serves the new one", async () => {
      const server = await startMetricsServer({ registry: new Registry(), maxConnections: 2 });
      const held = [await open(server), await open(server)];
      try {
        const oldest = untilClosed(held[0] as Socket, 5_000);
        const fresh = await open(server);
        expect((await oldest).closedByServer).toBe(true);
        const answer = untilClosed(fresh, 5_000);
        fresh.end("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        expect((await answer).received).toMatch(/^HTTP\/1\.1 200/);
      } finally {
        for (const socket of held) socket.destroy();
        await server.close();
      }
    });
  });

  describe("with more connections from one address than maxConnectionsPerAddress", () => {
    it("keeps answering a scrape while slow clients hold every slot of that address", async () => {
      const server = await startMetricsServer({ registry: new Registry(), maxConnectionsPerAddress: 3 });
      const held = [await open(server), await open(server), await open(server)];
      try {
        for (const socket of held) socket.write("GET /metrics HTTP/1.1\r\n");
        const scrape = await open(server);
        const answer = untilClosed(scrape, 5_000);
        scrape.end("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        expect((await answer).received).toMatch(/^HTTP\/1\.1 200/);
      } finally {
        for (const socket of held) socket.destroy();
        await server.close();
      }
    });
  });

  describe("with invalid connection limits", () => {
    it.each([
      [{ maxConnections: 1_001 }, "maxConnections"],
      [{ maxConnections: 0 }, "maxConnections"],
      [{ headersTimeoutMs: 1.5 }, "headersTimeoutMs"],
      [{ requestTimeoutMs: "15s" }, "requestTimeoutMs"],
      [{ keepAliveTimeoutMs: -1 }, "keepAliveTimeoutMs"],
      [{ connectionsCheckingIntervalMs: Number.NaN }, "connectionsCheckingIntervalMs"],
      [{ headersTimeoutMs: 20_000 }, "headersTimeoutMs"],
      [{ maxConnections: 4, maxConnectionsPerAddress: 5 }, "maxConnectionsPerAddress"],
    ])("rejects %j with MetricsOptionsError naming the field", async (options, field) => {
      const attempt = startMetricsServer({ registry: new Registry(), ...(options as object) });
      await expect(attempt).rejects.toBeInstanceOf(MetricsOptionsError);
      await expect(attempt).rejects.toMatchObject({ field });
    });
  });
});
