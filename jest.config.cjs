// Root jest config: one run over every workspace, one summary (npm test).
/** @type {import('jest').Config} */
module.exports = {
  projects: ["<rootDir>/packages/*/jest.config.cjs", "<rootDir>/examples/jest.config.cjs"],
};
