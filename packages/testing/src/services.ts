import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { findProgram } from "./requirements";

/**
 * Throwaway servers a test (or `npm run check:docs`) starts itself: Postgres from Debian's
 * `postgresql` package and `redis-server`, each on 127.0.0.1 and a free port, with its files in a
 * temp directory that `stop` removes. Suites declare the programs with `describeRequiring`.
 */

/** A free TCP port on 127.0.0.1 (bound, read and released). */
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

/** Where Debian's `postgresql` package keeps its server programs (outside the PATH), newest first. */
export function postgresBinDirs(): string[] {
  try {
    return readdirSync("/usr/lib/postgresql")
      .sort((left, right) => Number(right) - Number(left))
      .map((version) => path.join("/usr/lib/postgresql", version, "bin"));
  } catch {
    return [];
  }
}

/** A throwaway Postgres server {@link startPostgres} started. */
export interface TestPostgres {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` (trust auth, no password). */
  readonly url: string;
  /** Stops the server (`pg_ctl stop -m fast`) and removes its files. */
  stop(): void;
}

/**
 * A throwaway Postgres server: `initdb` into a temp directory (as the `postgres` user when this
 * process is root, since initdb refuses root), `pg_ctl start` on a free port with trust auth and
 * `fsync=off`.
 * @returns the connection string and a `stop` that ends the server and removes its files
 * @throws Error with initdb's / pg_ctl's output when either fails, or when neither is found on the
 *   PATH nor in {@link postgresBinDirs}
 */
export async function startPostgres(): Promise<TestPostgres> {
  const dirs = postgresBinDirs();
  const initdb = findProgram("initdb", dirs);
  const pgCtl = findProgram("pg_ctl", dirs);
  if (initdb === undefined || pgCtl === undefined) throw new Error(`initdb / pg_ctl not found on the PATH nor in ${dirs.join(", ") || "/usr/lib/postgresql/*/bin"}`);
  const root = mkdtempSync(path.join(tmpdir(), "reins-pg-"));
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const postgres = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    chownSync(root, Number(postgres.stdout.trim()), Number(gid.stdout.trim()));
  }
  const run = (program: string, args: string[]): void => {
    const result = asRoot ? spawnSync("runuser", ["-u", "postgres", "--", program, ...args], { encoding: "utf8" }) : spawnSync(program, args, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${program} ${args.join(" ")} failed (${result.status}): ${result.stdout}\n${result.stderr}`);
  };
  const data = path.join(root, "data");
  try {
    run(initdb, ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
    const port = await freePort();
    run(pgCtl, ["-D", data, "-l", path.join(root, "log"), "-w", "-o", `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off`, "start"]);
    return {
      url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
      stop: () => {
        try {
          run(pgCtl, ["-D", data, "-m", "fast", "-w", "stop"]);
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/** A throwaway redis-server {@link startRedis} started. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly process: ChildProcess;
  /** SIGSTOP: the socket stays open, nothing answers. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
  /** SIGKILL and wait for the exit (idempotent). */
  stop(): Promise<void>;
}

/**
 * Starts a redis-server on 127.0.0.1 and a free port, without persistence (`--save "" --appendonly no`).
 * @throws Error with the server's output when it exits or is not ready within 10 s
 */
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
