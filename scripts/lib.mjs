// Shared helpers for the packaging scripts: the list of published packages and a child-process
// runner that fails loudly.
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The published workspace packages (packages/*, not private), in directory order.
 * @returns {{ name: string, dir: string, manifest: Record<string, any> }[]}
 */
export function listPackages() {
  const packagesDir = path.join(repoRoot, "packages");
  return readdirSync(packagesDir)
    .map((entry) => path.join(packagesDir, entry))
    .filter((dir) => existsSync(path.join(dir, "package.json")))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
      return { name: manifest.name, dir, manifest };
    })
    .filter((pkg) => pkg.manifest.private !== true);
}

/**
 * Runs a command and resolves with its exit code and combined output (never rejects on a
 * non-zero exit; rejects only when the command cannot start).
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, input?: string }} [options]
 * @returns {Promise<{ code: number, output: string }>}
 */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1", ...options.env },
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

/**
 * Runs `worker` over `items` with at most `limit` in flight; results keep the input order.
 * @template T, R
 * @param {T[]} items
 * @param {number} limit
 * @param {(item: T) => Promise<R>} worker
 * @returns {Promise<R[]>}
 */
export async function mapLimit(items, limit, worker) {
  const results = new Array(items.length);
  let next = 0;
  async function lane() {
    while (next < items.length) {
      const index = next++;
      results[index] = await worker(items[index]);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/**
 * Packs every published package (its built dist/ must exist) with `npm pack` into `destination`
 * and returns each package with its tarball's absolute path.
 * @param {string} destination - an existing directory
 * @returns {Promise<{ name: string, dir: string, manifest: Record<string, any>, tarball: string }[]>}
 */
export async function packPackages(destination) {
  const { readdirSync } = await import("node:fs");
  const packages = listPackages();
  const missingBuild = packages.filter((pkg) => !existsSync(path.join(pkg.dir, "dist")));
  if (missingBuild.length > 0) {
    throw new Error(`No dist/ in ${missingBuild.map((pkg) => pkg.name).join(", ")}: run \`npm run build\` first.`);
  }
  const pack = await run("npm", ["pack", "--pack-destination", destination, ...packages.flatMap((pkg) => ["-w", pkg.name])]);
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.output}`);
  const files = readdirSync(destination);
  const { mkdirSync, renameSync } = await import("node:fs");
  return packages.map((pkg) => {
    // npm names a scoped package's tarball <scope>-<name>-<version>.tgz.
    const expected = `${pkg.name.replace("@", "").replace("/", "-")}-${pkg.manifest.version}.tgz`;
    if (!files.includes(expected)) throw new Error(`npm pack made no ${expected} (found ${files.join(", ")})\n${pack.output}`);
    if (!supportsLangChain03(pkg)) {
      // A package for LangChain 1.x only goes into langchain-1/, so the 0.3 install line's
      // `dist-packs/*.tgz` does not pick it up (its @langchain/core peer would fail with ERESOLVE).
      mkdirSync(path.join(destination, LANGCHAIN_1_DIR), { recursive: true });
      renameSync(path.join(destination, expected), path.join(destination, LANGCHAIN_1_DIR, expected));
      return { ...pkg, tarball: path.join(destination, LANGCHAIN_1_DIR, expected) };
    }
    return { ...pkg, tarball: path.join(destination, expected) };
  });
}

/** The folder of dist-packs/ holding the tarballs of packages for LangChain 1.x only (@reins/agent-middleware). */
export const LANGCHAIN_1_DIR = "langchain-1";

/**
 * Whether a package's @langchain/core peer range admits the 0.3 line (no peer: yes).
 * @param {{ manifest: Record<string, any> }} pkg
 */
export function supportsLangChain03(pkg) {
  const range = pkg.manifest.peerDependencies?.["@langchain/core"];
  return typeof range !== "string" || range.split("||").some((part) => /^[\^~>=\s]*0\.3\./.test(part.trim()));
}
