import { Readable } from "node:stream";
import { runCli, thoughtWithoutJson, type CliIo } from "./cli";

function io(input: string, files: Record<string, string> = {}): CliIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdin: Readable.from([Buffer.from(input, "utf8")]),
    readFile: async (path: string) => {
      if (!(path in files)) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
      return files[path] as string;
    },
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

  describe("without --tools", () => {
    it("refuses one model output, naming the flag", async () => {
      const streams = io("Action: search\nAction Input: x");
      await expect(runCli([], streams)).resolves.toBe(2);
      expect(streams.out()).toBe("");
      expect(streams.err()).toContain("--tools is required");
    });

    it("takes each JSONL line's tools from its \"tools\" or \"tool_names\" field", async () => {
      const lines = [
        JSON.stringify({ text: "Action: lookup\nAction Input: {\"key\": \"a\"}", tools: ["lookup:object"] }),
        JSON.stringify({ llm_output: "Action: calc\nAction Input: 1+1", tool_names: "search, calc" }),
        JSON.stringify({ text: "Action: search\nAction Input: x", tools: [{ name: "search" }] }),
      ].join("\n");
      const streams = io(lines);
      await expect(runCli(["--jsonl"], streams)).resolves.toBe(0);
      const printed = streams.out().trim().split("\n").map((line) => JSON.parse(line));
      expect(printed).toEqual([
        { line: 1, ok: true, type: "action", tool: "lookup", toolInput: { key: "a" }, thought: "", repairs: [] },
        { line: 2, ok: true, type: "action", tool: "calc", toolInput: "1+1", thought: "", repairs: [] },
        { line: 3, ok: true, type: "action", tool: "search", toolInput: "x", thought: "", repairs: [] },
      ]);
      expect(streams.err()).toBe("");
    });

    it("reports a JSONL line that names no tools and goes on", async () => {
      const lines = [JSON.stringify({ text: "Final Answer: 1" }), JSON.stringify({ text: "Final Answer: 2", tools: ["search"] })].join("\n");
      const streams = io(lines);
      await expect(runCli(["--jsonl"], streams)).resolves.toBe(2);
      expect(streams.err()).toContain('line 1 names no tools: pass --tools, or give the line a "tools" or "tool_names" field');
      expect(JSON.parse(streams.out())).toMatchObject({ line: 2, type: "finish", output: "2" });
    });

    it("lets a line's own tools win over --tools", async () => {
      const streams = io(JSON.stringify({ text: "Action: calc\nAction Input: 2", tools: ["calc"] }));
      await runCli(["--jsonl", "--tools", "search"], streams);
      expect(JSON.parse(streams.out())).toMatchObject({ ok: true, tool: "calc" });
    });

    it("rejects a malformed tools field", async () => {
      const streams = io(JSON.stringify({ text: "Final Answer: 1", tools: [42] }));
      await expect(runCli(["--jsonl"], streams)).resolves.toBe(2);
      expect(streams.err()).toContain('line 1 "tools" holds 42');
    });
  });

  describe("with a FILE argument", () => {
    it("reads the file instead of stdin", async () => {
      const streams = io("ignored", { "reply.txt": "Action: search\nAction Input: from file" });
      await expect(runCli(["--tools", "search", "reply.txt"], streams)).resolves.toBe(0);
      expect(JSON.parse(streams.out())).toMatchObject({ tool: "search", toolInput: "from file" });
    });

    it("reads a .jsonl file as JSON lines", async () => {
      const streams = io("", { "log.jsonl": `${JSON.stringify("Final Answer: 1")}\n${JSON.stringify("Final Answer: 2")}\n` });
      await expect(runCli(["--tools", "search", "log.jsonl"], streams)).resolves.toBe(0);
      expect(streams.out().trim().split("\n").map((line) => JSON.parse(line).output)).toEqual(["1", "2"]);
    });

    it("reads stdin for -", async () => {
      const streams = io("Final Answer: stdin");
      await runCli(["--tools", "search", "-"], streams);
      expect(JSON.parse(streams.out())).toMatchObject({ output: "stdin" });
    });

    it("exits with 2 and the reason when the file cannot be read", async () => {
      const streams = io("");
      await expect(runCli(["--tools", "search", "missing.txt"], streams)).resolves.toBe(2);
      expect(streams.err()).toContain("cannot read missing.txt: ENOENT");
    });

    it("takes one file at most", async () => {
      const streams = io("");
      await expect(runCli(["--tools", "search", "a.txt", "b.txt"], streams)).resolves.toBe(2);
      expect(streams.err()).toContain("one FILE at most");
    });
  });

  describe("with --summary", () => {
    it("ends with counts by outcome and by repair on stderr, keeping stdout JSON", async () => {
      const lines = [
        JSON.stringify("Final Answer: 42"),
        JSON.stringify('{"action": "search", "action_input": "a"}'),
        JSON.stringify('{"action": "search", "action_input": "b"}'),
        JSON.stringify("Action: fetch\nAction Input: x"),
        "not json",
      ].join("\n");
      const streams = io(lines);
      await expect(runCli(["--jsonl", "--summary", "--tools", "search"], streams)).resolves.toBe(2);
      expect(streams.out().trim().split("\n")).toHaveLength(4);
      const summary = streams.err().slice(streams.err().indexOf("reins-parse summary"));
      expect(summary).toContain("4 output(s) parsed, 1 line(s) unreadable");
      expect(summary).toMatch(/by outcome:\n\s+2 {2}action\n\s+1 {2}finish\n\s+1 {2}rejected: unknown_tool\n/);
      expect(summary).toMatch(/by repair \(2 repair\(s\); an output can have several\):\n\s+2 {2}json_action_blob\n/);
    });

    it("says when nothing was repaired", async () => {
      const streams = io("Final Answer: 1");
      await runCli(["--summary", "--tools", "search"], streams);
      expect(streams.err()).toContain("by outcome:\n       1  finish\n");
      expect(streams.err()).toContain("-  none");
    });
  });

  describe("with a JSON action blob", () => {
    it("never echoes the blob back as the thought", async () => {
      const streams = io('I will look it up.\n{"action": "search", "action_input": "reins"}');
      await runCli(["--tools", "search"], streams);
      expect(JSON.parse(streams.out())).toEqual({ ok: true, type: "action", tool: "search", toolInput: "reins", thought: "I will look it up.", repairs: ["json_action_blob"] });
    });

    it("drops a fenced blob too, and a blob alone leaves an empty thought", async () => {
      const fenced = io('Thought: hmm\n```json\n{"action": "search", "action_input": "x"}\n```');
      await runCli(["--tools", "search"], fenced);
      expect(JSON.parse(fenced.out()).thought).toBe("hmm");
      const bare = io('{"action": "search", "action_input": "x"}');
      await runCli(["--tools", "search"], bare);
      expect(JSON.parse(bare.out()).thought).toBe("");
    });
  });
});

describe("thoughtWithoutJson", () => {
  it("keeps braces that are not JSON", () => {
    expect(thoughtWithoutJson("use {curly} style and [1, 2")).toBe("use {curly} style and [1, 2");
  });

  it("takes out JSON values with braces inside strings", () => {
    expect(thoughtWithoutJson('before {"a": "}{", "b": [1, {"c": 2}]} after')).toBe("before  after");
  });
});
