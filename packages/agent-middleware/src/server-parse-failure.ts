/**
 * Tool-call parse failures of OpenAI-compatible servers, recognised from the error the model
 * client throws, and recovered in `wrapModelCall`.
 *
 * Local servers parse the model's written call themselves (a chat template's tool-call parser).
 * When that parse fails they answer the whole request with an HTTP error, and `ChatOpenAI` throws:
 * the run would end although the model did write a call, and the body often quotes it. The body
 * shapes below are the ones reported in the servers' public issue threads:
 *
 * | server | status | body (where the text is) | quotes the model's output |
 * |---|---|---|---|
 * | llama.cpp (`llama-server`, PEG/auto parser) | 500 | `{"error":{"code":500,"message":"Failed to parse input at pos 184: <tool_call>…","type":"server_error"}}` (ggml-org/llama.cpp#20761, #23838, #24644) | yes: from the failing position to the end |
 * | llama.cpp (older) | 500 | `{"error":{"message":"Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] …"}}` | no |
 * | a proxy in front of llama.cpp (LiteLLM) | 500 | `{"error":{"message":"litellm.InternalServerError: … - Failed to parse … Received Model Group=…","code":"500"}}`, or the upstream body as JSON inside the message (vxcontrol/pentagi#313) | as the upstream did |
 * | Ollama | 500 | `{"error":"error parsing tool call: raw='{\"input\":…}]', err=invalid character ']' after top-level value"}`: a plain-string `error` (ollama/ollama#12884, #17638, #12064); its `/v1` endpoint nests it as `error.message` | yes: `raw='…'` (often the arguments alone, without the tool's name) |
 * | vLLM (`tool_choice: "required"` / named) | 400 | `{"error":{"message":"1 validation error for list[function-wrap[__log_extra_fields__()]]\n  Invalid JSON: … input_value='<tool_call> {\"name\": \"ge...ments\": {}}</tool_call>'","type":"BadRequestError","code":400}}` (speakleash/bielik-tools#9, vllm-project/vllm#27921) | no: pydantic elides the middle of `input_value` |
 * | vLLM (a tool parser's exception) | 400 / 500 | `Error in extracting tool call from response` | no |
 * | LM Studio | 500 (Responses API) | `Failed to parse tool call: Unexpected end of content. Model Output: <\|start\|>assistant…` (lmstudio-ai/lmstudio-bug-tracker#942, #1528; lmstudio-js#493) | yes: after `Model Output:` |
 * | SGLang (and LMDeploy) | 400 | `{"object":"error","message":"Failed to parse fc related info to json format!","type":"BadRequestError","code":400}`, older SGLang with `message` and `type` swapped (`"message":"400","type":"Failed to parse fc related info…"`); newer: `Tool call parsing error: …` (sgl-project/sglang#34604) | no |
 *
 * What the thrown error carries: `ChatOpenAI` (@langchain/openai 1.5.8, OpenAI SDK 6) throws the
 * SDK's `APIError` subclass (`BadRequestError`, `InternalServerError`) with `status`, `error` =
 * the body's `error` member (an object, or Ollama's plain string) and `message` = `"<status>
 * <error.message>"`. A body WITHOUT an `error` member (vLLM's and SGLang's top-level
 * `{"object":"error","message":…}`) reaches the client as `error: undefined` and the message
 * `"400 status code (no body)"`: its text is lost inside the SDK, so such a failure cannot be told
 * from any other 400 and is rethrown. An error event inside a stream arrives with `status`
 * undefined and the event's `error` object. Ollama's own client (`ResponseError`) carries `error`
 * (string) and `status_code`.
 *
 * Only the failure phrases below are recognised: an error that merely mentions a parser or a
 * template (`"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser`,
 * `Failed to parse messages`, a Jinja template error) is not a failed call and is rethrown.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MIDDLEWARE_MESSAGES } from "./messages";

/** The servers whose tool-call parse failures are recognised. */
export const SERVER_PARSE_FAILURE_SERVERS = Object.freeze(["llama.cpp", "ollama", "vllm", "lm-studio", "sglang"] as const);
/** One of {@link SERVER_PARSE_FAILURE_SERVERS}. */
export type ServerParseFailureServer = (typeof SERVER_PARSE_FAILURE_SERVERS)[number];

/** A model call that failed because the server could not parse the model's tool call. */
export interface ServerParseFailure {
  readonly server: ServerParseFailureServer;
  /** The HTTP status; `undefined` for an error event inside a stream. */
  readonly status: number | undefined;
  /** The server's message, as read from the body. */
  readonly message: string;
  /**
   * The model's own output as the server quoted it (read as a reply's content; a quote of the
   * arguments alone is given too, and the rescue finds no call in it), or `undefined` when the
   * body quotes nothing or only an elided excerpt (vLLM).
   */
  readonly rawOutput: string | undefined;
}

/** Statuses a parse failure is answered with (an error event inside a stream has none). */
const PARSE_FAILURE_STATUSES: ReadonlySet<number> = new Set([400, 500]);

interface FailureSignature {
  readonly server: ServerParseFailureServer;
  readonly pattern: RegExp;
  /** The quoted model output, from the text at the match. */
  readonly quote?: (text: string, match: RegExpExecArray) => string | undefined;
}

/** A proxy's text appended after the upstream message (LiteLLM's router). */
const PROXY_TRAILERS: readonly RegExp[] = [/\s*Received Model Group=[\s\S]*$/];

const restOfText = (text: string, match: RegExpExecArray): string | undefined => {
  let rest = text.slice(match.index + match[0].length);
  for (const trailer of PROXY_TRAILERS) rest = rest.replace(trailer, "");
  return rest.trim().length > 0 ? rest : undefined;
};

const ollamaRaw = (text: string, match: RegExpExecArray): string | undefined => {
  const start = match.index + match[0].length;
  // The quote may itself hold `'`: it ends at the last `', err=` (or a closing quote at the end).
  const end = text.lastIndexOf("', err=");
  if (end >= start) return text.slice(start, end);
  const trimmed = text.trimEnd();
  return trimmed.endsWith("'") && trimmed.length - 1 > start ? trimmed.slice(start, trimmed.length - 1) : undefined;
};

/** Each server's failure phrases; linear regular expressions only. */
const SIGNATURES: readonly FailureSignature[] = [
  { server: "llama.cpp", pattern: /Failed to parse input at pos \d+: ?/, quote: restOfText },
  { server: "llama.cpp", pattern: /Failed to parse tool call arguments as JSON/ },
  { server: "ollama", pattern: /error parsing tool call: raw='/, quote: ollamaRaw },
  { server: "ollama", pattern: /error parsing tool call/ },
  { server: "lm-studio", pattern: /Failed to parse tool call\b[^\n]*?\n?\s*Model Output: ?/, quote: restOfText },
  { server: "lm-studio", pattern: /Failed to parse tool call\b/ },
  { server: "vllm", pattern: /validation error for list\[function-wrap\[_*log_extra_fields_*\(\)\]\][\s\S]*?(?:Invalid JSON|json_invalid)/ },
  { server: "vllm", pattern: /Error in extracting tool call/ },
  { server: "sglang", pattern: /Failed to parse fc related info to json format/ },
  { server: "sglang", pattern: /Tool call parsing error/ },
];

const MAX_DEPTH = 4;

/** The texts of an error body, most structured first: nested `error` objects, JSON inside a proxy's message, the message itself. */
function bodyTexts(value: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > MAX_DEPTH || value === null || value === undefined) return out;
  if (typeof value === "string") {
    // A proxy's message may hold the upstream body as JSON: read that first, exactly.
    const open = value.indexOf("{");
    const close = value.lastIndexOf("}");
    if (open >= 0 && close > open) {
      try {
        bodyTexts(JSON.parse(value.slice(open, close + 1)) as unknown, depth + 1, out);
      } catch {
        // not JSON: the text itself is read below
      }
    }
    out.push(value);
    return out;
  }
  if (typeof value !== "object") return out;
  const record = value as Record<string, unknown>;
  for (const key of ["error", "message", "detail", "type"]) bodyTexts(record[key], depth + 1, out);
  // Ollama's streamed failure used the phrase as the key: {"error parsing tool call": "<reason>"}.
  for (const [key, item] of Object.entries(record)) {
    if (/tool call/i.test(key) && typeof item === "string") out.push(`${key}: ${item}`);
  }
  return out;
}

function statusOf(error: Record<string, unknown>): number | undefined {
  const status = error.status ?? error.status_code ?? error.statusCode;
  return typeof status === "number" ? status : undefined;
}

/**
 * Recognises a tool-call parse failure of an OpenAI-compatible server in what a model call threw.
 *
 * @param error - anything a model call threw
 * @returns the failure (server, status, message, the quoted model output when there is one), or
 *   `undefined` for every other error (which the caller rethrows unchanged)
 */
export function serverParseFailureOf(error: unknown): ServerParseFailure | undefined {
  if (error === null || typeof error !== "object") return undefined;
  const record = error as Record<string, unknown>;
  const status = statusOf(record);
  // A status outside 400/500 is not a parse failure; no status is one only when a body came with the error (a stream's error event).
  if (status === undefined ? record.error === undefined : !PARSE_FAILURE_STATUSES.has(status)) return undefined;
  const texts = [...bodyTexts(record.error), ...bodyTexts(record.body), ...(typeof record.message === "string" ? bodyTexts(record.message) : [])];
  for (const signature of SIGNATURES) {
    for (const text of texts) {
      const match = signature.pattern.exec(text);
      if (match === null) continue;
      const rawOutput = signature.quote?.(text, match);
      return { server: signature.server, status, message: text, rawOutput };
    }
  }
  return undefined;
}

/** Names of the repairs a recovered failure is counted under (`parser_repairs_total{repair}`). */
export const SERVER_PARSE_FAILURE_REPAIRS = Object.freeze({
  /** The call was read from the model output the server quoted. */
  read: "server_parse_failure_read",
  /** The model was asked once more, with a corrective note. */
  reask: "server_parse_failure_reask",
} as const);

/** Key of the server failure a reply was read from, in the read reply's `response_metadata`. */
export const SERVER_PARSE_FAILURE_METADATA_KEY = "reinsServerParseFailure";

/** What {@link recoverServerParseFailure} needs from the middleware. */
export interface ServerParseRecoveryContext {
  /** The agent's tool names (the corrective note names them). */
  readonly toolNames: readonly string[];
  /**
   * Reads the calls of a reply through the middleware's rescue (`rescueReply`: the same grammar,
   * provenance and argument checks as any reply) and counts `repair`; `undefined` when the reply
   * holds no call at all.
   */
  readonly read: (reply: AIMessage, repair: string, detail: string) => AIMessage | undefined;
  /** Asks the model once more with the corrective note appended to the request; rescues and counts the reply. */
  readonly reask: (note: HumanMessage, repair: string, detail: string) => Promise<unknown>;
}

const detailOf = (failure: ServerParseFailure): string => `${failure.server} HTTP ${failure.status ?? "stream error"}`;

/** The quoted output as the content of a reply, marked with the failure it came from. */
function quotedReply(failure: ServerParseFailure & { rawOutput: string }): AIMessage {
  return new AIMessage({ content: failure.rawOutput, response_metadata: { [SERVER_PARSE_FAILURE_METADATA_KEY]: { server: failure.server, status: failure.status ?? null } } });
}

/**
 * Recovers a model call that failed with a server's tool-call parse failure: when the body quotes
 * the model's output, the call is read from it as from a reply's content; otherwise (or when the
 * quote holds no call) the model is asked once more with a corrective note naming the tools and
 * the expected format. At most one re-ask per failure: when the re-ask fails too, a call quoted in
 * that second failure is still read, and otherwise its error is thrown unchanged.
 *
 * @param failure - what {@link serverParseFailureOf} recognised
 * @returns the reply the run continues with
 * @throws the re-ask's error when the re-ask fails and quotes no readable call
 */
export async function recoverServerParseFailure(failure: ServerParseFailure, context: ServerParseRecoveryContext): Promise<unknown> {
  if (failure.rawOutput !== undefined) {
    const read = context.read(quotedReply({ ...failure, rawOutput: failure.rawOutput }), SERVER_PARSE_FAILURE_REPAIRS.read, detailOf(failure));
    if (read !== undefined) return read;
  }
  const note = new HumanMessage(MIDDLEWARE_MESSAGES.serverParseFailure(context.toolNames));
  try {
    return await context.reask(note, SERVER_PARSE_FAILURE_REPAIRS.reask, detailOf(failure));
  } catch (error) {
    const again = serverParseFailureOf(error);
    if (again?.rawOutput !== undefined) {
      const read = context.read(quotedReply({ ...again, rawOutput: again.rawOutput }), SERVER_PARSE_FAILURE_REPAIRS.read, detailOf(again));
      if (read !== undefined) return read;
    }
    throw error;
  }
}
