import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describeRequiring, postgresBinDirs, REPO_ROOT, startPostgres } from "@reins/testing";
import { ledgerOf } from "./__fixtures__/durable-agent";

/**
 * Runs paused (approval interrupt) or crashed in one Node process and resumed in another, on real
 * checkpointers: SQLite (`@langchain/langgraph-checkpoint-sqlite`) and Postgres
 * (`@langchain/langgraph-checkpoint-postgres` against Debian's `postgresql`). Every phase is a new
 * process (`__fixtures__/durable-run.ts` under tsx), so nothing but the checkpoint carries the
 * run. The model never answers: only the call cap (3) and the step budget (8) can end the run.
 */

// Every phase is a Node process (tsx start-up included): seconds each on a shared machine.
jest.setTimeout(240_000);

const TSX = path.join(REPO_ROOT, "node_modules/.bin/tsx");
const PHASE = path.join(__dirname, "__fixtures__/durable-run.ts");
const CAP = 3;
const MAX_STEPS = 8;

interface PhaseResult {
  readonly status: number | null;
  readonly stopReason?: string | null;
  readonly interrupted?: boolean;
  readonly modelCalls?: number | null;
  readonly error?: string;
}

function phase(saver: "sqlite" | "postgres", connection: string, ledgerPath: string, threadId: string, name: "start" | "approve" | "continue", extra: { approval?: boolean; crashAtExecution?: number }): PhaseResult {
  const input = { saver, connection, ledgerPath, threadId, phase: name, ...extra };
  const child = spawnSync(TSX, [PHASE], { cwd: REPO_ROOT, encoding: "utf8", timeout: 120_000, env: { ...process.env, REINS_DURABLE_PHASE: JSON.stringify(input) } });
  if (child.status !== 0 && child.status !== 17) throw new Error(`phase ${name} exited ${child.status}: ${child.stderr}`);
  const line = child.stdout.trim().split("\n").at(-1);
  return { status: child.status, ...(line === undefined || line === "" ? {} : (JSON.parse(line) as object)) };
}

function durableSuite(saver: "sqlite" | "postgres", connectionOf: (directory: string) => string): void {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(path.join(tmpdir(), `reins-durable-${saver}-`));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("interrupt then resume, each approval in a new process: stops within maxCallsPerRun and maxSteps with a stopReason", () => {
    const ledger = path.join(directory, "ledger.txt");
    const connection = connectionOf(directory);
    const thread = `approve-${path.basename(directory)}`;
    let result = phase(saver, connection, ledger, thread, "start", { approval: true });
    const results = [result];
    while (result.stopReason === null && result.interrupted === true && results.length < 20) {
      result = phase(saver, connection, ledger, thread, "approve", { approval: true });
      results.push(result);
    }
    expect(results.map((each) => each.error).filter((error) => error !== undefined)).toEqual([]);
    expect(result.stopReason).toBe("max_steps");
    expect(result.modelCalls).toBeLessThanOrEqual(MAX_STEPS);
    // Executions of the side effect, across all the processes: the cap held.
    expect(ledgerOf(ledger)).toEqual([1, 2, 3]);
    expect(results.length).toBeGreaterThan(CAP);
  });

  it("crash then invoke(null) in a new process: stops within maxCallsPerRun and maxSteps with a stopReason, never GraphRecursionError", () => {
    const ledger = path.join(directory, "ledger.txt");
    const connection = connectionOf(directory);
    const thread = `crash-${path.basename(directory)}`;
    const crashed = phase(saver, connection, ledger, thread, "start", { crashAtExecution: 2 });
    expect(crashed.status).toBe(17);
    const resumed = phase(saver, connection, ledger, thread, "continue", {});
    expect(resumed.error).toBeUndefined();
    expect(resumed.stopReason).toBe("max_steps");
    expect(resumed.modelCalls).toBeLessThanOrEqual(MAX_STEPS);
    // The call in flight at the crash runs again on resume (LangGraph re-runs an unfinished task):
    // at-least-once for that one call, and no more distinct charges than the cap.
    const executions = ledgerOf(ledger);
    expect(new Set(executions).size).toBe(CAP);
    expect(executions).toEqual([1, 2, 2, 3]);
  });
}

describe("durable runs on SQLite (@langchain/langgraph-checkpoint-sqlite), resumed in a second Node process", () => {
  durableSuite("sqlite", (directory) => path.join(directory, "checkpoints.db"));
});

describeRequiring(
  [
    { program: "initdb", alsoIn: postgresBinDirs() },
    { program: "pg_ctl", alsoIn: postgresBinDirs() },
  ],
  "durable runs on Postgres (@langchain/langgraph-checkpoint-postgres), resumed in a second Node process",
  () => {
    let server: { url: string; stop: () => void } | undefined;
    beforeAll(async () => {
      server = await startPostgres();
    }, 120_000);
    afterAll(() => server?.stop());
    durableSuite("postgres", () => {
      if (server === undefined) throw new Error("the Postgres server did not start");
      return server.url;
    });
  },
);
