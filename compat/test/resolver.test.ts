// Guards the compat run itself: if the resolver stopped redirecting, the packages' tests would
// silently run against the 1.x line again and the 0.3 column of CI would mean nothing.
import { readFileSync } from "node:fs";
import path from "node:path";

function versionOf(packageJsonPath: string): string {
  return (JSON.parse(readFileSync(packageJsonPath, "utf8")) as { version: string }).version;
}

describe("compat resolver", () => {
  describe("when a test imports a LangChain package", () => {
    it("loads @langchain/core from the 0.3 line", () => {
      const resolved = require.resolve("@langchain/core/messages");
      expect(resolved).toContain(path.join("compat", "node_modules", "@langchain", "core"));
      const version = versionOf(path.join(__dirname, "../node_modules/@langchain/core/package.json"));
      expect(version).toMatch(/^0\.3\./);
    });

    it("loads @langchain/classic/agents from langchain 0.3's langchain/agents", () => {
      const resolved = require.resolve("@langchain/classic/agents");
      expect(resolved).toContain(path.join("compat", "node_modules", "langchain"));
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const agents = require("@langchain/classic/agents") as { AgentExecutor: unknown };
      expect(typeof agents.AgentExecutor).toBe("function");
    });

    it("loads @langchain/openai from the 0.6 release that pairs with core 0.3", () => {
      expect(require.resolve("@langchain/openai")).toContain(path.join("compat", "node_modules", "@langchain", "openai"));
      expect(versionOf(path.join(__dirname, "../node_modules/@langchain/openai/package.json"))).toMatch(/^0\.6\./);
    });

    it("shares one @langchain/core between the test and langchain 0.3", () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { OutputParserException } = require("@langchain/core/output_parsers") as {
        OutputParserException: new (message: string) => Error;
      };
      const fromLangchain = require.resolve("@langchain/core/output_parsers", {
        paths: [path.join(__dirname, "../node_modules/langchain")],
      });
      expect(require.resolve("@langchain/core/output_parsers")).toBe(fromLangchain);
      expect(new OutputParserException("x")).toBeInstanceOf(Error);
    });
  });

  describe("when the setup file has run", () => {
    it("marks the run as the 0.3 line", () => {
      expect(process.env.REINS_LANGCHAIN_LINE).toBe("0.3");
    });
  });
});
