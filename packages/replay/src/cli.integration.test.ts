import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ReplayOptionsError } from "./errors";
import { parseReplayArgs, runReplayCli } from "./cli";
import { FALLBACK_OUTPUT, runWithReplayServer } from "./run-with-server";

const dir = mkdtempSync(path.join(os.tmpdir(), "reins-replay-cli-"));
const trajectories = path.join(dir, "trajectories.json");
writeFileSync(
  trajectories,
  JSON.stringify([
    { id: "one", turns: [{ llm_output: "Action: search\nAction Input: x", observation: "y" }, { llm_output: null, observation: null }] },
    { id: "two", turns: [{ llm_output: "Final Answer: two", observation: null }] },
  ]),
);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const out: string[] = [];
  return { stream: { write: (text: string) => out.push(text) }, text: () => out.join("") };
}

describe("parseReplayArgs", () => {
  it("reads scripted outputs, tool turns included, and the command after --", () => {
    const options = parseReplayArgs(["--outputs", '["a", {"toolCalls": [{"name": "t", "arguments": "{}"}]}]', "--require-all-outputs", "--", "node", "app.js"]);
    expect(options.outputs).toEqual(["a", { toolCalls: [{ name: "t", arguments: "{}" }] }]);
    expect(options.requireAllOutputs).toBe(true);
    expect(options.command).toEqual(["node", "app.js"]);
    expect(options.fallback).toBe(FALLBACK_OUTPUT);
  });

  it("reads the llm_output of the trajectory --id names, and says what it left out", () => {
    expect(parseReplayArgs(["--trajectory", trajectories, "--id", "two"]).outputs).toEqual(["Final Answer: two"]);
    const first = parseReplayArgs(["--trajectory", trajectories]);
    expect(first.outputs).toEqual(["Action: search\nAction Input: x"]);
    expect(first.source).toMatch(/"one".*1 turn\(s\) without llm_output left out; 2 in the file/);
  });

  it.each([
    [["--outputs", "[1]"], /--outputs\[0\]: must be a string or/],
    [["--outputs", "{"], /--outputs: is not JSON/],
    [["--trajectory", trajectories, "--id", "three"], /no trajectory "three".*"one", "two"/],
    [["--trajectory", path.join(dir, "missing.json")], /cannot read .*ENOENT/],
    [["--id", "x"], /--id: needs --trajectory/],
    [["--port", "-1"], /--port: must be an integer ≥ 0/],
    [["--timeout-ms", "0"], /--timeout-ms: must be an integer ≥ 1/],
    [["--bogus"], /--bogus: unknown option/],
    [["--"], /needs a command/],
  ])("rejects %j with a ReplayOptionsError naming it", (argv, message) => {
    expect(() => parseReplayArgs(argv)).toThrow(ReplayOptionsError);
    expect(() => parseReplayArgs(argv)).toThrow(message);
  });
});

describe("runReplayCli", () => {
  it("prints a one-line error and the usage for a bad flag, exit 2", async () => {
    const stderr = capture();
    const code = await runReplayCli(["--outputs", "nope"], { stdout: capture().stream, stderr: stderr.stream });
    expect(code).toBe(2);
    expect(stderr.text().split("\n")[0]).toMatch(/^reins-replay: --outputs: is not JSON/);
  });

  it("serves until stopped, printing the base URL and the export line", async () => {
    const stdout = capture();
    let stop!: () => void;
    const untilStopped = new Promise<void>((resolve) => (stop = resolve));
    const running = runReplayCli(["--outputs", '["Final Answer: served"]', "--no-fallback"], { stdout: stdout.stream, stderr: capture().stream, untilStopped });
    while (!/export OPENAI_BASE_URL=(\S+)/.test(stdout.text())) await new Promise((resolve) => setTimeout(resolve, 10));
    const baseURL = /export OPENAI_BASE_URL=(\S+)/.exec(stdout.text())![1];
    const post = () => fetch(`${baseURL}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "q" }] }) });
    const first = (await (await post()).json()) as { choices: Array<{ message: { content: string } }> };
    expect(first.choices[0].message.content).toBe("Final Answer: served");
    expect((await post()).status).toBe(400); // --no-fallback: the script is used up
    stop();
    expect(await running).toBe(0);
  });
});

describe("runWithReplayServer", () => {
  const node = process.execPath;
  const app = `fetch(process.env.OPENAI_BASE_URL + "/responses", { method: "POST", body: JSON.stringify({ model: process.env.OPENAI_MODEL, input: "q" }) })
    .then((r) => r.json()).then((b) => { console.log(b.output[0].content[0].text); process.exit(b.output[0].content[0].text === process.argv[1] ? 0 : 9); });`;

  it("runs the command with OPENAI_BASE_URL set and returns its exit code", async () => {
    const log: string[] = [];
    expect(await runWithReplayServer({ command: [node, "-e", app, "scripted"], outputs: ["scripted"], log: (line) => log.push(line) })).toBe(0);
    expect(log.at(-1)).toBe("reins-replay: 1 model request(s) served, 0 scripted output(s) left");
  }, 60_000);

  // Each spawns a node process: generous timeouts for a loaded machine.
  it("answers with the fallback once the script is used up", async () => {
    expect(await runWithReplayServer({ command: [node, "-e", app, FALLBACK_OUTPUT], log: () => {} })).toBe(0);
  }, 60_000);

  it("exits 3 under requireAllOutputs when scripted outputs are left", async () => {
    expect(await runWithReplayServer({ command: [node, "-e", app, "a"], outputs: ["a", "b"], requireAllOutputs: true, log: () => {} })).toBe(3);
  }, 60_000);

  it("kills a command still running at timeoutMs, exit 124", async () => {
    const log: string[] = [];
    expect(await runWithReplayServer({ command: [node, "-e", "setInterval(() => {}, 1000)"], timeoutMs: 300, log: (line) => log.push(line) })).toBe(124);
    expect(log.join("\n")).toMatch(/still running after 300 ms: killed/);
  }, 60_000);
});
