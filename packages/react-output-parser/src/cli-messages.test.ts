import { Readable } from "node:stream";
import { runCli, type CliIo } from "./cli";

const TOOLS = JSON.stringify([
  { type: "function", function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
  { type: "function", function: { name: "write_file", parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] } } },
]);

function io(files: Record<string, string>, input = ""): CliIo & { out: () => string; err: () => string } {
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

const LOG = [
  // OpenAI chat completion, a Hermes call in the content (the server's parser missed it).
  { choices: [{ message: { role: "assistant", content: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>', tool_calls: [] }, finish_reason: "stop" }] },
  // OpenAI message with a native call whose arguments carry a json fence word.
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: 'json\n{"city": "Lima"}' } }] },
  // LangChain message (serialised), a written call cut off by the length limit.
  { lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"], kwargs: { content: '[TOOL_CALLS]write_file[ARGS]{"path": "a.md", "content": "# Ti', tool_calls: [], invalid_tool_calls: [], response_metadata: { finish_reason: "length" } } },
  // LangChain message with an invalid_tool_calls entry and a wrong field name.
  { content: "", tool_calls: [], invalid_tool_calls: [{ name: "get_weather", args: "{'town': 'Bern'}", id: "c2", type: "invalid_tool_call" }] },
  { role: "assistant", content: "It is sunny in Oslo." },
]
  .map((line) => JSON.stringify(line))
  .join("\n");

describe("runCli", () => {
  describe("with --tool-schemas (rescue mode, logged assistant messages)", () => {
    it("prints what the rescue makes of each message", async () => {
      const streams = io({ "tools.json": TOOLS, "log.jsonl": LOG });
      await expect(runCli(["--tool-schemas", "tools.json", "log.jsonl"], streams)).resolves.toBe(0);
      const results = streams.out().trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(results.map((result) => result.outcome)).toEqual(["rescued", "repaired", "corrected", "corrected", "answer"]);
      expect(results[0]).toMatchObject({ line: 1, calls: [{ name: "get_weather", args: { city: "Oslo" }, source: "tool_call_tag" }], content: "" });
      expect(results[1]).toMatchObject({ calls: [{ name: "get_weather", args: { city: "Lima" }, repairs: ["fence_word_removed", "arguments_string"] }] });
      expect(results[2]).toMatchObject({ refused: [{ name: "write_file", reason: "truncated_arguments" }] });
      expect(results[3]).toMatchObject({ refused: [{ name: "get_weather", reason: "unknown_fields" }] });
      expect((results[3]?.refused as Array<{ correction: string }>)[0]?.correction).toContain('"town"');
    });

    it("counts outcomes, repairs and refusals with --summary", async () => {
      const streams = io({ "tools.json": TOOLS }, LOG);
      await expect(runCli(["--tool-schemas=tools.json", "--summary"], streams)).resolves.toBe(0);
      expect(streams.err()).toContain("5 message(s) read");
      expect(streams.err()).toMatch(/ {5}2 {2}corrected/);
      expect(streams.err()).toMatch(/1 {2}written_tool_call_tag/);
      expect(streams.err()).toMatch(/1 {2}truncated_arguments/);
    });

    it("names an unreadable line and exits 2", async () => {
      const streams = io({ "tools.json": TOOLS }, 'not json\n{"choices": []}\n');
      await expect(runCli(["--tool-schemas", "tools.json"], streams)).resolves.toBe(2);
      expect(streams.err()).toContain("line 1 is not JSON");
      expect(streams.err()).toContain("line 2 has no choices[0].message");
    });

    it("rejects a definitions file without tools", async () => {
      const streams = io({ "tools.json": "[]" });
      await expect(runCli(["--tool-schemas", "tools.json"], streams)).resolves.toBe(2);
      expect(streams.err()).toContain("non-empty JSON array");
    });
  });
});
