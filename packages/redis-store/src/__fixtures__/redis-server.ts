import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** A throwaway redis-server the test started. */
export interface TestRedis {
  readonly url: string;
  readonly process: ChildProcess;
  /** SIGSTOP: the socket stays open, nothing answers. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
  /** SIGKILL and wait for the exit (idempotent). */
  stop(): Promise<void>;
}

/** Starts a redis-server on 127.0.0.1 and a free port, without persistence (`--save "" --appendonly no`). */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--enable-debug-command", "yes"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGCONT");
      child.kill("SIGKILL");
    });
  };
  return { url: `redis://127.0.0.1:${port}`, process: child, pause: () => void child.kill("SIGSTOP"), resume: () => void child.kill("SIGCONT"), stop };
}
