import { unmetReason, sharedPath, SHARED_DIR } from "./index";

describe("unmetReason", () => {
  describe("for a ../shared path", () => {
    it("names the missing path and where it was looked for", () => {
      const reason = unmetReason({ shared: "no-such-dir/none.json" });
      expect(reason).toBe(`../shared/no-such-dir/none.json not found at ${sharedPath("no-such-dir/none.json")}`);
      expect(sharedPath("x")).toBe(`${SHARED_DIR}/x`);
    });
  });

  describe("for a program", () => {
    it("is met by a program every machine has and names one that is missing", () => {
      expect(unmetReason({ program: "node" })).toBeUndefined();
      expect(unmetReason({ program: "reins-no-such-program" })).toBe("program reins-no-such-program not on the PATH");
    });
  });
});
