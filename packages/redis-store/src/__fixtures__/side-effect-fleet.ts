import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import type { SideEffectJob, SideEffectReport } from "./side-effect-replica";

const ROOT = resolve(__dirname, "../../../..");

/** Bundles `side-effect-replica.ts` (with the Reins sources) into one CommonJS file; npm packages stay external. */
export async function bundleSideEffectReplica(): Promise<string> {
  const outfile = join(mkdtempSync(join(tmpdir(), "reins-side-effect-")), "side-effect-replica.cjs");
  await build({
    entryPoints: [join(__dirname, "side-effect-replica.ts")],
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

/** How one replica process ended: its report, or the signal that killed it. */
export type ReplicaEnd = { report: SideEffectReport } | { signal: NodeJS.Signals };

/** Runs one replica process; resolves with its report, or with the signal when it was killed. */
export function runSideEffectReplica(bundle: string, job: SideEffectJob): Promise<ReplicaEnd> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [bundle], {
      env: { ...process.env, SIDE_EFFECT_JOB: JSON.stringify(job), NODE_PATH: join(ROOT, "node_modules") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.once("exit", (code, signal) => {
      if (signal !== null) resolvePromise({ signal });
      else if (code !== 0) reject(new Error(`replica exited with ${code}:\n${err}`));
      else resolvePromise({ report: JSON.parse(out.trim().split("\n").pop() ?? "") as SideEffectReport });
    });
  });
}
