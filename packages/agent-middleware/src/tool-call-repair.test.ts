import { z } from "zod/v4";
import { repairToolCall } from "./index";

const tools = [
  { name: "search", schema: z.object({ query: z.string() }) },
  { name: "get_weather", schema: z.object({ city: z.string(), unit: z.string().optional() }) },
  { name: "send_email", schema: z.object({ to: z.string(), subject: z.string(), body: z.string() }) },
];

describe("repairToolCall", () => {
  describe("names", () => {
    it.each([
      ["search", "search", []],
      ["Search", "search", ["tool_name_normalized"]],
      ["functions.search", "search", ["tool_name_prefix"]],
      ["functions.Get-Weather", "get_weather", ["tool_name_prefix", "tool_name_normalized"]],
      ["functions.get_weather:0", "get_weather", ["tool_name_prefix", "tool_name_index"]],
      ["search<|eot_id|>", "search", ["control_token_removed"]],
      ["get_weather<\uff5cend\u2581of\u2581sentence\uff5c>", "get_weather", ["control_token_removed"]],
      ["getWeather", "get_weather", ["tool_name_normalized"]],
    ])("reads %s as %s", (written, expected, repairs) => {
      const result = repairToolCall({ name: written, args: expected === "search" ? { query: "x" } : { city: "x" } }, tools);
      expect(result).toMatchObject({ ok: true, name: expected, repairs });
    });

    it("answers an unknown name with the valid tools", () => {
      expect(repairToolCall({ name: "google", args: {} }, tools)).toEqual({
        ok: false,
        reason: "unknown_tool",
        correction: 'Model tried to call unavailable tool "google". Available tools: "search", "get_weather", "send_email". Call one of these by its exact name.',
      });
    });
  });

  describe("arguments", () => {
    it.each([
      ["a JSON string", '{"query": "Paris"}', { query: "Paris" }],
      ["smart quotes and a trailing comma", "{\u201cquery\u201d: \u201cParis\u201d,}", { query: "Paris" }],
      ["single quotes", "{'query': 'Paris'}", { query: "Paris" }],
      ["a json fence word before the object", 'json\n{"query": "Paris"}', { query: "Paris" }],
      ["a fenced object", '```json\n{"query": "Paris"}\n```', { query: "Paris" }],
      ["a bare word for a one-field tool", "Paris", { query: "Paris" }],
      ["no arguments at all", "", {}],
    ])("repairs %s", (_label, args, expected) => {
      expect(repairToolCall({ name: "search", args }, tools)).toMatchObject({ ok: true, name: "search", args: expected });
    });

    it("unwraps arguments encoded once more under an undeclared key", () => {
      expect(repairToolCall({ name: "get_weather", args: { input: '{"city": "Oslo"}' } }, tools)).toMatchObject({
        ok: true,
        args: { city: "Oslo" },
        repairs: ["json_double_encoded"],
      });
    });

    it("keeps non-ASCII text as written", () => {
      expect(repairToolCall({ name: "search", args: "{'query': 'Zürich – 東京'}" }, tools)).toMatchObject({ ok: true, args: { query: "Zürich – 東京" } });
    });

    it("names the fields when the arguments cannot be read", () => {
      expect(repairToolCall({ name: "send_email", args: "{{{to}}}" }, tools)).toEqual({
        ok: false,
        reason: "unreadable_arguments",
        name: "send_email",
        correction: 'The arguments of your call to "send_email" are not valid JSON, even after repair. Call "send_email" again with a JSON object with the fields: "to", "subject", "body".',
      });
    });

    it.each([
      ["an unbalanced object", '{"to": "a@b.c", "subject": "Hi", "body": "Dear'],
      ["an unbalanced array inside", '{"to": "a@b.c", "subject": "Hi", "body": ["x"'],
    ])("refuses arguments cut off (%s), never closing them", (_label, args) => {
      const result = repairToolCall({ name: "send_email", args }, tools);
      expect(result).toMatchObject({ ok: false, reason: "truncated_arguments", name: "send_email" });
      if (!result.ok) expect(result.correction).toContain("cut off");
    });

    it("refuses a call marked as truncated even when its JSON closes", () => {
      expect(repairToolCall({ name: "search", args: { query: "x" }, truncated: true }, tools)).toMatchObject({ ok: false, reason: "truncated_arguments" });
    });

    it.each([
      ["an array for a string field", ["a", "b"], "search"],
      ["a string for a tool with three required fields", "hello", "send_email"],
      ["a number for a string field", 3, "search"],
    ])("never invents a field for a bare value: %s", (_label, args, name) => {
      expect(repairToolCall({ name, args }, tools)).toMatchObject({ ok: false, reason: "bare_value" });
    });

    it("refuses a misspelt optional field even when the required ones are there", () => {
      expect(repairToolCall({ name: "get_weather", args: { city: "Oslo", units: "C" } }, tools)).toMatchObject({ ok: false, reason: "unknown_fields" });
    });

    it("passes the ToolExecutor's dry-run confirm field besides the schema's", () => {
      expect(repairToolCall({ name: "search", args: { query: "x", confirm: "tok" } }, tools)).toMatchObject({ ok: true, args: { query: "x", confirm: "tok" } });
    });

    it("names the expected fields and the wrong one the model wrote", () => {
      const result = repairToolCall({ name: "get_weather", args: { location: "Oslo" } }, tools);
      expect(result).toMatchObject({ ok: false, reason: "unknown_fields" });
      if (!result.ok) {
        expect(result.correction).toContain('"location"');
        expect(result.correction).toContain('"city" (required)');
        expect(result.correction).toContain('"unit"');
      }
    });
  });
});
