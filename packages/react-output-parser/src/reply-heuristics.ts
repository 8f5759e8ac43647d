/** Heuristics on unlabelled text: "no tool needed", a plan, a cut-off sentence. */

const NO_TOOL_NEEDED_PHRASES = [
  "no need to",
  "doesn't require",
  "does not require",
  "don't require",
  "do not require",
  "no lookup",
  "without looking",
  "already know",
  "know the answer",
  "from memory",
  "common knowledge",
  "general knowledge",
  "just a greeting",
  "simple greeting",
  "small talk",
  "i can reply",
  "i can respond",
  "know the final answer",
  "i can now answer",
  "i can answer without",
  "do i need to use a tool? no",
  "no tool is needed",
  "no tool needed",
  "no tools are needed",
  "no tools needed",
  "doesn't need any",
  "doesn't need a",
  "does not need any",
  "does not need a",
  "don't need any",
  "don't need a",
  "do not need any",
  "do not need a",
  "don't need to use",
  "do not need to use",
  "no need to use",
  "no need for a tool",
  "no need to look",
  "without using a tool",
  "without any tool",
  "without a tool",
  "answer directly",
  "reply directly",
  "respond directly",
  "i'll just",
  "i will just",
  "i can just",
  // The same said in other languages models answer in (the phrase, lower-cased).
  "kein werkzeug",
  "keine werkzeuge",
  "kein tool",
  "keine tools",
  "ohne werkzeug",
  "ohne tool",
  "direkt antworten",
  "pas besoin d'outil",
  "pas besoin d'un outil",
  "aucun outil",
  "sans outil",
  "répondre directement",
  "ninguna herramienta",
  "sin herramienta",
  "sin usar herramientas",
  "responder directamente",
  "nenhuma ferramenta",
  "sem ferramenta",
  "nessuno strumento",
  "senza strumenti",
  "不需要工具",
  "不需要使用工具",
  "不需要调用工具",
  "无需工具",
  "无需使用工具",
  "无需调用工具",
  "不用工具",
  "直接回答",
  "直接回复",
  "ツールは不要",
  "ツールは必要ありません",
  "ツールを使う必要はありません",
  "ツールを使う必要はない",
  "инструмент не нужен",
  "инструменты не нужны",
  "без инструментов",
  "도구가 필요 없",
  "도구 없이",
];

/** Whether a Thought says no tool is needed (then the text after it is the reply). */
export function saysNoToolNeeded(thought: string): boolean {
  const lower = thought.slice(0, HEURISTIC_WINDOW_CHARS).toLowerCase().replace(/\u2019/g, "'");
  return NO_TOOL_NEEDED_PHRASES.some((phrase) => lower.includes(phrase));
}

const PLAN_PREFIXES = ["plan:", "step 1", "steps:", "next steps", "next step:", "here is my plan", "here's my plan", "here is the plan", "the plan is", "action plan", "plan of action", "first,", "first i", "to answer this", "to do this", "next, i", "next i", "my plan"];
const PLAN_SUBJECTS = ["i will ", "i'll ", "i need to ", "i should ", "i must ", "i am going to ", "i'm going to ", "let me ", "we need to ", "we should ", "i have to "];
/** Heuristics read the start of a reply only: a plan or a "no tool needed" says so early. */
const HEURISTIC_WINDOW_CHARS = 2_000;
const PLAN_VERBS = ["use", "call", "search", "look", "check", "find", "fetch", "query", "run", "get", "calculate", "compute", "retrieve", "browse", "open", "invoke", "first", "start by"];
const PLAN_PHRASES = PLAN_SUBJECTS.flatMap((subject) => PLAN_VERBS.map((verb) => `${subject}${verb}`));

/** Whether unlabelled text reads as the model's plan rather than a reply to the user. */
export function looksLikePlan(text: string): boolean {
  const lower = text.slice(0, HEURISTIC_WINDOW_CHARS).trim().toLowerCase().replace(/\u2019/g, "'");
  return PLAN_PREFIXES.some((prefix) => lower.startsWith(prefix)) || PLAN_PHRASES.some((phrase) => lower.includes(phrase));
}

/** Words a sentence does not end on: text ending with one was cut off. */
const DANGLING_WORDS = new Set(["to", "the", "a", "an", "of", "and", "or", "with", "for", "in", "on", "at", "by", "from", "that", "is", "are", "was", "will", "would", "should", "need", "my", "your", "their", "this", "these", "if", "because", "but", "so", "then", "as", "into", "than"]);

/**
 * Whether text stops mid-sentence: it ends with a comma, dash, colon or opening bracket, or with a
 * word no sentence ends on ("… I will first need to"). A reply ending in a name or a number
 * ("The capital is Paris") is complete.
 */
export function looksTruncated(text: string): boolean {
  const trimmed = text.trimEnd();
  if (trimmed.length === 0) return false;
  const last = trimmed[trimmed.length - 1];
  if (last === "," || last === "-" || last === ":" || last === "(" || last === "\uff0c") return true;
  let start = trimmed.length;
  while (start > 0 && start > trimmed.length - 20 && /[A-Za-z]/.test(trimmed[start - 1])) start -= 1;
  return DANGLING_WORDS.has(trimmed.slice(start).toLowerCase());
}

