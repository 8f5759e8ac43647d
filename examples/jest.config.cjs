const preset = require("../jest.preset.cjs");

/** @type {import('jest').Config} */
module.exports = { ...preset, displayName: "examples", rootDir: __dirname };
