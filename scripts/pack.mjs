#!/usr/bin/env node
// `npm run pack`: builds every published package and packs it into dist-packs/ (git-ignored),
// one `npm pack` tarball each, replacing what was there; a package for LangChain 1.x only
// (@reins/agent-middleware, on createAgent) goes into dist-packs/langchain-1/, so the 0.3 line's
// `dist-packs/*.tgz` leaves it out. Install them into an app at once (they depend on each other),
// with the lines of the README's "Install before the first release" (checked by npm run smoke):
//
//   npm run pack
//   cd ../my-app && npm install ../reins/dist-packs/*.tgz ../reins/dist-packs/langchain-1/*.tgz …   (LangChain 1.x)
//   cd ../my-app && npm install ../reins/dist-packs/*.tgz …                                         (LangChain 0.3)
//
//   npm run pack -- --no-build           pack the dist/ already built
//   npm run pack -- --publish-dry-run    also run `npm publish --dry-run` on every tarball (CI)
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { packPackages, repoRoot, run } from "./lib.mjs";

const args = process.argv.slice(2);
const unknown = args.filter((arg) => !["--no-build", "--publish-dry-run"].includes(arg));
if (unknown.length > 0) {
  console.error(`pack: unknown argument(s) ${unknown.join(" ")}`);
  process.exit(2);
}

const destination = path.join(repoRoot, "dist-packs");
if (!args.includes("--no-build")) {
  const build = await run("npm", ["run", "build"]);
  if (build.code !== 0) {
    console.error(build.output);
    console.error("pack: npm run build failed");
    process.exit(1);
  }
}
await rm(destination, { recursive: true, force: true });
await mkdir(destination);
const packed = await packPackages(destination);
for (const pkg of packed) console.log(`${path.relative(repoRoot, pkg.tarball)}  ${pkg.name}@${pkg.manifest.version}`);

if (args.includes("--publish-dry-run")) {
  // What `changeset publish` will do, without uploading: npm checks the manifest and the tarball.
  // Any warning npm prints (e.g. a field it would rewrite) fails the check.
  let failed = false;
  for (const pkg of packed) {
    const result = await run("npm", ["publish", "--dry-run", "--access", "public", "--tag", "dry-run", pkg.tarball], { cwd: destination });
    const warnings = result.output.split("\n").filter((line) => /npm warn/i.test(line) && !/requires you to be logged in/.test(line));
    if (result.code !== 0 || warnings.length > 0) {
      failed = true;
      console.error(`FAIL npm publish --dry-run ${pkg.name} (exit ${result.code}):\n${result.output}`);
    } else {
      console.log(`ok   npm publish --dry-run ${pkg.name}`);
    }
  }
  if (failed) process.exitCode = 1;
}
