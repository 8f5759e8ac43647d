import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describeRequiring, findProgram, unmetReason, sharedPath, SHARED_DIR } from "./index";

describe("unmetReason", () => {
  describe("for a ../shared path", () => {
    it("names the missing path and where it was looked for", () => {
      // A ../shared that exists (a temporary one: the clone may have none beside it).
      const shared = mkdtempSync(path.join(tmpdir(), "reins-shared-"));
      try {
        const reason = unmetReason({ shared: "no-such-dir/none.json" }, shared);
        expect(reason).toBe(`../shared/no-such-dir/none.json not found at ${path.join(shared, "no-such-dir/none.json")}`);
      } finally {
        rmSync(shared, { recursive: true, force: true });
      }
      expect(sharedPath("x")).toBe(`${SHARED_DIR}/x`);
    });
  });

  describe("for a clone without ../shared at all", () => {
    it("names the missing directory alone, the same one line for every path", () => {
      const missing = path.join(tmpdir(), "reins-no-shared-here", "shared");
      expect(unmetReason({ shared: "corpus/peer-dev.json" }, missing)).toBe(`../shared not found at ${missing}`);
      expect(unmetReason({ shared: "fixtures/tool-outputs" }, missing)).toBe(`../shared not found at ${missing}`);
    });
  });

  describe("for a program", () => {
    it("is met by a program every machine has and names one that is missing", () => {
      expect(unmetReason({ program: "node" })).toBeUndefined();
      expect(unmetReason({ program: "reins-no-such-program" })).toBe("program reins-no-such-program not on the PATH");
    });
  });

  describe("for a program outside the PATH", () => {
    it("finds an executable in alsoIn, by absolute path, and names the directories it looked in when missing", () => {
      const directory = mkdtempSync(path.join(tmpdir(), "reins-find-program-"));
      try {
        const program = path.join(directory, "reins-only-here");
        writeFileSync(program, "#!/bin/sh\n");
        chmodSync(program, 0o755);
        expect(findProgram("reins-only-here", ["/nonexistent", directory])).toBe(program);
        expect(unmetReason({ program: "reins-only-here", alsoIn: [directory] })).toBeUndefined();
        expect(findProgram("node", [directory])).toBe("node");
        expect(unmetReason({ program: "reins-no-such-program", alsoIn: [directory] })).toBe(`program reins-no-such-program not on the PATH nor in ${directory}`);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });
  });
});

describe("describeRequiring", () => {
  describe("for a program, in a file of the unit suite", () => {
    it("refuses the suite, naming the program and the file name that puts it in the integration suite", () => {
      expect(() => describeRequiring([{ program: "node" }], "a suite that runs node", () => undefined)).toThrow(
        '"a suite that runs node" needs node: a suite that runs programs belongs in the integration suite. Rename requirements.test.ts to *.integration.test.ts (npm run test:integration runs it).',
      );
    });
  });
});
