/**
 * The last step of every observation the executor returns: `@reins/core`'s
 * `neutralizeUntrustedText` over the agent's labels and the names of the wrapped tools. Tool
 * results, thrown messages, fallback values, dry-run previews and loop notes all pass here, so no
 * string from outside the model can act as an action or a finish (issue 9, "one grammar").
 */
import { createReActGrammar, neutralizeUntrustedText, type ReActGrammar, type ReActLabelSet } from "@reins/core";

/** Neutralises observations with one agent's grammar; learns tool names as tools are wrapped. */
export class UntrustedObservationGuard {
  private readonly toolNames = new Set<string>();
  private grammar: ReActGrammar | undefined;

  /** @param labels - the parser's label set */
  constructor(private readonly labels: ReActLabelSet) {}

  /** Adds a wrapped tool's name (paper-style calls of it are neutralised from now on). */
  addToolName(name: string): void {
    if (this.toolNames.has(name)) return;
    this.toolNames.add(name);
    this.grammar = undefined;
  }

  /** The observation with every shape of the grammar neutralised; never empty when given text. */
  neutralize(observation: string): string {
    this.grammar ??= createReActGrammar({ labels: this.labels, toolNames: [...this.toolNames] });
    return neutralizeUntrustedText(observation, this.grammar).text;
  }
}
