// A jest reporter that names every skipped test at the end of the run, one line each, so a suite
// skipped for a missing requirement (../shared, redis-server, promtool, chromium; see
// packages/testing/src/requirements.ts) is seen, not just counted.
class SkippedReporter {
  onRunComplete(_contexts, results) {
    const skipped = [];
    for (const file of results.testResults) {
      for (const test of file.testResults) {
        if (test.status === "pending" || test.status === "skipped" || test.status === "todo") skipped.push(test.fullName);
      }
    }
    if (skipped.length === 0) return;
    const lines = skipped.map((name) => `  - ${name}`);
    process.stderr.write(`\nSkipped ${skipped.length} test${skipped.length === 1 ? "" : "s"} (set REINS_CI=1 to make a missing requirement fail):\n${lines.join("\n")}\n`);
  }
}

module.exports = SkippedReporter;
