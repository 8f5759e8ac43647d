import { isNoOpAction, isSchemaEcho } from "./echo-detection";
import { looksLikePlan, saysNoToolNeeded } from "./reply-heuristics";

describe("isSchemaEcho", () => {
  describe("on an argument schema echoed as input", () => {
    it.each([
      ["a full object schema", { type: "object", properties: { city: { type: "string" } } }],
      ["properties and required without a type", { properties: { city: { type: "string" } }, required: ["city"] }],
      ["properties with title and description", { title: "Args", properties: { q: { type: "str", description: "the query" } } }],
      ["every argument as {type, description}", { query: { type: "string", description: "The search query" } }],
    ])("recognises %s", (_shape, value) => {
      expect(isSchemaEcho(value)).toBe(true);
    });
  });

  describe("on argument values", () => {
    it.each([
      ["an argument named properties holding values", { database_id: "db-1", properties: { Status: "Done" } }],
      ["properties holding values only", { properties: { color: "red" } }],
      ["an empty object", {}],
      ["a plain value object", { city: "Oslo", days: 2 }],
    ])("does not mistake %s for a schema", (_shape, value) => {
      expect(isSchemaEcho(value)).toBe(false);
    });
  });
});

describe("saysNoToolNeeded", () => {
  describe("on a Thought saying no tool is needed", () => {
    it.each([
      ["English", "Do I need to use a tool? No"],
      ["German", "Ein Gruß braucht kein Werkzeug."],
      ["French", "Pas besoin d'outil, je réponds."],
      ["Spanish", "No necesito ninguna herramienta."],
      ["Chinese", "这个问题不需要工具。"],
      ["Japanese", "挨拶なのでツールは不要です。"],
    ])("recognises it in %s", (_language, thought) => {
      expect(saysNoToolNeeded(thought)).toBe(true);
    });
  });

  it("does not read a Thought planning a tool call as one", () => {
    expect(saysNoToolNeeded("Ich muss das Wetter nachsehen.")).toBe(false);
  });
});

describe("looksLikePlan", () => {
  it.each([["Next steps:\n1. search\n2. divide"], ["Here is my plan:\n- search"], ["Plan: search, then divide."]])("reads %j as a plan", (text) => {
    expect(looksLikePlan(text)).toBe(true);
  });

  it("reads a reply to the user as a reply", () => {
    expect(looksLikePlan("The capital of France is Paris.")).toBe(false);
  });
});

describe("isNoOpAction", () => {
  it.each([["None"], ["N/A"], ["-"], ["—"], ["…"], ["`none`"], ["None: answering directly"], ["nothing"]])("reads %j as no action", (written) => {
    expect(isNoOpAction(written)).toBe(true);
  });

  it.each([["search"], ["none_search"], ["-search"]])("reads %j as a tool name", (written) => {
    expect(isNoOpAction(written)).toBe(false);
  });
});
