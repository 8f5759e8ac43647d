// A jest reporter that names every skipped test at the end of the run, so a suite skipped for a
// missing requirement (../shared, redis-server, promtool, chromium; see
// packages/testing/src/requirements.ts) is seen, not just counted. Tests skipped for the same
// missing requirement share one line that names it (a clone without ../shared gets one line for
// every suite that reads it, not one per test); any other skipped test gets a line of its own.
const path = require("node:path");

const REQUIREMENT = /skipped \((.+)\)$/;

class SkippedReporter {
  onRunComplete(_contexts, results) {
    const byReason = new Map();
    const others = [];
    let count = 0;
    for (const file of results.testResults) {
      const relative = path.relative(process.cwd(), file.testFilePath ?? "");
      for (const test of file.testResults) {
        if (test.status !== "pending" && test.status !== "skipped" && test.status !== "todo") continue;
        count += 1;
        const reason = REQUIREMENT.exec(test.title ?? "")?.[1];
        if (reason === undefined) {
          others.push(test.fullName);
          continue;
        }
        const entry = byReason.get(reason) ?? { tests: 0, files: new Set() };
        entry.tests += 1;
        entry.files.add(relative);
        byReason.set(reason, entry);
      }
    }
    if (count === 0) return;
    const lines = [
      ...[...byReason].map(([reason, { tests, files }]) => `  - ${reason}: ${tests} test${tests === 1 ? "" : "s"} skipped in ${[...files].join(", ")}`),
      ...others.map((name) => `  - ${name}`),
    ];
    process.stderr.write(`\nSkipped ${count} test${count === 1 ? "" : "s"} (set REINS_CI=1 to make a missing requirement fail):\n${lines.join("\n")}\n`);
  }
}

module.exports = SkippedReporter;
