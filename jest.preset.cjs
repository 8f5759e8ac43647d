// Shared jest preset: every package's jest.config.js spreads it.
// Tests import sibling packages from their TypeScript sources (no build needed first).
const path = require("node:path");

const root = __dirname;

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  testMatch: ["<rootDir>/src/**/*.test.ts", "<rootDir>/test/**/*.test.ts"],
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
