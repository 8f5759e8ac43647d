import { ToolResultCheckError, ToolTimeoutError, ToolValidationError, isRetryableError } from "./index";
import { httpStatusOf, toError } from "./normalize-error";

describe("toError", () => {
  describe("with thrown non-errors", () => {
    it.each([
      ["a string", "boom", "boom"],
      ["an empty string", "  ", "The tool threw an empty string"],
      ["undefined", undefined, "The tool threw without an error value (no error details)"],
      ["null", null, "The tool threw null (no error details)"],
      ["a number", 42, "The tool threw number 42."],
      ["an object with msg", { msg: "system busy" }, "system busy"],
      ["an object without text", { a: 1 }, 'The tool threw an object: {"a":1}'],
    ])("turns %s into an Error with a message", (_label, thrown, message) => {
      const error = toError(thrown);
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toBe(message);
    });

    it("keeps status facts of a thrown object for retry classification", () => {
      const error = toError({ message: "unavailable", response: { status: 503 } });
      expect(httpStatusOf(error)).toBe(503);
      expect(isRetryableError(error)).toBe(true);
    });

    it("returns an Error unchanged", () => {
      const original = new TypeError("bad");
      expect(toError(original)).toBe(original);
    });
  });
});

describe("isRetryableError", () => {
  describe("by default", () => {
    it.each([
      ["a timeout", new ToolTimeoutError({ toolName: "t", timeoutMs: 1 }), true],
      ["HTTP 500", Object.assign(new Error("x"), { status: 500 }), true],
      ["HTTP 429", Object.assign(new Error("x"), { statusCode: 429 }), true],
      ["HTTP 400", Object.assign(new Error("x"), { status: 400 }), false],
      ["EAI_AGAIN", Object.assign(new Error("x"), { code: "EAI_AGAIN" }), true],
      ["a network code on the cause", new Error("wrapped", { cause: Object.assign(new Error("x"), { code: "ETIMEDOUT" }) }), true],
      ["a validation error", new ToolValidationError({ toolName: "t", issues: [] }), false],
      ["a 503 ghost failure", new ToolResultCheckError({ toolName: "t", label: "code_mismatch", detail: "code 503", status: 503 }), true],
      ["a missing field", new ToolResultCheckError({ toolName: "t", label: "missing_field", detail: "missing a" }), false],
      ["a plain error", new Error("nope"), false],
    ])("classifies %s", (_label, error, expected) => {
      expect(isRetryableError(error)).toBe(expected);
    });
  });
});
