// Root jest config: the unit suite (npm test): one run over every workspace, one summary, then the
// list of skipped tests. The integration suite is jest.integration.config.cjs (scripts/jest/suites.cjs).
const { REPORTERS } = require("./scripts/jest/suites.cjs");

/** @type {import('jest').Config} */
module.exports = {
  projects: ["<rootDir>/packages/*/jest.config.cjs", "<rootDir>/examples/jest.config.cjs"],
  reporters: REPORTERS,
};
