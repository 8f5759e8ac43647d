import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO_ROOT } from "@reins/testing";
import { ledgerOf } from "./__fixtures__/durable-agent";
import type { TamperingName } from "./__fixtures__/checkpoint-tampering";

/**
 * Signed guard state across processes (issue 33): a run paused for approval in one Node process
 * on SQLite (`@langchain/langgraph-checkpoint-sqlite`), its checkpoint edited through the saver's
 * API by a second process, and resumed by a third. Every phase is `__fixtures__/durable-run.ts`
 * under tsx, so only the checkpoint carries the run.
 */

// Every phase is a Node process (tsx start-up included): seconds each on a shared machine.
jest.setTimeout(300_000);

const TSX = path.join(REPO_ROOT, "node_modules/.bin/tsx");
const PHASE = path.join(__dirname, "__fixtures__/durable-run.ts");
const KEY = "s".repeat(48);

interface PhaseResult {
  readonly stopReason?: string | null;
  readonly interrupted?: boolean;
  readonly error?: string;
}

function phase(connection: string, ledgerPath: string, threadId: string, name: "start" | "approve" | "tamper", extra: { tampering?: TamperingName } = {}): PhaseResult {
  const input = { saver: "sqlite", connection, ledgerPath, threadId, phase: name, approval: true, stateKey: KEY, ...extra };
  const child = spawnSync(TSX, [PHASE], { cwd: REPO_ROOT, encoding: "utf8", timeout: 120_000, env: { ...process.env, REINS_DURABLE_PHASE: JSON.stringify(input) } });
  if (child.status !== 0) throw new Error(`phase ${name} exited ${child.status}: ${child.stderr}`);
  const line = child.stdout.trim().split("\n").at(-1);
  return line === undefined || line === "" ? {} : (JSON.parse(line) as PhaseResult);
}

describe("signed guard state on SQLite, tampered and resumed in other Node processes", () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(path.join(tmpdir(), "reins-signed-sqlite-"));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it.each(["stripOutcomes", "moveInputMessageId", "clearSteps", "resetModelCalls", "removeRecord"] as TamperingName[])(
    "%s: refused on adoption with stopReason state_tampered, no further execution",
    (tampering) => {
      const connection = path.join(directory, "checkpoints.db");
      const ledger = path.join(directory, "ledger.txt");
      const thread = `tamper-${tampering}`;
      expect(phase(connection, ledger, thread, "start").interrupted).toBe(true);
      expect(phase(connection, ledger, thread, "approve").interrupted).toBe(true);
      expect(phase(connection, ledger, thread, "approve").interrupted).toBe(true);
      expect(ledgerOf(ledger)).toEqual([1, 2]);
      phase(connection, ledger, thread, "tamper", { tampering });
      const resumed = phase(connection, ledger, thread, "approve");
      expect(resumed.error).toBeUndefined();
      expect(resumed.stopReason).toBe("state_tampered");
      expect(ledgerOf(ledger)).toEqual([1, 2]);
    },
  );
});
