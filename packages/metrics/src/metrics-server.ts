import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
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
 * `registry.metrics()` in your own HTTP framework instead.
 *
 * @param options - see {@link MetricsServerOptions}
 * @returns the running server
 * @throws {MetricsOptionsError} when `port`, `host` (empty would bind every interface) or `path` is invalid
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

  const server: Server = createServer((request, response) => {
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
