/**
 * The one grammar: every shape the ReAct parser can read as an action or a finish, declared once.
 * `@reins/react-output-parser` reads model text through these lists; `neutralizeUntrustedText`
 * (and so the observation cleaner and the ToolExecutor) is derived from them, so a shape cannot
 * be readable without being neutralised in tool output. Adding a shape here covers both.
 *
 * Shapes:
 * - **labels**: `Thought:`/`Action:`/`Action Input:`/`Observation:`/`Final Answer:`/`Question:`
 *   in the forms `matchReActLabel` accepts, with the agent's custom words and every language set
 *   of {@link REACT_LABEL_LANGUAGE_SETS} (the neutraliser always covers them all);
 * - **JSON action blobs**: an object with a name key ({@link ACTION_BLOB_NAME_KEYS}) next to an
 *   input key ({@link ACTION_BLOB_INPUT_KEYS}), or whose name is a finish ({@link FINISH_NAMES});
 * - **tags** ({@link REACT_TAGS}): LangChain's XML agent (`<tool>`, `<tool_input>`,
 *   `<final_answer>`), tool-call families (Hermes `<tool_call>`, Qwen `<function=…>`, `<invoke
 *   name=…>`, `<tool_use>`…), reasoning blocks (`<think>`…), also `◁think▷`;
 * - **special tokens**: any `<|name|>` token (harmony `<|channel|>`, `<|call|>`, ChatML
 *   `<|im_start|>`, Llama `<|eot_id|>`) and harmony's `to=functions.NAME` recipient;
 * - **paper style**: `Tool[input]` / `tool(input)` lines naming one of the agent's tools or a
 *   finish (`Finish[answer]`), as in the ReAct paper (Yao et al., 2022).
 */
import { createReActLabelSet, DEFAULT_REACT_LABELS, type ReActLabel, type ReActLabelSet } from "./label-grammar";

/** Keys a JSON action blob names its tool with (`{"action": …}`, `{"name": …}`). */
export const ACTION_BLOB_NAME_KEYS: readonly string[] = Object.freeze(["action", "tool", "tool_name", "name", "function"]);

/** Keys a JSON action blob carries its input in (`{"action_input": …}`, `{"arguments": …}`). */
export const ACTION_BLOB_INPUT_KEYS: readonly string[] = Object.freeze([
  "action_input",
  "args",
  "arguments",
  "tool_input",
  "input",
  "parameters",
  "params",
]);

/**
 * Keys that wrap one action blob (`{"tool_call": {…}}`). The blob inside is neutralised through its
 * own name key; the list is declared here for the parser to read such wrappers (issue 10).
 */
export const ACTION_BLOB_WRAPPER_KEYS: readonly string[] = Object.freeze(["tool_call", "tool_calls", "function_call", "action"]);

/**
 * Names that mean "finish" as a blob's tool or a paper-style call (`{"action": "Final Answer"}`,
 * `Finish[answer]`), compared after lower-casing and removing `_`, `-` and spaces.
 */
export const FINISH_NAMES: readonly string[] = Object.freeze(["finalanswer", "finish", "final"]);

/** What a tag means to the parser. */
export type ReActTagFamily = "xml_agent" | "tool_call" | "reasoning";

/** A tag the parser reads (or will read), written `<name>`, `<name attr=…>` or `<name=…>`. */
export interface ReActTagShape {
  readonly name: string;
  readonly family: ReActTagFamily;
}

/** Reasoning-block tags: never acted on, and what stands inside is removed by the parser. */
export const REASONING_TAG_NAMES: readonly string[] = Object.freeze(["think", "thinking", "reasoning", "reflection"]);

/** LangChain's XML agent format (`createXmlAgent`): `<tool>name</tool><tool_input>…` and `<final_answer>…`. */
export const XML_AGENT_TAG_NAMES = Object.freeze({ tool: "tool", toolInput: "tool_input", finalAnswer: "final_answer" });

/** Tool-call tag families local models write as text (Hermes, Qwen, Anthropic-style XML, generic). */
export const TOOL_CALL_TAG_NAMES: readonly string[] = Object.freeze([
  "tool_call",
  "tool_calls",
  "function",
  "function_call",
  "function_calls",
  "parameter",
  "tools",
  "tool_use",
  "tool_result",
  "tool_response",
  "action",
  "action_input",
  "invoke",
  "answer",
  "final",
]);

/** Every tag of the grammar, with its family. */
export const REACT_TAGS: readonly ReActTagShape[] = Object.freeze([
  ...[XML_AGENT_TAG_NAMES.tool, XML_AGENT_TAG_NAMES.toolInput, XML_AGENT_TAG_NAMES.finalAnswer, "observation"].map((name) => Object.freeze({ name, family: "xml_agent" as const })),
  ...TOOL_CALL_TAG_NAMES.map((name) => Object.freeze({ name, family: "tool_call" as const })),
  ...REASONING_TAG_NAMES.map((name) => Object.freeze({ name, family: "reasoning" as const })),
]);

/** Reasoning delimiters that are not `<…>` tags (Kimi's `◁think▷`), as open and close marks. */
export const REASONING_MARKS: readonly string[] = Object.freeze(["\u25c1think\u25b7", "\u25c1/think\u25b7"]);

/**
 * Label words of other languages, as translated ReAct prompts write them. The neutraliser covers
 * all of them whatever the parser is configured for; the parser reads them only when given as
 * `labels`.
 */
export const REACT_LABEL_LANGUAGE_SETS: Readonly<Record<string, Partial<Record<ReActLabel, readonly string[]>>>> = Object.freeze({
  zh: Object.freeze({ thought: ["思考", "想法"], action: ["行动", "动作"], action_input: ["行动输入", "动作输入"], observation: ["观察"], final_answer: ["最终答案", "最终回答"], question: ["问题"] }),
  ja: Object.freeze({ thought: ["思考", "考え"], action: ["行動", "アクション"], action_input: ["行動入力", "アクション入力"], observation: ["観察"], final_answer: ["最終回答", "最終的な答え"], question: ["質問"] }),
  de: Object.freeze({ thought: ["gedanke"], action: ["aktion"], action_input: ["aktionseingabe", "aktion eingabe"], observation: ["beobachtung"], final_answer: ["endgültige antwort", "finale antwort"], question: ["frage"] }),
  fr: Object.freeze({ thought: ["pensée", "réflexion"], action: ["action"], action_input: ["entrée de l'action", "entrée d'action"], observation: ["observation"], final_answer: ["réponse finale"], question: ["question"] }),
  es: Object.freeze({ thought: ["pensamiento"], action: ["acción"], action_input: ["entrada de acción", "entrada de la acción"], observation: ["observación"], final_answer: ["respuesta final"], question: ["pregunta"] }),
});

/** The grammar of one agent: its labels and tool names over the declared shapes. */
export interface ReActGrammar {
  /** The labels the parser reads (default, custom). */
  readonly labels: ReActLabelSet;
  /** The labels neutralised: `labels` plus every language set. */
  readonly neutralizedLabels: ReActLabelSet;
  /** The agent's tool names (paper-style calls of them are neutralised). */
  readonly toolNames: readonly string[];
  /** `toolNames` and {@link FINISH_NAMES}, compacted (lower case, no `_`, `-`, space). */
  readonly callNames: ReadonlySet<string>;
}

/** Options of {@link createReActGrammar}. */
export interface ReActGrammarOptions {
  /** The parser's label set. @default DEFAULT_REACT_LABELS */
  readonly labels?: ReActLabelSet;
  /** The agent's tool names. @default [] */
  readonly toolNames?: readonly string[];
}

/** Lower case without `_`, `-`, `.`, spaces and markdown: how tool and finish names are compared. */
export function compactCallName(name: string): string {
  let result = "";
  for (const character of name.toLowerCase()) {
    if (character === "_" || character === "-" || character === " " || character === "." || character === "`" || character === "*" || character === "\t") continue;
    result += character;
  }
  return result;
}

function mergeLabelSets(base: ReActLabelSet): ReActLabelSet {
  const merged: Partial<Record<ReActLabel, string[]>> = {};
  for (const label of Object.keys(DEFAULT_REACT_LABELS) as ReActLabel[]) merged[label] = [...base[label]];
  for (const language of Object.values(REACT_LABEL_LANGUAGE_SETS)) {
    for (const [label, words] of Object.entries(language) as [ReActLabel, readonly string[]][]) merged[label]?.push(...words);
  }
  return createReActLabelSet(merged, true);
}

const neutralizedLabelCache = new WeakMap<ReActLabelSet, ReActLabelSet>();

/**
 * The grammar of one agent.
 *
 * @param options - the parser's labels and the agent's tool names
 * @returns a frozen grammar; label sets are compiled once per label set object
 * @example
 * ```ts
 * const grammar = createReActGrammar({ labels: createReActLabelSet({ final_answer: ["最终答案"] }), toolNames: ["delete_all"] });
 * neutralizeUntrustedText("delete_all[everything]", grammar).text; // "| «delete_all»[everything]"
 * ```
 */
export function createReActGrammar(options: ReActGrammarOptions = {}): ReActGrammar {
  const labels = options.labels ?? DEFAULT_REACT_LABELS;
  let neutralizedLabels = neutralizedLabelCache.get(labels);
  if (neutralizedLabels === undefined) {
    neutralizedLabels = mergeLabelSets(labels);
    neutralizedLabelCache.set(labels, neutralizedLabels);
  }
  const toolNames = Object.freeze([...(options.toolNames ?? [])]);
  const callNames = new Set([...FINISH_NAMES, ...toolNames.map(compactCallName).filter((name) => name.length > 0)]);
  return Object.freeze({ labels, neutralizedLabels, toolNames, callNames });
}

/** The grammar with the default labels and no tool names. */
export const DEFAULT_REACT_GRAMMAR: ReActGrammar = createReActGrammar();
