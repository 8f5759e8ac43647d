/**
 * Logs: the package's own log fixtures (a GitHub Actions job, `kubectl logs` of a crashing
 * controller, a pytest run; written for this package, values invented) and one case per log kind
 * the cleaner recognises.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { cleanObservation } from "./clean-observation";
import { looksLikeLog, replayCarriageReturns } from "./log-lines";

interface LogEntry {
  readonly id: string;
  readonly file: string;
  readonly key_facts: readonly string[];
}

const LOG_DIR = path.resolve(__dirname, "__fixtures__/logs");
const index = JSON.parse(readFileSync(path.join(LOG_DIR, "index.json"), "utf8")) as LogEntry[];
const results = index.map((entry) => {
  const raw = readFileSync(path.join(LOG_DIR, entry.file), "utf8");
  return { entry, raw, cleaned: cleanObservation(raw) };
});
const resultOf = (id: string): (typeof results)[number] => results.find((result) => result.entry.id === id) as (typeof results)[number];

function stamp(second: number): string {
  return `2026-11-30T06:${String(Math.floor(second / 60) % 60).padStart(2, "0")}:${String(second % 60).padStart(2, "0")}.1234567Z`;
}

describe("cleanObservation", () => {
  describe("over the package's log fixtures", () => {
    it("reads all 3 logs as logs", () => {
      expect(results).toHaveLength(3);
      for (const { raw } of results) expect(looksLikeLog(raw)).toBe(true);
    });

    it.each(results.map((result) => [result.entry.id, result] as const))("keeps every key fact of %s and cuts it by at least 70 %%", (_id, { entry, raw, cleaned }) => {
      expect(entry.key_facts.filter((fact) => !cleaned.text.includes(fact))).toEqual([]);
      expect(cleaned.text.length).toBeLessThanOrEqual(6000);
      expect(1 - cleaned.cleanChars / raw.length).toBeGreaterThanOrEqual(0.7);
      expect(cleaned.truncated).toBe(true);
    });

    it("condenses a log held in a field of a JSON result (a CI API's job with its log) the same way", () => {
      const { raw } = resultOf("ci-github-actions-jest");
      const cleaned = cleanObservation({ job: { id: 29181, status: "completed", conclusion: "failure", log: raw } });
      expect(cleaned.text.length).toBeLessThanOrEqual(6000);
      expect(cleaned.text).toContain("conclusion: failure");
      for (const fact of ["Test Suites: 1 failed, 39 passed, 40 total", "FAIL packages/executor/src/delta.test.ts", "Process completed with exit code 1."]) expect(cleaned.text).toContain(fact);
    });

    it("keeps the test step's results that sit between hundreds of progress lines, in order", () => {
      const { text } = resultOf("ci-github-actions-jest").cleaned;
      const order = ["##[group]Run npm ci", "added 812 packages", "##[group]Run npm test -- --ci", "FAIL packages/executor/src/delta.test.ts", "Test Suites: 1 failed, 39 passed, 40 total", "##[group]Run docker build", "##[error]Process completed with exit code 1."];
      const positions = order.map((fact) => text.indexOf(fact));
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect([...positions].sort((left, right) => left - right)).toEqual(positions);
    });

    it("says which lines each gap and each collapsed run stands for", () => {
      const { text } = resultOf("ci-github-actions-jest").cleaned;
      expect(text).toMatch(/\[\d+ progress lines omitted \(lines \d+–\d+\)\]/);
      expect(text).toMatch(/\[lines \d+–\d+ omitted\]/);
    });

    it("keeps the timestamp of the first line and of error lines, and drops it from ordinary ones", () => {
      const { text, notes } = resultOf("ci-github-actions-jest").cleaned;
      expect(text.split("\n")[0]).toMatch(/^2026-11-30T06:00:00\.\d+Z Current runner version/);
      expect(text).toMatch(/\d{2}Z ##\[error\]Process completed with exit code 1\./);
      expect(text).toContain("\nHEAD is now at 9f3c2e1");
      expect(notes.join(" ")).toMatch(/dropped the timestamps of \d+ ordinary log line/);
    });

    it("keeps the app frames of a Go panic and counts the controller-runtime frames", () => {
      const { text } = resultOf("kubectl-logs-controller-panic").cleaned;
      expect(text).toContain("/src/internal/reconciler/invoice.go:77");
      expect(text).toMatch(/\[\d+ more frames omitted, all in libraries \(lines \d+–\d+\)\]/);
      expect(text).not.toContain("controller.go:166");
    });

    it("keeps a Python traceback's last frames (most recent call last) and the short summary", () => {
      const { text } = resultOf("pytest-payout-failure").cleaned;
      expect(text).toContain('ledger/payouts.py", line 118, in amount');
      expect(text).toMatch(/\[8 more frames omitted, all in libraries/);
      expect(text).toMatch(/\[58 similar lines omitted \(lines 13–70\)\]/);
      expect(text).toContain("test_render_month[2024-12] PASSED");
    });
  });

  describe("with each kind of log line", () => {
    it("shows a carriage-return progress bar as a terminal does: its last state only", () => {
      const bar = (percent: number): string => `Downloading model.bin ${percent}% [${"=".repeat(percent / 10)}>${" ".repeat(10 - percent / 10)}]`;
      const redraws = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map(bar).join("\r");
      const lines = ["$ ./fetch-weights.sh", ...Array.from({ length: 12 }, (_, line) => `${stamp(line)} INFO step ${line} done`), redraws, "Saved model.bin (4.2 GB)"];
      const cleaned = cleanObservation(lines.join("\n"));
      expect(cleaned.text).toContain(bar(100));
      expect(cleaned.text).not.toContain(bar(50));
      expect(cleaned.text).toContain("Saved model.bin (4.2 GB)");
      expect(cleaned.notes.join(" ")).toMatch(/kept the last of each carriage-return redraw \(10 overwritten segment/);
    });

    it("reads a text whose only line ends are carriage returns (old Mac) as lines, dropping nothing", () => {
      expect(replayCarriageReturns("one\rtwo\rthree")).toEqual({ text: "one\ntwo\nthree", dropped: 0 });
      expect(replayCarriageReturns("a\r\nb\r\n")).toEqual({ text: "a\nb\n", dropped: 0 });
    });

    it("collapses a run of lines that differ only in a counter into its first, a count and its last", () => {
      const lines = [...Array.from({ length: 200 }, (_, index) => `${stamp(index)} INFO processed ${index * 50} of 10000 records`), `${stamp(201)} INFO import finished: 10000 records, 3 rejected`];
      const { text } = cleanObservation(lines.join("\n"));
      expect(text).toContain("processed 0 of 10000 records");
      expect(text).toContain("processed 9950 of 10000 records");
      expect(text).toContain("[198 similar lines omitted (lines 2–199)]");
      expect(text).toContain("import finished: 10000 records, 3 rejected");
      expect(text.length).toBeLessThan(600);
    });

    it("collapses a run of progress lines and keeps the step boundaries around them", () => {
      const lines = [
        "::group::Install dependencies",
        ...Array.from({ length: 300 }, (_, index) => `Downloading pkg-${index}.whl (${index} kB/s) ${Math.floor(index / 3)}%`),
        "::endgroup::",
        "::group::Run tests",
        "Ran 45 tests in 0.312s",
        "OK",
        "::endgroup::",
      ];
      const { text } = cleanObservation(lines.join("\n"));
      expect(text).toContain("::group::Install dependencies");
      expect(text).toContain("[298 progress lines omitted (lines 3–300)]");
      expect(text).toContain("Downloading pkg-299.whl");
      expect(text).toContain("::group::Run tests\nRan 45 tests in 0.312s\nOK\n::endgroup::");
    });

    it("keeps the first frames of each cause of a Java trace and counts the library frames", () => {
      const frames = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, index) => `\tat ${prefix}.step${index}(Source.java:${index + 10})`);
      const lines = [
        ...Array.from({ length: 10 }, (_, index) => `2026-11-30 06:00:0${index % 10},123 INFO  [main] starting worker ${index}`),
        "2026-11-30 06:00:10,001 ERROR [main] request failed",
        "java.lang.IllegalStateException: ledger is closed",
        "\tat com.harbor.ledger.Ledger.post(Ledger.java:88)",
        "\tat com.harbor.ledger.PostingService.apply(PostingService.java:41)",
        ...frames("org.springframework.web.servlet.FrameworkServlet", 40),
        "Caused by: java.io.IOException: disk quota exceeded",
        "\tat com.harbor.ledger.Journal.append(Journal.java:17)",
        ...frames("java.base/java.io.FileOutputStream", 30),
        "\t... 12 more",
      ];
      const { text } = cleanObservation(lines.join("\n"));
      expect(text).toContain("java.lang.IllegalStateException: ledger is closed");
      expect(text).toContain("Ledger.java:88");
      expect(text).toContain("PostingService.java:41");
      expect(text).toContain("Caused by: java.io.IOException: disk quota exceeded");
      expect(text).toContain("Journal.java:17");
      expect(text).toMatch(/\[39 more frames omitted, all in libraries \(lines \d+–\d+\)\]/);
      expect(text).not.toContain("step30(");
    });

    it("cuts the middle of an over-budget log, never its errors, warnings or last lines", () => {
      const verbs = ["handled", "queued", "parsed", "stored", "indexed", "sent", "priced", "billed", "shipped", "audited", "cached"];
      const lines = Array.from({ length: 3000 }, (_, index) => `${stamp(index)} worker ${index % 17} ${verbs[index % verbs.length]} job ${index}`);
      lines[1500] = `${stamp(1500)} WARN worker 3 retried job 88-1500 after a timeout of 30 s`;
      lines[2100] = `${stamp(2100)} ERROR worker 9 gave up on job 12-2100: connection reset by peer`;
      lines.push("summary: 2999 handled, 1 failed");
      const cleaned = cleanObservation(lines.join("\n"), { maxChars: 3000 });
      expect(cleaned.text.length).toBeLessThanOrEqual(3000);
      expect(cleaned.text).toContain("WARN worker 3 retried job 88-1500");
      expect(cleaned.text).toContain(`${stamp(2100)} ERROR worker 9 gave up on job 12-2100`);
      expect(cleaned.text).toContain("summary: 2999 handled, 1 failed");
      expect(cleaned.text).toMatch(/\[lines \d+–\d+ omitted\]/);
      expect(cleaned.notes.join(" ")).toMatch(/cut a log of 3001 lines/);
    });

    it("reads a JSON-lines log (zap, pino) as log lines, keeping the error in its middle and every value as written", () => {
      const lines = Array.from({ length: 2000 }, (_, index) =>
        JSON.stringify({ level: "info", ts: stamp(index), caller: "sync/loop.go:88", msg: "synced batch", batch: index, namespace: "billing" }),
      );
      lines[1200] = `{"level":"error","ts":"${stamp(1200)}","caller":"sync/loop.go:120","msg":"upsert failed","invoice":"inv_8841","amount":9007199254740993,"error":"deadlock detected"}`;
      const cleaned = cleanObservation(lines.join("\n"));
      expect(cleaned.text).toContain(`${stamp(1200)} ERROR upsert failed caller=sync/loop.go:120 invoice=inv_8841 amount=9007199254740993 error="deadlock detected"`);
      expect(cleaned.text).toMatch(/\[\d+ similar lines omitted \(lines 2–\d+\)\]/);
      expect(cleaned.text).toContain("synced batch caller=sync/loop.go:88 batch=1999 namespace=billing");
      expect(cleaned.notes.join(" ")).toMatch(/read 2000 JSON log lines as log lines/);
      expect(cleaned.text.length).toBeLessThan(1500);
    });

    it("reads JSON text that only has a few objects on lines as JSON, not as a log", () => {
      const records = Array.from({ length: 5 }, (_, index) => JSON.stringify({ level: "info", msg: `record ${index}` })).join("\n");
      expect(cleanObservation(records).notes.join(" ")).not.toMatch(/JSON log lines/);
    });

    it("does not read a Markdown document or prose as a log", () => {
      const markdown = Array.from({ length: 30 }, (_, index) => (index % 5 === 0 ? `## Section ${index}` : `This paragraph ${index} explains a part of the service in plain words.`)).join("\n");
      expect(looksLikeLog(markdown)).toBe(false);
      expect(cleanObservation(markdown).notes.join(" ")).not.toMatch(/log/);
    });
  });
});
