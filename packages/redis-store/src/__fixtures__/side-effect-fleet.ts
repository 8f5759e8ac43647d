import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { bundleReplica } from "./fleet";
import type { SideEffectJob, SideEffectReport } from "./side-effect-replica";

const ROOT = resolve(__dirname, "../../../..");

/** Bundles `side-effect-replica.ts` (with the Reins sources) into one CommonJS file (see `bundleReplica`). */
export function bundleSideEffectReplica(): Promise<string> {
  return bundleReplica("side-effect-replica.ts");
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
