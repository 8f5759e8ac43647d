import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Registry } from "prom-client";
import { MetricsOptionsError } from "./errors";

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  /** The registry to expose (`createAgentMetrics().registry`). */
  registry: Registry;
  /**
   * TCP port; 0 picks a free one.
   * @default 0
   */
  port?: number;
  /**
   * Interface to bind. Loopback by default so metrics are never exposed by accident.
   * @default "127.0.0.1"
   */
  host?: string;
  /**
   * Path that serves the exposition; any other path answers 404.
   * @default "/metrics"
   */
  path?: string;
  /**
   * Most time a client may take to send the request headers (Node's `headersTimeout`); a slower
   * client gets `408` and is disconnected. Must not exceed `requestTimeoutMs`. A scraper sends its
   * headers at once: a short limit frees slow clients' connections fast.
   * @default 2_000
   */
  headersTimeoutMs?: number;
  /**
   * Most time a client may take to send the whole request (Node's `requestTimeout`).
   * @default 15_000
   */
  requestTimeoutMs?: number;
  /**
   * How long an idle keep-alive connection stays open after a response (Node's `keepAliveTimeout`).
   * @default 5_000
   */
  keepAliveTimeoutMs?: number;
  /**
   * How often Node checks the two request timeouts above (Node's `connectionsCheckingInterval`):
   * a slow client is cut at most this long after its timeout, so with the defaults within 2.25 s.
   * @default 250
   */
  connectionsCheckingIntervalMs?: number;
  /**
   * Most connections open at once. At the cap, a new connection closes the oldest one that has no
   * request in progress (still sending its headers, or idle between requests), so clients that
   * hold connections open without asking cannot lock a scraper out; when every connection is
   * serving a request, the new one is closed. At most 1 000: a scrape endpoint needs a handful.
   * @default 100
   */
  maxConnections?: number;
  /**
   * Most connections open at once from one remote address; one more is closed as it arrives (a
   * Prometheus server opens one or two). Must not exceed `maxConnections`.
   * @default 8
   */
  maxConnectionsPerAddress?: number;
}

/**
 * The defaults of {@link MetricsServerOptions}' connection limits: a client that has not sent its
 * headers in 2 s is cut within 2.25 s, the whole request within 15.25 s; at most 100 connections at
 * once (the oldest without a request in progress makes room for a new one), 8 per remote address.
 */
export const DEFAULT_METRICS_SERVER_OPTIONS = Object.freeze({
  headersTimeoutMs: 2_000,
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
  connectionsCheckingIntervalMs: 250,
  maxConnections: 100,
  maxConnectionsPerAddress: 8,
});

/** The most `maxConnections` accepts. */
export const MAX_METRICS_SERVER_CONNECTIONS = 1_000;

type ConnectionLimits = { -readonly [K in keyof typeof DEFAULT_METRICS_SERVER_OPTIONS]: number };

function resolveConnectionLimits(options: MetricsServerOptions): ConnectionLimits {
  const limits = { ...DEFAULT_METRICS_SERVER_OPTIONS } as ConnectionLimits;
  for (const field of Object.keys(DEFAULT_METRICS_SERVER_OPTIONS) as (keyof ConnectionLimits)[]) {
    const value: unknown = options[field];
    if (value === undefined) continue;
    const max = field === "maxConnections" || field === "maxConnectionsPerAddress" ? MAX_METRICS_SERVER_CONNECTIONS : 3_600_000;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
      throw new MetricsOptionsError({ field, value, reason: `expected an integer from 1 to ${max}` });
    }
    limits[field] = value;
  }
  // A smaller maxConnections lowers the per-address default with it; only a given value can be too large.
  if (options.maxConnectionsPerAddress === undefined) limits.maxConnectionsPerAddress = Math.min(limits.maxConnectionsPerAddress, limits.maxConnections);
  if (limits.maxConnectionsPerAddress > limits.maxConnections) {
    throw new MetricsOptionsError({ field: "maxConnectionsPerAddress", value: limits.maxConnectionsPerAddress, reason: `expected at most maxConnections (${limits.maxConnections})` });
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new MetricsOptionsError({ field: "headersTimeoutMs", value: limits.headersTimeoutMs, reason: `expected at most requestTimeoutMs (${limits.requestTimeoutMs})` });
  }
  return limits;
}

/** A running metrics endpoint. */
export interface MetricsServer {
  /** Full URL of the endpoint, e.g. `http://127.0.0.1:9464/metrics`. */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections and closes open ones. */
  close(): Promise<void>;
}

/**
 * Serves a registry's Prometheus exposition over HTTP (`GET /metrics`, the registry's content
 * type), for `npm run demo -- --serve` or a small service. For production, mount
 * `registry.metrics()` in your own HTTP framework instead. Slow and idle clients are cut and
 * connections are capped (see {@link DEFAULT_METRICS_SERVER_OPTIONS}), so slow connections cannot
 * hold the endpoint.
 *
 * @param options - see {@link MetricsServerOptions}
 * @returns the running server
 * @throws {MetricsOptionsError} when `port`, `host` (empty would bind every interface) or `path` is invalid, or a connection limit is not an integer in range (`maxConnections` ≤ 1 000, `headersTimeoutMs` ≤ `requestTimeoutMs`)
 * @example
 * ```ts
 * const metrics = createAgentMetrics();
 * const server = await startMetricsServer({ registry: metrics.registry, port: 9464 });
 * console.log(`scrape ${server.url}`);
 * await server.close();
 * ```
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { registry } = options;
  if (typeof registry?.metrics !== "function") {
    throw new MetricsOptionsError({ field: "registry", value: registry, reason: "expected a prom-client Registry" });
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new MetricsOptionsError({ field: "port", value: port, reason: "expected an integer from 0 to 65535" });
  }
  const host: unknown = options.host ?? "127.0.0.1";
  if (typeof host !== "string" || host.length === 0) {
    throw new MetricsOptionsError({ field: "host", value: host, reason: "expected an interface name or address" });
  }
  const path: unknown = options.path ?? "/metrics";
  if (typeof path !== "string" || !path.startsWith("/")) throw new MetricsOptionsError({ field: "path", value: path, reason: 'expected a path starting with "/"' });

  const limits = resolveConnectionLimits(options);

  const server: Server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: limits.connectionsCheckingIntervalMs,
  }, (request, response) => {
    const connection = connections.get(request.socket);
    if (connection !== undefined) {
      connection.serving = true;
      response.once("finish", () => {
        connection.serving = false;
        connection.sinceMs = Date.now();
      });
    }
    const requestPath = (request.url ?? "/").split("?")[0];
    if (request.method !== "GET" || requestPath !== path) {
      response.statusCode = 404;
      response.end("Not found\n");
      return;
    }
    registry.metrics().then(
      (text) => {
        response.setHeader("Content-Type", registry.contentType);
        response.end(text);
      },
      (error: unknown) => {
        response.statusCode = 500;
        response.end(`Could not collect metrics: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // Connections in arrival order (a Map keeps it): the first one without a request in progress is the oldest idle or slow one.
  const connections = new Map<Socket, { address: string; serving: boolean; sinceMs: number }>();
  const perAddress = new Map<string, number>();
  const forget = (socket: Socket): void => {
    const connection = connections.get(socket);
    if (connection === undefined) return;
    connections.delete(socket);
    const left = (perAddress.get(connection.address) ?? 1) - 1;
    if (left <= 0) perAddress.delete(connection.address);
    else perAddress.set(connection.address, left);
  };
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    // Over a cap, the oldest connection without a request in progress (of that address, or any)
    // makes room; a fresh one is cut only when every counted connection is serving a request.
    const makeRoom = (sameAddress: boolean): boolean => {
      const evicted = [...connections].find(([, connection]) => !connection.serving && (!sameAddress || connection.address === address))?.[0];
      if (evicted === undefined) return false;
      forget(evicted);
      evicted.destroy();
      return true;
    };
    if ((perAddress.get(address) ?? 0) >= limits.maxConnectionsPerAddress && !makeRoom(true)) {
      socket.destroy();
      return;
    }
    if (connections.size >= limits.maxConnections && !makeRoom(false)) {
      socket.destroy();
      return;
    }
    connections.set(socket, { address, serving: false, sinceMs: Date.now() });
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    socket.once("close", () => forget(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostForUrl}:${address.port}${path}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
