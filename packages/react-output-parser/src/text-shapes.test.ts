import { isSchemaEcho } from "./text-shapes";

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
