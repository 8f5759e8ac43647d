/**
 * The scripts `reins-replay` serves: a JSON array of outputs (ReAct text strings, tool-calling
 * turns `{ "toolCalls": [{ "name", "arguments" }], "content"? }` and/or scripted HTTP errors
 * `{ "httpError": { "status", "body" } }`), or the model outputs
 * of one recorded trajectory (the format of Reins' `fixtures/trajectories/trajectories.json`: each
 * turn's `llm_output`, in order).
 */
import { readFileSync } from "node:fs";
import { ReplayOptionsError } from "./errors";
import { isScriptedHttpError, type ScriptedHttpError, type ScriptedToolTurn } from "./replay-server";

/** One output of a JSON script. */
export type JsonScriptedOutput = string | ScriptedToolTurn | ScriptedHttpError;

function isToolCall(value: unknown): boolean {
  const call = value as { name?: unknown; arguments?: unknown; id?: unknown } | null;
  return typeof call === "object" && call !== null && typeof call.name === "string" && typeof call.arguments === "string" && (call.id === undefined || typeof call.id === "string");
}

/**
 * Checks a parsed JSON script.
 * @param field - the option or file it came from, for the error
 * @throws {ReplayOptionsError} naming the first bad entry
 */
export function parseScript(field: string, parsed: unknown): JsonScriptedOutput[] {
  if (!Array.isArray(parsed)) throw new ReplayOptionsError(field, "must be a JSON array of outputs (strings, { toolCalls, content? } turns or { httpError: { status, body } } errors)");
  parsed.forEach((item: unknown, index) => {
    if (typeof item === "string" || isScriptedHttpError(item)) return;
    const turn = item as { toolCalls?: unknown; content?: unknown } | null;
    const ok = typeof turn === "object" && turn !== null && Array.isArray(turn.toolCalls) && turn.toolCalls.every(isToolCall) && (turn.content === undefined || typeof turn.content === "string");
    if (!ok) throw new ReplayOptionsError(`${field}[${index}]`, 'must be a string or { "toolCalls": [{ "name": string, "arguments": string }], "content"?: string } or { "httpError": { "status": 400-599, "body": … } }');
  });
  return parsed as JsonScriptedOutput[];
}

/** Parses a JSON script given as text. @throws {ReplayOptionsError} */
export function parseScriptText(field: string, text: string): JsonScriptedOutput[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ReplayOptionsError(field, `is not JSON: ${(error as Error).message}`);
  }
  return parseScript(field, parsed);
}

function readText(field: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new ReplayOptionsError(field, `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Reads a JSON script file. @throws {ReplayOptionsError} */
export function readScriptFile(file: string): JsonScriptedOutput[] {
  return parseScriptText(`--outputs-file ${file}`, readText("--outputs-file", file));
}

/** The outputs of one recorded trajectory, and what was left out. */
export interface TrajectoryScript {
  readonly id: string;
  readonly outputs: string[];
  /** Turns without a recorded `llm_output` (left out of the script). */
  readonly missing: number;
  /** How many trajectories the file holds. */
  readonly available: number;
}

/**
 * Reads the model outputs of one trajectory from a file holding one trajectory object or an array
 * of them: the one with `id`, or the first.
 * @throws {ReplayOptionsError} when the file is unreadable, not trajectories, or has no such id
 */
export function readTrajectory(file: string, id?: string): TrajectoryScript {
  const field = `--trajectory ${file}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readText("--trajectory", file));
  } catch (error) {
    if (error instanceof ReplayOptionsError) throw error;
    throw new ReplayOptionsError(field, `is not JSON: ${(error as Error).message}`);
  }
  const all = (Array.isArray(parsed) ? parsed : [parsed]) as Array<{ id?: unknown; turns?: unknown }>;
  const valid = all.filter((item) => typeof item === "object" && item !== null && typeof item.id === "string" && Array.isArray(item.turns));
  if (valid.length === 0) throw new ReplayOptionsError(field, "holds no trajectory ({ id, turns: [{ llm_output }] })");
  const chosen = id === undefined ? valid[0] : valid.find((item) => item.id === id);
  if (chosen === undefined) throw new ReplayOptionsError("--id", `no trajectory "${id}" in ${file} (${valid.length} there, e.g. ${valid.slice(0, 3).map((item) => `"${String(item.id)}"`).join(", ")})`);
  const turns = chosen.turns as Array<{ llm_output?: unknown }>;
  const outputs = turns.map((turn) => turn?.llm_output).filter((text): text is string => typeof text === "string");
  if (outputs.length === 0) throw new ReplayOptionsError(field, `trajectory "${String(chosen.id)}" has no recorded llm_output`);
  return { id: String(chosen.id), outputs, missing: turns.length - outputs.length, available: valid.length };
}
