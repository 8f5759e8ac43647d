// The packages' own tests, run against the LangChain 0.3 line: langchain 0.3 +
// @langchain/core 0.3 + @langchain/openai 0.6 from compat/node_modules (`npm ci --prefix compat`).
// Run with `npm run test:compat` from the repo root.
//
// Each project is the package's own jest config (same tests, same transform, `@reins/*` mapped to
// sources) plus a resolver that sends every LangChain import to compat/node_modules. It runs both
// suites, unit and integration (scripts/jest/suites.cjs), in one run: every test that runs on the
// 1.x line also runs on 0.3.
const fs = require("node:fs");
const path = require("node:path");
const { BOTH, REPORTERS } = require("../scripts/jest/suites.cjs");

const repoRoot = path.resolve(__dirname, "..");
const compatCore = path.join(__dirname, "node_modules/@langchain/core/package.json");
if (!fs.existsSync(compatCore)) {
  throw new Error(
    "compat/node_modules is missing: run `npm ci --prefix compat` before `npm run test:compat`.",
  );
}

// A package whose @langchain/core peer range has no 0.x line (@reins/agent-middleware: createAgent
// exists only in langchain 1.x) is left out of this run, and named so the gap is seen.
function excludesLine03(dir) {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  const range = manifest.peerDependencies?.["@langchain/core"];
  return typeof range === "string" && !/(^|[^\d.])0\.\d/.test(range);
}
const packageDirs = fs
  .readdirSync(path.join(repoRoot, "packages"))
  .map((name) => path.join(repoRoot, "packages", name))
  .filter((dir) => fs.existsSync(path.join(dir, "jest.config.cjs")));
for (const dir of packageDirs.filter(excludesLine03)) {
  const { name, peerDependencies } = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  process.stderr.write(`compat: ${name} not run on LangChain 0.3 (its peer @langchain/core is ${peerDependencies["@langchain/core"]})\n`);
}
const projectDirs = [...packageDirs.filter((dir) => !excludesLine03(dir)), path.join(repoRoot, "examples")];

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
  reporters: REPORTERS,
  projects: [compatProject, ...projectDirs.map((dir) => {
    const config = require(path.join(dir, "jest.config.cjs"));
    return {
      ...config,
      ...BOTH,
      displayName: `${config.displayName} (langchain 0.3)`,
      resolver: path.join(__dirname, "resolver.cjs"),
      setupFiles: [...(config.setupFiles ?? []), path.join(__dirname, "setup-line.cjs")],
    };
  })],
};
