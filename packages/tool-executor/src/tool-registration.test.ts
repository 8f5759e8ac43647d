import { DynamicTool } from "@langchain/core/tools";
import { ToolExecutor } from "./index";

const fetchPage = new DynamicTool({ name: "fetch_page", description: "fetches a page", func: async () => "ok" });

describe("ToolExecutor.wrap", () => {
  describe("with a metrics recorder that takes tool names", () => {
    it("registers each wrapped tool's name, once per tool", () => {
      const registered: string[] = [];
      const metrics = { record: () => undefined, registerTools: (names: readonly string[]) => void registered.push(...names) };
      const executor = new ToolExecutor({ metrics });
      const tool = fetchPage;
      executor.wrap([tool]);
      executor.wrapTool(tool);
      expect(registered).toEqual(["fetch_page"]);
    });
  });
});
