import { matchToolName } from "./tool-names";

describe("matchToolName", () => {
  describe("with names written with other separators or a prefix", () => {
    it.each([
      ["getWeather", ["get_weather", "search"], "get_weather"],
      ["GetWeather", ["get-weather"], "get-weather"],
      ["websearch", ["web_search"], "web_search"],
      ["get_weather", ["getWeather"], "getWeather"],
      ["lookuptool", ["LookupTool"], "LookupTool"],
      ["tool: search", ["search"], "search"],
      ["Tool name: Web Search", ["web_search"], "web_search"],
    ])("matches %s to the one registered tool", (written, toolNames, expected) => {
      expect(matchToolName(written, toolNames, 0)).toMatchObject({ status: "normalized", name: expected });
    });

    it("reports several registered tools that match without separators as ambiguous", () => {
      expect(matchToolName("getWeather", ["get_weather", "get_wea_ther"], 0)).toEqual({ status: "ambiguous", candidates: ["get_weather", "get_wea_ther"] });
    });

    it("leaves a name that matches no registered tool unknown", () => {
      expect(matchToolName("getTime", ["get_weather"], 0)).toEqual({ status: "unknown" });
    });
  });
});
