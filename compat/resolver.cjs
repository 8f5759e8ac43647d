// Jest resolver for the LangChain 0.3 compat run (see jest.config.cjs).
// Requests for the LangChain packages resolve from compat/node_modules instead of the root
// install, through each package's own `exports` map (jest's default resolver, `require`
// condition). A path-based moduleNameMapper cannot do this: @langchain/core 0.3 ships ESM
// `.js` stubs beside the `.cjs` ones at its root and jest would pick the ESM file.
// `@langchain/classic` (where AgentExecutor lives in LangChain 1.x) becomes `langchain`, its
// 0.3 home: `@langchain/classic/agents` → `langchain/agents`.
const path = require("node:path");

const compatDir = __dirname;

/** @param {string} request */
function redirect(request) {
  if (request === "@langchain/classic" || request.startsWith("@langchain/classic/")) {
    return "langchain" + request.slice("@langchain/classic".length);
  }
  if (
    /^@langchain\/(core|openai)(\/|$)/.test(request) ||
    request === "langchain" ||
    request.startsWith("langchain/")
  ) {
    return request;
  }
  return undefined;
}

/**
 * @param {string} request
 * @param {{ basedir: string, defaultResolver: (request: string, options: object) => string }} options
 */
module.exports = function compatResolver(request, options) {
  const redirected = redirect(request);
  if (redirected === undefined) {
    return options.defaultResolver(request, options);
  }
  return options.defaultResolver(redirected, { ...options, basedir: compatDir });
};

module.exports.compatDir = path.resolve(compatDir);
