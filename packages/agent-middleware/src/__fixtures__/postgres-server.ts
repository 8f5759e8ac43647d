import { spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { findProgram } from "@reins/testing";

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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/**
 * A throwaway Postgres server: `initdb` into a temp directory (as the `postgres` user when this
 * process is root, since initdb refuses root), `pg_ctl start` on a free port with trust auth.
 * @returns the connection string and a `stop` that ends the server and removes its files
 * @throws Error with initdb's / pg_ctl's output when either fails
 */
export async function startPostgres(): Promise<{ url: string; stop: () => void }> {
  const dirs = postgresBinDirs();
  const initdb = findProgram("initdb", dirs);
  const pgCtl = findProgram("pg_ctl", dirs);
  if (initdb === undefined || pgCtl === undefined) throw new Error("initdb / pg_ctl not found");
  const root = mkdtempSync(path.join(tmpdir(), "reins-pg-"));
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const postgres = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    chownSync(root, Number(postgres.stdout.trim()), Number(gid.stdout.trim()));
  }
  const run = (program: string, args: string[]) => {
    const result = asRoot ? spawnSync("runuser", ["-u", "postgres", "--", program, ...args], { encoding: "utf8" }) : spawnSync(program, args, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${program} ${args.join(" ")} failed (${result.status}): ${result.stdout}\n${result.stderr}`);
  };
  const data = path.join(root, "data");
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
}
