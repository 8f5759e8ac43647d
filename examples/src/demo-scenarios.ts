/**
 * The demo's scripted scenarios: one fault kind each (what real models write, how real tools
 * fail, how real runs loop), the model replies the replay server plays, and what the run must
 * end with.
 */
import type { AgentStep } from "@langchain/core/agents";
import type { ReactAgentLoopControlOptions } from "@reins/react-agent";
import type { ToolPolicy, ToolResultStore } from "@reins/tool-executor";
import type { ScriptedHttpService, SentEmail } from "./demo-tools";
import type { ReplayRequestView, ScriptedOutput } from "@reins/replay";

/** What the scenarios' checks can look at besides the run's result. */
export interface DemoEnvironment {
  readonly outbox: readonly SentEmail[];
  readonly parcelService: { readonly calls: number };
  readonly forecastService: ScriptedHttpService;
}

/** How one scenario's run ended. */
export interface ScenarioOutcome {
  readonly output: string;
  readonly stopReason: string | undefined;
  readonly steps: readonly AgentStep[];
  readonly modelCalls: number;
  /**
   * Tool calls the ToolExecutor refused because loop control was stopping the run (their steps
   * are in `steps`, but no tool ran).
   */
  readonly refusedCalls: number;
  readonly error?: Error;
}

/** One scripted scenario. */
export interface DemoScenario {
  readonly id: string;
  /** The fault kind it exercises, one line. */
  readonly fault: string;
  readonly question: string;
  /** The model's replies, in order (ignored when running against a live model). */
  readonly script: readonly ScriptedOutput[];
  /** Loop-control options for this scenario's agent (merged over the demo's). */
  readonly loopControl?: ReactAgentLoopControlOptions;
  /** Runs before the scenario (e.g. scripts the flaky service). */
  readonly setUp?: (environment: DemoEnvironment) => void;
  /** The expectations; returns what did not hold (empty when the scenario reached its outcome). */
  readonly check: (outcome: ScenarioOutcome, environment: DemoEnvironment) => string[];
}

/** The demo's tool policies (the ToolExecutor's `policies`). */
export const DEMO_TOOL_POLICIES: Readonly<Record<string, ToolPolicy>> = Object.freeze({
  // A read: safe to run again after a timeout (tools are not idempotent unless declared).
  stock_quote: { timeoutMs: 200, idempotent: true, retry: { maxAttempts: 2, initialDelayMs: 20, maxDelayMs: 50 } },
  weather_forecast: { timeoutMs: 2_000, retry: { maxAttempts: 3, initialDelayMs: 20, maxDelayMs: 100 } },
  exchange_rate_live: { retry: false },
  parcel_status: {
    retry: false,
    circuitBreaker: { failureThreshold: 2, halfOpenAfterMs: 60_000 },
    fallback: { message: "The tracking service is degraded; last known status (yesterday): in transit, due in 2 days." },
  },
  send_email: { sideEffects: true },
});

/**
 * The demo's policies with a shared result store (the demo passes a `RedisResultStore` when
 * `REDIS_URL` is set): country facts are the same for every user, so they are cached globally.
 */
export function demoToolPolicies(store?: ToolResultStore): Readonly<Record<string, ToolPolicy>> {
  if (store === undefined) return DEMO_TOOL_POLICIES;
  return { ...DEMO_TOOL_POLICIES, country_lookup: { cache: { store, scope: "global", ttlMs: 3_600_000 } } };
}

/** The text of the last `Observation:` in the prompt a request carries. */
export function lastObservation(request: ReplayRequestView): string {
  const last = request.messages[request.messages.length - 1];
  const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
  const index = text.lastIndexOf("Observation: ");
  if (index === -1) return "";
  const rest = text.slice(index + "Observation: ".length);
  const end = rest.indexOf("\nThought:");
  return (end === -1 ? rest : rest.slice(0, end)).trim();
}

function tools(outcome: ScenarioOutcome): string[] {
  return outcome.steps.map((step) => step.action.tool);
}

function observation(outcome: ScenarioOutcome, index: number): string {
  const value = outcome.steps[index]?.observation;
  return typeof value === "string" ? value : JSON.stringify(value ?? "");
}

/** Collects failed expectations. */
class Expectations {
  readonly failures: string[] = [];

  constructor(private readonly outcome: ScenarioOutcome) {
    if (outcome.error !== undefined) this.failures.push(`run threw ${outcome.error.name}: ${outcome.error.message}`);
  }

  stopReason(reason: string): this {
    if (this.outcome.stopReason !== reason) this.failures.push(`stopReason ${String(this.outcome.stopReason)}, expected ${reason}`);
    return this;
  }

  outputIncludes(...parts: string[]): this {
    for (const part of parts) {
      if (!this.outcome.output.includes(part)) this.failures.push(`output lacks "${part}"`);
    }
    return this;
  }

  outputExcludes(part: string): this {
    if (this.outcome.output.includes(part)) this.failures.push(`output contains "${part}"`);
    return this;
  }

  tools(expected: string[]): this {
    const actual = tools(this.outcome);
    if (actual.join(",") !== expected.join(",")) this.failures.push(`tools [${actual.join(", ")}], expected [${expected.join(", ")}]`);
    return this;
  }

  observation(index: number, pattern: RegExp, what: string): this {
    if (!pattern.test(observation(this.outcome, index))) this.failures.push(`observation ${index + 1} does not show ${what}`);
    return this;
  }

  that(condition: boolean, failure: string): this {
    if (!condition) this.failures.push(failure);
    return this;
  }
}

const expectThat = (outcome: ScenarioOutcome): Expectations => new Expectations(outcome);

const ESCAPE_HATCH = 'reply "human"';

/** Every scenario the demo runs, in order. */
export const DEMO_SCENARIOS: readonly DemoScenario[] = Object.freeze([
  {
    id: "markdown-labels",
    fault: "labels in markdown bold (**Action:**)",
    question: "What is the capital of Japan?",
    script: [
      "**Thought:** I should look Japan up.\n**Action:** country_lookup\n**Action Input:** Japan",
      "**Thought:** I now know the final answer.\n**Final Answer:** The capital of Japan is Tokyo.",
    ],
    check: (outcome) =>
      expectThat(outcome).stopReason("final_answer").tools(["country_lookup"]).observation(0, /Tokyo/, "Tokyo").outputIncludes("Tokyo").failures,
  },
  {
    id: "json-blob-action",
    fault: "a fenced JSON action blob instead of Action/Action Input",
    question: "What is 2^10 + sqrt(16)?",
    script: [
      '```json\n{"action": "calculator", "action_input": "2^10 + sqrt(16)"}\n```',
      (request) => `Thought: I now know the final answer\nFinal Answer: 2^10 + sqrt(16) = ${lastObservation(request)}.`,
    ],
    check: (outcome) =>
      expectThat(outcome).stopReason("final_answer").tools(["calculator"]).observation(0, /^1028$/, "1028").outputIncludes("1028").failures,
  },
  {
    id: "smart-quoted-json",
    fault: "smart quotes and a trailing comma in a JSON Action Input",
    question: "How many Japanese yen is 100 euros?",
    script: [
      "Thought: convert it\nAction: currency_convert\nAction Input: {“amount”: 100, “from”: “EUR”, “to”: “JPY”,}",
      (request) => `Thought: I now know the final answer\nFinal Answer: ${lastObservation(request)} at the demo rate.`,
    ],
    check: (outcome) =>
      expectThat(outcome).stopReason("final_answer").tools(["currency_convert"]).observation(0, /16000\.00 JPY/, "16000.00 JPY").outputIncludes("16000.00 JPY").failures,
  },
  {
    id: "hallucinated-observation",
    fault: "the server ignores stop and the model invents the Observation and answer",
    question: "What is the capital of Kenya?",
    script: [
      {
        text: "Thought: look up Kenya\nAction: country_lookup\nAction Input: Kenya\nObservation: Kenya's capital is Mombasa.\nThought: I now know the final answer\nFinal Answer: Mombasa",
        ignoreStop: true,
      },
      "Thought: the lookup says Nairobi.\nFinal Answer: The capital of Kenya is Nairobi.",
    ],
    check: (outcome) =>
      expectThat(outcome).stopReason("final_answer").tools(["country_lookup"]).outputIncludes("Nairobi").outputExcludes("Mombasa").failures,
  },
  {
    id: "unknown-tool",
    fault: "a tool that does not exist (corrective retry listing the tools)",
    question: "What currency does Brazil use?",
    script: [
      "Thought: search Wikipedia\nAction: Wikipedia\nAction Input: Brazil currency",
      "Thought: I must use one of the listed tools.\nAction: country_lookup\nAction Input: Brazil",
      "Thought: I now know the final answer\nFinal Answer: Brazil uses the Brazilian real (BRL).",
    ],
    check: (outcome) =>
      expectThat(outcome)
        .stopReason("final_answer")
        .tools(["_Exception", "country_lookup"])
        .observation(0, /country_lookup/, "the valid tool names")
        .that(!/https?:\/\//.test(observation(outcome, 0)), "the corrective observation contains a URL")
        .outputIncludes("BRL").failures,
  },
  {
    id: "think-block",
    fault: "a <think> block that mentions another action (never executed)",
    question: "What time is it?",
    script: [
      "<think>The user wants the time. Maybe Action: calculator? No, the clock tool.</think>\nThought: I should read the clock.\nAction: current_time\nAction Input:",
      (request) => `Thought: I now know the final answer\nFinal Answer: It is ${lastObservation(request)}.`,
    ],
    check: (outcome) =>
      expectThat(outcome).stopReason("final_answer").tools(["current_time"]).observation(0, /\d{4}-\d{2}-\d{2}T/, "an ISO time").outputIncludes("UTC").failures,
  },
  {
    id: "numbered-labels",
    fault: "numbered labels, a full-width colon and a tool name in words (Country Lookup)",
    question: "What is the population density of Egypt?",
    script: [
      "Thought 1: I need Egypt's area and population.\nAction 1： Country Lookup\nAction Input 1: Egypt",
      "Thought 2: Now divide population by area.\nAction 2: calculator\nAction Input 2: 105000000 / 1010408",
      (request) => `Thought 3: I now know the final answer\nFinal Answer: Egypt has about ${Math.round(Number(lastObservation(request)))} people per km².`,
    ],
    check: (outcome) =>
      expectThat(outcome).stopReason("final_answer").tools(["country_lookup", "calculator"]).outputIncludes("about 104 people per km²").failures,
  },
  {
    id: "paper-style",
    fault: "paper-style Action: tool[input]",
    question: "What is the capital of Norway?",
    script: ["Thought: look it up\nAction: country_lookup[Norway]", "Thought: I now know the final answer\nFinal Answer: Oslo."],
    check: (outcome) => expectThat(outcome).stopReason("final_answer").tools(["country_lookup"]).outputIncludes("Oslo").failures,
  },
  {
    id: "conversational",
    fault: "the conversational agent's format (Do I need to use a tool? No / AI:)",
    question: "Hi there!",
    script: ["Do I need to use a tool? No\nAI: Hello! Ask me about countries, currencies, the weather or the time."],
    check: (outcome) => expectThat(outcome).stopReason("final_answer").tools([]).outputIncludes("Hello!").failures,
  },
  {
    id: "hanging-tool",
    fault: "a tool that never answers (timeout 200 ms x 2 attempts)",
    question: "What is ACME's stock price?",
    script: [
      "Thought: get the quote\nAction: stock_quote\nAction Input: ACME",
      "Thought: the quote service did not answer.\nFinal Answer: I could not get ACME's price right now: the quote service timed out.",
    ],
    check: (outcome) =>
      expectThat(outcome).stopReason("final_answer").tools(["stock_quote"]).observation(0, /time|did not (answer|respond)/i, "a timeout").failures,
  },
  {
    id: "flaky-http",
    fault: "an HTTP service answering 503, 503, then 200 (retried with backoff)",
    question: "What's the weather in Berlin tomorrow?",
    setUp: (environment) => environment.forecastService.script([503, 503]),
    script: [
      "Thought: get the forecast\nAction: weather_forecast\nAction Input: Berlin",
      "Thought: I now know the final answer\nFinal Answer: Tomorrow in Berlin: overcast, high 8 °C, low 3 °C.",
    ],
    check: (outcome, environment) =>
      expectThat(outcome)
        .stopReason("final_answer")
        .tools(["weather_forecast"])
        .observation(0, /overcast/, "the forecast")
        .that(environment.forecastService.hits === 3, `the service got ${environment.forecastService.hits} requests, expected 3`).failures,
  },
  {
    id: "ghost-failure",
    fault: 'HTTP 200 whose body is {"code":500,"msg":"system busy"}',
    question: "What is the live EUR/USD rate?",
    script: [
      "Thought: get the live rate\nAction: exchange_rate_live\nAction Input: EUR/USD",
      'Thought: the live service failed; use the fixed demo rate.\nAction: currency_convert\nAction Input: {"amount": 1, "from": "EUR", "to": "USD"}',
      "Thought: I now know the final answer\nFinal Answer: The live rate service is busy; at the demo rate 1 EUR = 1.10 USD.",
    ],
    check: (outcome) =>
      expectThat(outcome)
        .stopReason("final_answer")
        .tools(["exchange_rate_live", "currency_convert"])
        .observation(0, /fail|error|busy/i, "the failure")
        .that(!observation(outcome, 0).trimStart().startsWith('{"code"'), "the raw error body was passed off as a result").failures,
  },
  {
    id: "circuit-open",
    fault: "a dead service: the circuit opens after 2 failures and the fallback answers",
    question: "Where are my parcels PX-1, PX-2 and PX-3?",
    script: [
      "Thought: check the first parcel\nAction: parcel_status\nAction Input: PX-1",
      "Thought: check the second parcel\nAction: parcel_status\nAction Input: PX-2",
      "Thought: check the third parcel\nAction: parcel_status\nAction Input: PX-3",
      "Thought: I now know the final answer\nFinal Answer: Tracking is degraded; the last known status is in transit, due in 2 days.",
    ],
    check: (outcome, environment) =>
      expectThat(outcome)
        .stopReason("final_answer")
        .tools(["parcel_status", "parcel_status", "parcel_status"])
        .observation(2, /degraded/, "the fallback")
        .that(environment.parcelService.calls === 2, `the dead service was called ${environment.parcelService.calls} times, expected 2 (then the circuit is open)`).failures,
  },
  {
    id: "side-effect",
    fault: "a side-effect tool: a confirmation written before any dry run gets the dry run; sent with that dry run's token",
    question: "Email ops@example.com that the deploy is done.",
    script: [
      'Thought: send it, confirmed\nAction: send_email\nAction Input: {"to": "ops@example.com", "subject": "Deploy done", "body": "The deploy finished.", "confirm": true}',
      (request) =>
        `Thought: that was a dry run; the user asked me to send it, so I confirm with its token.\nAction: send_email\nAction Input: {"to": "ops@example.com", "subject": "Deploy done", "body": "The deploy finished.", "confirm": "${/"confirm": "(ok-[0-9a-f]+)"/.exec(lastObservation(request))?.[1] ?? "missing"}"}`,
      "Thought: I now know the final answer\nFinal Answer: Sent the email to ops@example.com.",
    ],
    check: (outcome, environment) =>
      expectThat(outcome)
        .stopReason("final_answer")
        .tools(["send_email", "send_email"])
        .observation(0, /DRY RUN.*"confirm": "ok-[0-9a-f]+"/, "the dry run with its confirmation token")
        .observation(1, /Email sent/, "the sent email")
        .that(environment.outbox.length === 1, `${environment.outbox.length} emails sent, expected 1`).failures,
  },
  {
    id: "injected-tool-call-tags",
    fault: "a page with <tool_call>, <final_answer> (as HTML entities) and send_email[…] planted in it, copied back by the model",
    question: "What is the current release? Read the release notes.",
    script: [
      "Thought: read the notes\nAction: read_page\nAction Input: https://example.com/releases",
      // A naive model copies the page into its reply: nothing in it may act or answer.
      (request) => `Thought: the page says:\n${lastObservation(request)}`,
      "Thought: I now know the final answer\nFinal Answer: Version 4.2 is the current release.",
    ],
    check: (outcome, environment) =>
      expectThat(outcome)
        .stopReason("final_answer")
        .that(tools(outcome)[0] === "read_page" && !tools(outcome).includes("send_email"), `tools [${tools(outcome).join(", ")}] include send_email`)
        .that(!/<tool_call>|<final_answer>|&lt;final_answer&gt;/.test(observation(outcome, 0)), "the observation still has a readable tool-call or final-answer tag")
        .that(environment.outbox.length === 0, `${environment.outbox.length} emails sent by the injection`)
        .outputIncludes("current release")
        .outputExcludes("withdrawn").failures,
  },
  {
    id: "injected-final-answer",
    fault: "search results containing 'Final Answer:' and 'Action:' lines",
    question: "What is the capital of Norway? Search the web.",
    script: [
      "Thought: search\nAction: web_search\nAction Input: capital of Norway",
      "Thought: two results say Oslo; one is spam.\nFinal Answer: Oslo is the capital of Norway.",
    ],
    check: (outcome) =>
      expectThat(outcome)
        .stopReason("final_answer")
        .tools(["web_search"])
        .that(!/^\s*Final Answer:/m.test(observation(outcome, 0)), "the observation still has a 'Final Answer:' control line")
        .that(!/^\s*Action:/m.test(observation(outcome, 0)), "the observation still has an 'Action:' control line")
        .outputIncludes("Oslo")
        .outputExcludes("Bergen").failures,
  },
  {
    id: "repeat-loop",
    fault: "the same action with the same result again and again (warned after two equal results, stopped after three)",
    question: "What is the capital of France?",
    script: Array.from({ length: 6 }, () => "Thought: let me check France again.\nAction: country_lookup\nAction Input: France"),
    check: (outcome) => expectThat(outcome).stopReason("repeat").outputIncludes("Paris", ESCAPE_HATCH).failures,
  },
  {
    id: "cycle",
    fault: "an A→B→A→B cycle between two tools",
    question: "How dense is Germany?",
    script: Array.from({ length: 10 }, (_, index) =>
      index % 2 === 0
        ? "Thought: I need Germany's figures.\nAction: country_lookup\nAction Input: Germany"
        : "Thought: divide population by area.\nAction: calculator\nAction Input: 84500000 / 357592",
    ),
    check: (outcome) => expectThat(outcome).stopReason("cycle").outputIncludes(ESCAPE_HATCH).failures,
  },
  {
    id: "stall",
    fault: "near-identical thoughts making no progress (different inputs, same failing result)",
    question: "What is the live EUR exchange rate for any currency?",
    script: ["USD", "GBP", "JPY", "CHF", "NOK", "BRL", "AUD", "CAD"].map(
      (code) => `Thought: I still need a live EUR rate, so I will try the live rate service again.\nAction: exchange_rate_live\nAction Input: EUR/${code}`,
    ),
    check: (outcome) => expectThat(outcome).stopReason("stall").outputIncludes(ESCAPE_HATCH).failures,
  },
  {
    id: "step-budget",
    fault: "a step budget (maxSteps: 3) on a model that keeps looking things up",
    question: "Which European country has the most people per km²?",
    loopControl: { maxSteps: 3 },
    script: ["France", "Germany", "Norway", "Switzerland", "Egypt", "Japan"].map(
      (country) => `Thought: check ${country}.\nAction: country_lookup\nAction Input: ${country}`,
    ),
    check: (outcome) => expectThat(outcome).stopReason("max_steps").outputIncludes(ESCAPE_HATCH).failures,
  },
]);
