#!/usr/bin/env node
// Launcher of the `reins-replay` CLI (source: src/cli.ts). A published package runs the built
// dist/cli.cjs. Inside the Reins repository before `npm run build`, it runs the TypeScript source
// through tsx (a dev dependency of the repo), so `npx reins-replay` works right after `npm ci`.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const built = path.join(__dirname, "..", "dist", "cli.cjs");
const source = path.join(__dirname, "..", "src", "cli.ts");

if (fs.existsSync(built)) {
  require(built);
} else if (fs.existsSync(source)) {
  require("tsx/cjs/api").register();
  require(source);
} else {
  process.stderr.write(`reins-replay: ${built} is missing; run \`npm run build\` first.\n`);
  process.exitCode = 1;
}
