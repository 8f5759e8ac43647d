// The two test suites, told apart by the file name alone, so a new test lands in the right one:
//
// - unit (`npm test`, `*.test.ts`): in-process and deterministic. No child processes, no servers
//   (not even on 127.0.0.1), no real delays (jest fake timers, seeded), no load tests.
// - integration (`npm run test:integration`, `*.integration.test.ts`): everything else: durable
//   runs across processes with SQLite and Postgres, a fleet on a real redis-server, Node cluster
//   mode, promtool, headless Chromium, the replay server over HTTP, CLIs run as processes, the
//   1 000-run load tests.
//
// Every package's jest.config.cjs spreads jest.preset.cjs (the unit suite); the integration config
// (jest.integration.config.cjs) and the compat run (compat/jest.config.cjs) take the same project
// configs and swap in another suite here.
const fs = require("node:fs");
const path = require("node:path");

const repoRoot = path.resolve(__dirname, "../..");
const INTEGRATION_SUFFIX = "\\.integration\\.test\\.ts$";
const ALL_TESTS = ["<rootDir>/src/**/*.test.ts", "<rootDir>/test/**/*.test.ts"];

/** `npm test`: every `*.test.ts` that is not `*.integration.test.ts`. */
const UNIT = { testMatch: ALL_TESTS, testPathIgnorePatterns: ["/node_modules/", INTEGRATION_SUFFIX] };

/** `npm run test:integration`: the `*.integration.test.ts` files. */
const INTEGRATION = {
  testMatch: ["<rootDir>/src/**/*.integration.test.ts", "<rootDir>/test/**/*.integration.test.ts"],
  testPathIgnorePatterns: ["/node_modules/"],
};

/** Both suites in one run (`npm run test:compat`, which covers every test on LangChain 0.3). */
const BOTH = { testMatch: ALL_TESTS, testPathIgnorePatterns: ["/node_modules/"] };

/** The directories with a jest project: every package that has a jest.config.cjs, then the examples. */
function projectDirs() {
  const packages = fs
    .readdirSync(path.join(repoRoot, "packages"))
    .sort()
    .map((name) => path.join(repoRoot, "packages", name))
    .filter((dir) => fs.existsSync(path.join(dir, "jest.config.cjs")));
  return [...packages, path.join(repoRoot, "examples")];
}

/** The skipped-test reporter every suite ends with (scripts/jest/skipped-reporter.cjs). */
const REPORTERS = ["default", path.join(__dirname, "skipped-reporter.cjs")];

module.exports = { UNIT, INTEGRATION, BOTH, REPORTERS, projectDirs, repoRoot };
