import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import type { ReplicaJob, ReplicaReport } from "./fleet-replica";

const ROOT = resolve(__dirname, "../../../..");

/**
 * Bundles `entry` (default `fleet-replica.ts`, a file of this folder; with the Reins sources it imports) into one CommonJS file, so each
 * replica process starts in well under a second; npm packages stay external (node_modules).
 */
export async function bundleReplica(entry = "fleet-replica.ts"): Promise<string> {
  const outfile = join(mkdtempSync(join(tmpdir(), "reins-fleet-")), entry.replace(/\.ts$/, ".cjs"));
  await build({
    entryPoints: [join(__dirname, entry)],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    logLevel: "silent",
    tsconfig: join(ROOT, "tsconfig.base.json"),
    plugins: [
      {
        name: "reins-sources-bundled-npm-external",
        setup(plugin) {
          plugin.onResolve({ filter: /^@reins\/[a-z-]+$/ }, (args) => ({ path: join(ROOT, "packages", args.path.slice("@reins/".length), "src/index.ts") }));
          plugin.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith("@reins/") ? undefined : { path: args.path, external: true }));
        },
      },
    ],
    nodePaths: [join(ROOT, "node_modules")],
  });
  return outfile;
}

/** Runs `jobs` as separate Node processes at once; each answers its report or the test fails with its stderr. */
export async function runReplicas(bundle: string, jobs: ReplicaJob[]): Promise<ReplicaReport[]> {
  return Promise.all(
    jobs.map(
      (job) =>
        new Promise<ReplicaReport>((resolvePromise, reject) => {
          const child = spawn(process.execPath, [bundle], {
            env: { ...process.env, REPLICA_JOB: JSON.stringify(job), NODE_PATH: join(ROOT, "node_modules") },
            stdio: ["ignore", "pipe", "pipe"],
          });
          let out = "";
          let err = "";
          child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
          child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
          child.once("exit", (code) => {
            if (code !== 0) reject(new Error(`replica exited with ${code}:\n${err}`));
            else resolvePromise(JSON.parse(out.trim().split("\n").pop() ?? "") as ReplicaReport);
          });
        }),
    ),
  );
}

/** What the fake upstream service saw. */
export interface UpstreamCounts {
  /** Requests per path (`/dead`, `/quota`, `/compute`). */
  requests: Record<string, number>;
  /** `/quota` requests answered 429. */
  rejected429: number;
  /** `/compute` runs per key. */
  computed: Record<string, number>;
  /** When each `/dead` request arrived (epoch ms). */
  deadArrivals: number[];
  /** Per `/quota` query: when each request arrived (ms). */
  quotaArrivals: Record<string, number[]>;
}

/**
 * The service the replicas call: `/dead` answers 503 at once; `/quota` allows `perSecond`
 * requests per fixed one-second window (starting at its first request) and answers others 429
 * with `Retry-After: 1`; `/compute?key=` takes 300 ms and counts each key.
 */
export async function startUpstream(perSecond = 10): Promise<{ url: string; counts: UpstreamCounts; close: () => Promise<void> }> {
  const counts: UpstreamCounts = { requests: {}, rejected429: 0, computed: {}, quotaArrivals: {}, deadArrivals: [] };
  let windowStartMs: number | undefined;
  let inWindow = 0;
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://upstream");
    counts.requests[url.pathname] = (counts.requests[url.pathname] ?? 0) + 1;
    if (url.pathname === "/dead") {
      counts.deadArrivals.push(Date.now());
      response.writeHead(503).end("down");
    } else if (url.pathname === "/quota") {
      const now = Date.now();
      const query = url.searchParams.get("q") ?? "";
      (counts.quotaArrivals[query] ??= []).push(now);
      if (windowStartMs === undefined || now - windowStartMs >= 1000) {
        windowStartMs = windowStartMs === undefined ? now : windowStartMs + Math.floor((now - windowStartMs) / 1000) * 1000;
        inWindow = 0;
      }
      inWindow += 1;
      if (inWindow > perSecond) {
        counts.rejected429 += 1;
        response.writeHead(429, { "retry-after": "1" }).end("slow down");
      } else response.writeHead(200).end(`quote ${query}`);
    } else {
      const key = url.searchParams.get("key") ?? "";
      counts.computed[key] = (counts.computed[key] ?? 0) + 1;
      setTimeout(() => response.writeHead(200).end(`value of ${key}`), 300);
    }
  });
  await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
