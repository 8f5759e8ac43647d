import { readFileSync } from "node:fs";
import path from "node:path";
import { describeWithShared, sharedPath } from "@reins/testing";
import { DEFAULT_RESULT_CHECKS, type ResultChecks } from "./index";
import { checkResultShape } from "./result-check";

const FIXTURES = sharedPath("fixtures/tool-outputs");

interface FixtureEntry {
  readonly id: string;
  readonly kind: string;
  readonly format: string;
  readonly file: string;
}

describe("checkResultShape", () => {
  describeWithShared(["fixtures/tool-outputs/index.json"], "on real API responses (shared/fixtures/tool-outputs)", () => {
    const jsonFixtures = (JSON.parse(readFileSync(path.join(FIXTURES, "index.json"), "utf8")) as FixtureEntry[]).filter((entry) => entry.format === "json");
    it("covers the JSON fixtures, including the error ones", () => {
      expect(jsonFixtures.length).toBeGreaterThan(10);
      expect(jsonFixtures.some((entry) => entry.kind.startsWith("error-json"))).toBe(true);
    });

    it.each(jsonFixtures.map((entry) => [entry.id, entry] as const))("labels %s correctly, as an object and as JSON text", (_id, entry) => {
      const text = readFileSync(path.join(FIXTURES, entry.file), "utf8");
      const expectFailure = entry.kind.startsWith("error-json");
      for (const result of [JSON.parse(text) as unknown, text]) {
        const failure = checkResultShape(result, DEFAULT_RESULT_CHECKS);
        if (expectFailure) expect(failure?.label).toBe("code_mismatch");
        else expect(failure).toBeUndefined();
      }
    });
  });

  describe("on HTTP-like envelopes", () => {
    it.each([
      ["a 503 envelope", { status: 503, statusText: "Service Unavailable", body: "" }, { label: "http_status", status: 503 }],
      ["a 404 envelope with statusCode", { statusCode: 404, headers: {} }, { label: "http_status", status: 404 }],
      ["a 200 envelope with an unparseable JSON body", { status: 200, headers: { "Content-Type": "application/json" }, body: "{oops" }, { label: "json_parse" }],
      ["a 200 envelope whose body says code 500", { status: 200, body: '{"code":500,"msg":"system busy"}' }, { label: "code_mismatch", status: 500 }],
      ["a bare body with code 500 as text", '{"code":500,"msg":"system busy"}', { label: "code_mismatch", status: 500 }],
      ["a body with success: false", { success: false, message: "quota exceeded" }, { label: "code_mismatch" }],
      ["a body with status \"error\"", { status: "error", message: "invalid key" }, { label: "code_mismatch" }],
      ["a body with an error field", { error: { message: "rate limited" } }, { label: "code_mismatch" }],
    ])("fails %s", (_label, result, expected) => {
      expect(checkResultShape(result, DEFAULT_RESULT_CHECKS)).toMatchObject(expected);
    });

    it.each([
      ["a 200 envelope with a JSON body", { status: 200, body: '{"items":[1]}' }],
      ["code 0", { code: 0, data: [] }],
      ["code 200", { code: 200, data: [] }],
      ["a null error", { error: null, data: 1 }],
      ["prose that starts with a brace", "{not json, just text} said the tool"],
      ["an array", [{ error: "inside an item is not top level" }]],
      ["a domain status", { status: "shipped" }],
    ])("accepts %s", (_label, result) => {
      expect(checkResultShape(result, DEFAULT_RESULT_CHECKS)).toBeUndefined();
    });

    it("reports missing required fields by dotted path and skips disabled checks", () => {
      const checks: ResultChecks = { ...DEFAULT_RESULT_CHECKS, requiredFields: ["data.items.0.id"] };
      expect(checkResultShape({ data: { items: [{}] } }, checks)).toEqual({ label: "missing_field", detail: 'missing "data.items.0.id"' });
      expect(checkResultShape({ data: { items: [{ id: 1 }] } }, checks)).toBeUndefined();
      expect(checkResultShape({ status: 500, body: "x" }, { ...DEFAULT_RESULT_CHECKS, httpStatus: false })).toBeUndefined();
    });
  });
});
