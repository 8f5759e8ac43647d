import cluster, { type Worker } from "node:cluster";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { AggregatorRegistry, Registry } from "prom-client";
import { MetricsOptionsError, registerClusterWorker } from "./index";

const ROOT = resolve(__dirname, "../../..");

/** The worker fixture as one CommonJS file (Reins sources bundled, npm packages external). */
async function bundleWorker(): Promise<string> {
  const outfile = join(mkdtempSync(join(tmpdir(), "reins-cluster-")), "worker.cjs");
  await build({
    entryPoints: [join(__dirname, "__fixtures__/cluster-worker-main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    logLevel: "silent",
    plugins: [
      {
        name: "reins-sources-bundled-npm-external",
        setup(plugin) {
          plugin.onResolve({ filter: /^@reins\/[a-z-]+$/ }, (args) => ({ path: join(ROOT, "packages", args.path.slice("@reins/".length), "src/index.ts") }));
          plugin.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith("@reins/") ? undefined : { path: args.path, external: true }));
        },
      },
    ],
  });
  return outfile;
}

describe("registerClusterWorker", () => {
  it("rejects what is not a prom-client Registry", () => {
    expect(() => registerClusterWorker({} as Registry)).toThrow(MetricsOptionsError);
  });

  describe("in Node cluster mode (4 workers, 2 with an open circuit)", () => {
    const workers: Worker[] = [];

    afterAll(async () => {
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolveExit) => {
              if (worker.isDead()) return resolveExit();
              worker.once("exit", () => resolveExit());
              worker.kill();
            }),
        ),
      );
    });

    it("the primary's AggregatorRegistry sums the counters and reads the circuit state with max (2, not 4)", async () => {
      const bundle = await bundleWorker();
      cluster.setupPrimary({ exec: bundle, silent: true });
      const aggregator = new AggregatorRegistry();
      await Promise.all(
        ["open", "open", "closed", "closed"].map(
          (circuit) =>
            new Promise<void>((resolveReady, reject) => {
              const worker = cluster.fork({ WORKER_CIRCUIT: circuit, NODE_PATH: join(ROOT, "node_modules") });
              workers.push(worker);
              worker.once("message", () => resolveReady());
              worker.once("exit", (code) => reject(new Error(`worker exited with ${code}`)));
            }),
        ),
      );
      const exposition = await aggregator.clusterMetrics();
      expect(exposition).toContain('react_agent_circuit_state{tool="search"} 2');
      expect(exposition).toContain('react_agent_tool_calls_total{tool="search",outcome="error"} 4');
    }, 30_000);
  });
});
