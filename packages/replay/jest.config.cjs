const preset = require("../../jest.preset.cjs");

/** @type {import('jest').Config} */
module.exports = { ...preset, displayName: "@reins/replay", rootDir: __dirname };
