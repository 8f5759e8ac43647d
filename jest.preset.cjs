// Shared jest preset: every package's jest.config.cjs spreads it.
// Tests import sibling packages from their TypeScript sources (no build needed first).
// It selects the unit suite (`*.test.ts` but not `*.integration.test.ts`, see scripts/jest/suites.cjs).
const path = require("node:path");
const { UNIT } = require("./scripts/jest/suites.cjs");

const root = __dirname;

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  ...UNIT,
  transform: {
    "^.+\\.ts$": [
      "ts-jest",
      { tsconfig: path.join(root, "tsconfig.jest.json"), diagnostics: false },
    ],
  },
  moduleNameMapper: {
    "^@reins/([a-z-]+)$": path.join(root, "packages/$1/src/index.ts"),
  },
  moduleFileExtensions: ["ts", "js", "json", "cjs", "mjs"],
  testTimeout: 20000,
};
