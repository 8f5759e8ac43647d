/**
 * @reins/core: the shared pieces every package builds on — the ReAct label grammar, the action
 * fingerprint the loop detector compares, and the per-run context store.
 *
 *   npx tsx examples/src/usage/run.ts core
 */
import { actionKey, matchReActLabel, RunContextStore } from "@reins/core";
import { printToStdout, type Print } from "./print";

/** What the example computed. */
export interface CoreExampleResult {
  readonly labels: ReadonlyArray<{ line: string; label?: string; value?: string }>;
  readonly sameAction: boolean;
  readonly rootOfToolRun: string | undefined;
}

const LINES = ["**Action 2:** search", "ACTION INPUT： weather in Paris", "Final Answer: 42", "The action was fine."];

/** Reads labels, compares two actions and follows a tool run to its agent run. */
export async function main(print: Print = printToStdout): Promise<CoreExampleResult> {
  const labels = LINES.map((line) => {
    const match = matchReActLabel(line);
    print(`${JSON.stringify(line)} → ${match === undefined ? "no label" : `${match.label} ${JSON.stringify(match.value.trim())}`}`);
    return { line, label: match?.label, value: match?.value.trim() };
  });

  // Key order and whitespace do not make two actions different.
  const sameAction = actionKey("search", '{"q": "paris", "lang": "en"}') === actionKey("search", '{ "lang":"en","q":"paris" }');
  print(`same action despite key order and spacing: ${sameAction}`);

  const store = new RunContextStore();
  store.start("agent-run");
  store.link("llm-run", "agent-run");
  store.link("tool-run", "llm-run");
  const rootOfToolRun = store.rootOf("tool-run");
  print(`tool-run belongs to: ${rootOfToolRun}`);
  store.release("agent-run");
  return { labels, sameAction, rootOfToolRun };
}
