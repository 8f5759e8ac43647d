// The packages' own tests, run against the LangChain 0.3 line: langchain 0.3 +
// @langchain/core 0.3 + @langchain/openai 0.6 from compat/node_modules (`npm ci --prefix compat`).
// Run with `npm run test:compat` from the repo root.
//
// Each project is the package's own jest config (same tests, same transform, `@reins/*` mapped to
// sources) plus a resolver that sends every LangChain import to compat/node_modules.
const fs = require("node:fs");
const path = require("node:path");

const repoRoot = path.resolve(__dirname, "..");
const compatCore = path.join(__dirname, "node_modules/@langchain/core/package.json");
if (!fs.existsSync(compatCore)) {
  throw new Error(
    "compat/node_modules is missing: run `npm ci --prefix compat` before `npm run test:compat`.",
  );
}

const projectDirs = [
  ...fs
    .readdirSync(path.join(repoRoot, "packages"))
    .map((name) => path.join(repoRoot, "packages", name))
    .filter((dir) => fs.existsSync(path.join(dir, "jest.config.cjs"))),
  path.join(repoRoot, "examples"),
];

const compatProject = {
  ...require(path.join(repoRoot, "jest.preset.cjs")),
  displayName: "compat resolver (langchain 0.3)",
  rootDir: __dirname,
  testMatch: ["<rootDir>/test/**/*.test.ts"],
  resolver: path.join(__dirname, "resolver.cjs"),
  setupFiles: [path.join(__dirname, "setup-line.cjs")],
};

/** @type {import('jest').Config} */
module.exports = {
  rootDir: repoRoot,
  reporters: ["default", path.join(repoRoot, "scripts/jest/skipped-reporter.cjs")],
  projects: [compatProject, ...projectDirs.map((dir) => {
    const config = require(path.join(dir, "jest.config.cjs"));
    return {
      ...config,
      displayName: `${config.displayName} (langchain 0.3)`,
      resolver: path.join(__dirname, "resolver.cjs"),
      setupFiles: [...(config.setupFiles ?? []), path.join(__dirname, "setup-line.cjs")],
    };
  })],
};
