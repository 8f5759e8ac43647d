// The integration suite (npm run test:integration): every project's `*.integration.test.ts` files
// (processes, servers, real programs, load tests; scripts/jest/suites.cjs), with the project's own
// jest config otherwise, then the list of skipped tests.
const path = require("node:path");
const { INTEGRATION, REPORTERS, projectDirs } = require("./scripts/jest/suites.cjs");

/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  reporters: REPORTERS,
  projects: projectDirs().map((dir) => ({ ...require(path.join(dir, "jest.config.cjs")), ...INTEGRATION })),
};
