import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import { DEFAULT_REACT_LABELS, matchReActLabel, type ReActLabelSet } from "@reins/core";
import type { HardenedReActOutputParser, ParseReport } from "@reins/react-output-parser";

/** True for an `AgentFinish` (it has `returnValues`). */
export function isAgentFinish(result: AgentAction | AgentFinish): result is AgentFinish {
  return "returnValues" in result;
}

const CONTINUATION_REPAIRS = new Set(["hallucinated_observation_cut", "new_question_cut"]);

/**
 * The reply up to the continuation the parser cut (a model-written `Observation:` or `Question:`
 * line after the step began), so the scratchpad, built from `action.log`, never shows the model an
 * observation it invented. Only called when the parser reported such a cut.
 */
export function trimContinuation(text: string, labels: ReActLabelSet = DEFAULT_REACT_LABELS): string {
  let offset = 0;
  let stepStarted = false;
  for (const line of text.split("\n")) {
    const match = matchReActLabel(line, labels);
    if (match !== undefined && (match.label === "observation" || match.label === "question")) {
      if (stepStarted) return text.slice(0, offset).trimEnd();
    } else if (line.trim().length > 0) {
      stepStarted = true;
    }
    offset += line.length + 1;
  }
  return text;
}

/** What one planning step's parse gave: the step, or the rejection to throw, with the repairs. */
export type ReActStepResult =
  | { readonly ok: true; readonly step: AgentAction | AgentFinish; readonly repairs: readonly string[] }
  | { readonly ok: false; readonly error: Extract<ParseReport, { ok: false }>["error"]; readonly repairs: readonly string[] };

/**
 * The last stage of one planning call: the hardened parser, told how many observations the run
 * has seen (for the `requireObservationBeforeFinalAnswer` validator), marking a normal finish with
 * `stopReason: "final_answer"`, and keeping an invented continuation out of the action's `log`.
 *
 * @param parser - the agent's parser
 * @param labels - the labels the parser reads (for the continuation cut)
 * @param text - the model's reply
 * @param observationCount - observations of real tools the run has seen
 * @param runId - the run's id for the parser's events (a recorder groups them under the run)
 */
export function parseReActStep(
  parser: HardenedReActOutputParser,
  labels: ReActLabelSet,
  text: string,
  observationCount: number,
  runId?: string,
): ReActStepResult {
  const report = parser.parseDetailed(text, { observationCount, ...(runId !== undefined ? { runId } : {}) });
  if (!report.ok) return { ok: false, error: report.error, repairs: report.repairs };
  const { result, repairs } = report;
  if (isAgentFinish(result)) {
    return { ok: true, step: { ...result, returnValues: { ...result.returnValues, stopReason: "final_answer" } }, repairs };
  }
  if (repairs.some((repair) => CONTINUATION_REPAIRS.has(repair))) {
    return { ok: true, step: { ...result, log: trimContinuation(result.log, labels) }, repairs };
  }
  return { ok: true, step: result, repairs };
}
