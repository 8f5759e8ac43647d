import { DynamicStructuredTool, DynamicTool, tool } from "@langchain/core/tools";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { describeToolInput } from "./tool-schema";

describe("describeToolInput", () => {
  describe("string-input tools", () => {
    it.each([
      ["a DynamicTool", new DynamicTool({ name: "t", description: "d", func: async () => "" })],
      ["tool() with a zod string schema", tool(async () => "", { name: "t", description: "d", schema: z.string() })],
      ["a JSON string schema", { name: "t", schema: { type: "string" } }],
      ["no schema", { name: "t" }],
    ])("reads %s as a string tool", (_shape, subject) => {
      expect(describeToolInput(subject)).toMatchObject({ kind: "string" });
    });
  });

  describe("object-schema tools", () => {
    it("reads zod v4 properties, required fields and types", () => {
      const subject = tool(async () => "", { name: "w", description: "d", schema: z.object({ city: z.string(), days: z.number().optional() }) });
      expect(describeToolInput(subject)).toMatchObject({ kind: "object", properties: ["city", "days"], required: ["city"], propertyTypes: { city: "string", days: "number" } });
    });

    it("reads zod v3 object schemas", () => {
      const subject = new DynamicStructuredTool({ name: "w", description: "d", schema: z3.object({ city: z3.string(), days: z3.number().optional() }), func: async () => "" });
      expect(describeToolInput(subject)).toMatchObject({ kind: "object", properties: ["city", "days"], required: ["city"], propertyTypes: { city: "string", days: "number" } });
    });

    it("reads JSON object schemas", () => {
      const subject = { name: "w", schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } };
      expect(describeToolInput(subject)).toMatchObject({ kind: "object", properties: ["q"], required: ["q"] });
    });

    it.each([
      ["zod v4 passthrough", z.object({}).passthrough()],
      ["zod v4 record", z.record(z.string(), z.unknown())],
      ["zod v3 passthrough", z3.object({}).passthrough()],
      ["JSON schema with additionalProperties", { type: "object", properties: {}, additionalProperties: true }],
    ])("reads %s as an object tool with any keys", (_shape, schema) => {
      expect(describeToolInput({ name: "t", schema })).toMatchObject({ kind: "object", properties: [] });
    });

    it("returns field errors from the schema", () => {
      const spec = describeToolInput({ name: "w", schema: z.object({ city: z.string() }) });
      expect(spec.validate?.({ city: 3 })).toEqual([expect.objectContaining({ path: "city" })]);
      expect(spec.validate?.({ city: "Oslo" })).toEqual([]);
    });
  });

  describe("no-argument tools", () => {
    it.each([
      ["zod v4 empty object", z.object({})],
      ["zod v3 empty object", z3.object({})],
      ["JSON schema without properties", { type: "object", properties: {} }],
    ])("reads %s as taking no arguments", (_shape, schema) => {
      expect(describeToolInput({ name: "t", schema })).toMatchObject({ kind: "none" });
    });
  });
});
