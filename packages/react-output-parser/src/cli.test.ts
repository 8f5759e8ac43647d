import { Readable } from "node:stream";
import { runCli, type CliIo } from "./cli";

function io(input: string): CliIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdin: Readable.from([Buffer.from(input, "utf8")]),
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    out: () => out,
    err: () => err,
  };
}

describe("runCli", () => {
  describe("with one model output on stdin", () => {
    it("prints the action", async () => {
      const streams = io("Action: search\nAction Input: x\n");
      await expect(runCli(["--tools", "search"], streams)).resolves.toBe(0);
      expect(JSON.parse(streams.out())).toEqual({ ok: true, type: "action", tool: "search", toolInput: "x", thought: "", repairs: [] });
    });

    it("prints the corrective observation of a rejected output", async () => {
      const streams = io("Action: fetch\nAction Input: x");
      await expect(runCli(["--tools=search,calculator"], streams)).resolves.toBe(0);
      const result = JSON.parse(streams.out());
      expect(result).toMatchObject({ ok: false, reason: "unknown_tool" });
      expect(result.observation).toContain("search, calculator");
    });

    it("parses object input for a tool marked :object", async () => {
      const streams = io("Action: lookup\nAction Input: {'key': 'a'}");
      await runCli(["--tools", "lookup:object"], streams);
      expect(JSON.parse(streams.out())).toMatchObject({ ok: true, tool: "lookup", toolInput: { key: "a" }, repairs: ["json_repair"] });
    });
  });

  describe("with --jsonl", () => {
    it("prints one result per line and reports unreadable lines", async () => {
      const lines = [JSON.stringify("Final Answer: 42"), JSON.stringify({ llm_output: "Action: search\nAction Input: y" }), "not json", ""].join("\n");
      const streams = io(lines);
      await expect(runCli(["--jsonl", "--tools", "search"], streams)).resolves.toBe(2);
      const printed = streams.out().trim().split("\n").map((line) => JSON.parse(line));
      expect(printed).toEqual([
        { line: 1, ok: true, type: "finish", output: "42", thought: "", repairs: [] },
        { line: 2, ok: true, type: "action", tool: "search", toolInput: "y", thought: "", repairs: [] },
      ]);
      expect(streams.err()).toContain("line 3 is not JSON");
    });
  });

  describe("with bad arguments", () => {
    it("prints the usage and exits with 2", async () => {
      const streams = io("");
      await expect(runCli(["--on-conflict", "later"], streams)).resolves.toBe(2);
      expect(streams.err()).toContain("Usage: reins-parse");
    });

    it("prints the help", async () => {
      const streams = io("");
      await expect(runCli(["--help"], streams)).resolves.toBe(0);
      expect(streams.out()).toContain("--jsonl");
    });
  });
});
