// Root jest config: one run over every workspace, one summary (npm test), then the list of skipped tests.
/** @type {import('jest').Config} */
module.exports = {
  projects: ["<rootDir>/packages/*/jest.config.cjs", "<rootDir>/examples/jest.config.cjs"],
  reporters: ["default", "<rootDir>/scripts/jest/skipped-reporter.cjs"],
};
