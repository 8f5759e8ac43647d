/**
 * The HTTP plumbing both replay servers share: bounded body reading, JSON and OpenAI-style error
 * replies, listening on the loopback interface, and closing with every open connection.
 */
import { createServer } from "node:http";
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** The largest request body a replay server reads: 8 MiB. A larger one is answered with HTTP 413. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** A request body over {@link MAX_BODY_BYTES}. */
export class BodyTooLargeError extends Error {
  constructor() {
    super(`request body exceeds ${MAX_BODY_BYTES} bytes`);
    this.name = "BodyTooLargeError";
  }
}

/** A request's body as UTF-8 text; rejects with {@link BodyTooLargeError} past {@link MAX_BODY_BYTES}. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      if (size > MAX_BODY_BYTES) return; // past the limit: drained, not kept, so the 413 reaches the client
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

/** Reads a JSON object body, or answers 400/413 itself and returns `undefined`. */
export async function readJsonObject(request: IncomingMessage, response: ServerResponse): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readBody(request);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      response.setHeader("connection", "close");
      sendError(response, 413, error.message, "invalid_request_error");
    }
    else response.destroy(error as Error);
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    sendError(response, 400, `Invalid JSON body: ${(error as Error).message}`, "invalid_request_error");
    return undefined;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    sendError(response, 400, "The request body must be a JSON object.", "invalid_request_error");
    return undefined;
  }
  return parsed as Record<string, unknown>;
}

/** Sends `body` as JSON with `status`. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

/** Sends an OpenAI-shaped error body (`{ error: { message, type, param, code } }`). */
export function sendError(response: ServerResponse, status: number, message: string, type: string): void {
  sendJson(response, status, { error: { message, type, param: null, code: null } });
}

/** Starts the SSE reply (`text/event-stream`). */
export function startEventStream(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
}

/** Stops `server` listening and destroys its open connections. */
export function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  });
}

/** A listening server, its base URL (ending in `/v1`) and an idempotent `close`. */
export interface Listening {
  readonly baseURL: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Creates an HTTP server for `listener` and listens on `host:port` (a free port for 0).
 * @throws the listen error (e.g. `EADDRINUSE`)
 */
export async function listen(listener: RequestListener, host: string, port: number): Promise<Listening> {
  const sockets = new Set<Socket>();
  const server = createServer(listener);
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    baseURL: `http://${hostForUrl}:${address.port}/v1`,
    port: address.port,
    close() {
      closing ??= closeServer(server, sockets);
      return closing;
    },
  };
}

/** Handles a request with `handler`, answering 500 (or dropping the stream) when it throws. */
export function guard(response: ServerResponse, handler: () => Promise<void>): void {
  handler().catch((error: unknown) => {
    if (!response.headersSent) sendError(response, 500, `Replay server error: ${(error as Error).message}`, "server_error");
    else response.destroy(error as Error);
  });
}
