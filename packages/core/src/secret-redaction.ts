/**
 * Secret redaction for what Reins writes outside the model's context window: the audit trail,
 * OpenTelemetry content attributes and failure previews. On by default: provider API keys
 * (OpenAI `sk-…`, Anthropic `sk-ant-…`, Google `AIza…`, GitHub `ghp_…`/`github_pat_…`, Slack
 * `xox…`, Stripe `sk_live_…`), bearer and basic `Authorization` credentials, user:password in
 * URLs, AWS access key ids and secret keys, JWTs and PEM private-key blocks. Each match becomes
 * `[redacted <kind>]` (a label prefix such as `Bearer ` or `https://` is kept), and the caller
 * reports what it redacted as a `secret_redaction` event (`secrets_redacted_total`): never silent.
 * Patterns follow the shapes gitleaks and GitHub secret scanning document; every quantifier is
 * bounded, so redaction is linear in the text's length.
 */
import { ReinsError, brandReinsError } from "./reins-error";
import { isRecord } from "./option-checks";

/** One kind of secret: a global regex; a first capture group, when present, is kept (e.g. `Bearer `). */
export interface SecretPattern {
  /** Bounded identifier, the `kind` label of `secrets_redacted_total` (e.g. `openai_api_key`). */
  readonly kind: string;
  /** A regex with the `g` flag. */
  readonly pattern: RegExp;
  /**
   * Lower-case strings of which at least one must occur in the lower-cased text for the pattern to
   * run at all (a prefilter, as gitleaks' `keywords`). Absent: the pattern always runs.
   * @default undefined
   */
  readonly keywords?: readonly string[];
  /**
   * Decides on each match (called with the match and its capture groups) whether it is a secret;
   * `false` keeps the text. Absent: every match is.
   * @default undefined
   */
  readonly accept?: (match: string, ...groups: Array<string | undefined>) => boolean;
}

// A value a previous pattern already replaced is never matched again (so redacting twice is a no-op).
const NOT_REDACTED = String.raw`(?![ \t]{0,8}\[redacted )`;
// A key name that holds a secret (generic assignments, JSON fields, query parameters) ...
const SECRET_KEY = /(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key|private[_.-]?key|auth[_.-]?(?:key|token)|credential|session[_.-]?id|signature|^sig$|accountkey|client[_.-]?secret)/i;
// ... unless it names a count, a limit, a type or another fact about a secret rather than the secret.
const NOT_SECRET_KEY = /(?:tokens$|tokens?[_.-]?(?:count|limit|usage|type|url|uri|endpoint|name|expir|ttl|len)|(?:max|min|num|count|total)[_.-]?(?:output[_.-]?|input[_.-]?)?tokens?|(?:expir|ttl|length|policy|required|hint|reset|_at$|url$|uri$|file$|path$|enabled$|type$))/i;
const NOT_SECRET_VALUE = /^(?:true|false|null|none|undefined|nil|yes|no|\*+|x+|\.\.\.|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\})$/i;
// Token characters of one JWT segment, which may be wrapped onto following lines (a line break
// followed by at least 16 token characters: a wrapped token, not the next line's prose).
const JWT_CHAR = String.raw`(?:[A-Za-z0-9_-]|\r?\n[ \t]{0,16}(?=[A-Za-z0-9_.-]{16}))`;

const rule = (kind: string, pattern: RegExp, keywords?: readonly string[], accept?: SecretPattern["accept"]): SecretPattern =>
  Object.freeze({ kind, pattern, ...(keywords === undefined ? {} : { keywords: Object.freeze([...keywords]) }), ...(accept === undefined ? {} : { accept }) });

/**
 * The patterns redacted by default, most specific first: 20 kinds (the `kind` label of
 * `secrets_redacted_total`, see {@link SECRET_KINDS}). Shapes follow gitleaks' rules
 * (`config/gitleaks.toml`) and GitHub secret scanning's documented token formats; each pattern runs
 * only when one of its `keywords` occurs, and every pattern is linear in the text's length (bounded
 * quantifiers behind a look-behind that lets a match start only at the start of a run, and no
 * nested ambiguous repetition; see the hostile-input tests and `bench/secret-redaction.bench.mts`).
 */
export const DEFAULT_SECRET_PATTERNS: readonly SecretPattern[] = Object.freeze([
  // PEM (RSA, EC, OPENSSH, PKCS#8, encrypted) and PGP private-key blocks; one cut off before its END line is redacted to the end of the text.
  rule("private_key", /-----BEGIN (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----|$)/g, ["private key"]),
  rule("anthropic_api_key", /(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_-]{20,300}/g, ["sk-ant-"]),
  rule("openai_api_key", /(?<![A-Za-z0-9])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}/g, ["sk-"]),
  rule("stripe_api_key", /(?<![A-Za-z0-9_])(?:[rs]k_(?:live|test)_[A-Za-z0-9]{16,255}|whsec_[A-Za-z0-9+/=]{24,255})/g, ["sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"]),
  rule("google_api_key", /(?<![A-Za-z0-9_-])(?:AIza[0-9A-Za-z_-]{35}|GOCSPX-[A-Za-z0-9_-]{20,100})/g, ["aiza", "gocspx-"]),
  rule("github_token", /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})/g, ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]),
  rule("gitlab_token", /(?<![A-Za-z0-9_-])gl(?:pat|dt|ptt|rt|cbt|soat|ffct|imt|oas|agent|ft)-[A-Za-z0-9_.-]{20,300}/g, ["glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glsoat-", "glffct-", "glimt-", "gloas-", "glagent-", "glft-"]),
  rule("slack_token", /(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9-]{10,250}/g, ["xox"]),
  rule("huggingface_token", /(?<![A-Za-z0-9_])(?:hf_|api_org_)[A-Za-z0-9]{30,64}(?![A-Za-z0-9])/g, ["hf_", "api_org_"]),
  rule("langsmith_api_key", /(?<![A-Za-z0-9_])lsv2_[A-Za-z0-9_]{20,200}/g, ["lsv2_"]),
  rule("npm_token", /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36,64}(?![A-Za-z0-9])/g, ["npm_"]),
  rule("sendgrid_api_key", /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}/g, ["sg."]),
  rule("aws_access_key_id", /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}(?![A-Z0-9])/g, ["akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "anpa", "anva", "aipa"]),
  rule(
    "aws_secret_access_key",
    new RegExp(String.raw`((?:aws_?secret_?access_?key|secretAccessKey|aws_?session_?token|sessionToken|x-amz-security-token)\\?["']?\s{0,4}[:=]\s{0,4}\\?["']?)${NOT_REDACTED}[A-Za-z0-9/+=]{16,4096}`, "gi"),
    ["secret", "session", "security-token"],
  ),
  rule("azure_storage_key", new RegExp(String.raw`((?:AccountKey|SharedAccessKey|SharedAccessSignature)\s{0,4}=\s{0,4})${NOT_REDACTED}[A-Za-z0-9+/=%&:_.-]{20,1024}`, "gi"), ["accountkey", "sharedaccess"]),
  rule("jwt", new RegExp(String.raw`(?<![A-Za-z0-9_-])eyJ${JWT_CHAR}{8,4096}\.${JWT_CHAR}{0,3}eyJ${JWT_CHAR}{8,8192}\.${JWT_CHAR}{8,4096}`, "g"), ["eyj"]),
  rule("authorization", new RegExp(String.raw`((?:Proxy-)?Authorization\\?["']?\s{0,4}[:=]\s{0,4}\\?["']?(?:(?:Bearer|Basic|Token|Digest)\s{1,4})?)${NOT_REDACTED}[^\s"'\\,;]{8,4096}`, "gi"), ["authorization"]),
  rule("authorization", new RegExp(String.raw`((?<![A-Za-z0-9_-])(?:x-api-key|api-key|x-auth-token|x-access-token|private-token|x-goog-api-key|ocp-apim-subscription-key)\\?["']?\s{0,4}[:=]\s{0,4}\\?["']?)${NOT_REDACTED}[^\s"'\\,;]{8,4096}`, "gi"), ["api-key", "auth-token", "access-token", "private-token", "subscription-key"]),
  rule("authorization", new RegExp(String.raw`(Bearer\s{1,4})${NOT_REDACTED}[A-Za-z0-9\-._~+/]{16,4096}={0,2}`, "gi"), ["bearer"]),
  rule("session_cookie", new RegExp(String.raw`((?<![A-Za-z0-9_-])(?:Set-)?Cookie\\?["']?\s{0,4}[:=]\s{0,4}\\?["']?)${NOT_REDACTED}[^\r\n"\\]{1,4096}`, "gi"), ["cookie"]),
  rule("session_cookie", new RegExp(String.raw`((?<![A-Za-z0-9_.-])(?:[A-Za-z0-9_.-]{0,32}sess(?:ion)?(?:[_.-]?id)?|connect\.sid|[A-Za-z_]{0,16}sid)=)${NOT_REDACTED}[^\s;,"'&]{8,4096}`, "gi"), ["sess", "sid="]),
  rule("url_credentials", /((?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/)(?:[^\s:@/?#[\]]{0,256}:[^\s@/?#[\]]{1,256}|[^\s:@/?#[\]]{16,256})@/g, ["://"]),
  // Generic assignments: `password = …`, `"api_key": "…"`, `\"secret\": \"…\"`, `?access_token=…`, `DB_PASSWORD: …`.
  rule(
    "generic_secret",
    new RegExp(String.raw`((?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]{1,64})\\?["']?[ \t]{0,4}(?::|=|:=|=>)[ \t]{0,4}\\?["']?)${NOT_REDACTED}((?<=["'])[^"'\\\r\n]{1,512}|(?<!["'])[^\s"'\\,;&<>)}\]]{3,512})`, "gi"),
    ["pass", "pwd", "secret", "token", "key", "credential", "session", "sig"],
    (_match, _kept, key, value) => key !== undefined && value !== undefined && SECRET_KEY.test(key) && !NOT_SECRET_KEY.test(key) && !NOT_SECRET_VALUE.test(value.trim()),
  ),
]);

/** Every kind of {@link DEFAULT_SECRET_PATTERNS}, once each, in order: the closed `kind` label of `secrets_redacted_total` (20 values). */
export const SECRET_KINDS: readonly string[] = Object.freeze([...new Set(DEFAULT_SECRET_PATTERNS.map((entry) => entry.kind))]);

/** Options of {@link createSecretRedactor}. */
export interface SecretRedactionOptions {
  /**
   * `false` turns redaction off (secrets are then written verbatim: only for a sink that is itself
   * a secret store).
   * @default true
   */
  readonly enabled?: boolean;
  /**
   * Extra patterns, applied after the defaults (an in-house token format, a customer id).
   * @default []
   */
  readonly patterns?: readonly SecretPattern[];
}

/** What a redaction did: the text or value, and the kind of each secret removed (one entry per match). */
export interface SecretRedactionResult<T> {
  readonly value: T;
  readonly kinds: readonly string[];
}

/** A configured redactor (see {@link createSecretRedactor}). */
export interface SecretRedactor {
  readonly enabled: boolean;
  /** Redacts one string. */
  redactText(text: string): SecretRedactionResult<string>;
  /** Redacts every string inside a JSON-like value (objects, arrays; keys too); other values are kept. A copy is made only where something changed. */
  redactValue<T>(value: T): SecretRedactionResult<T>;
}

/** Thrown for invalid {@link SecretRedactionOptions}. */
export class SecretRedactionOptionsError extends ReinsError {
  static {
    brandReinsError(this, "core", "SecretRedactionOptionsError");
  }

  readonly field: string;
  readonly value: unknown;

  constructor(fields: { field: string; value: unknown; reason: string; message?: string; cause?: unknown }) {
    super(fields.message ?? `Invalid secret redaction option "${fields.field}": ${fields.reason}.`, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = "SecretRedactionOptionsError";
    this.field = fields.field;
    this.value = fields.value;
  }
}

const MAX_DEPTH = 64;

/**
 * Builds a redactor from options (or `false`: off).
 *
 * @param options - `enabled` and extra `patterns`; `false` is `{ enabled: false }`
 * @default options { enabled: true, patterns: [] }
 * @returns the redactor
 * @throws {SecretRedactionOptionsError} when `enabled` is not a boolean, or a pattern has no `kind` or is not a global RegExp
 * @example
 * ```ts
 * const redactor = createSecretRedactor({ patterns: [{ kind: "acme_token", pattern: /acme_[a-z0-9]{32}/g }] });
 * redactor.redactText("Authorization: Bearer abcdefghijk123").value; // "Authorization: Bearer [redacted authorization]"
 * ```
 */
export function createSecretRedactor(options: SecretRedactionOptions | false = {}): SecretRedactor {
  const resolved = options === false ? { enabled: false } : options;
  if (!isRecord(resolved)) throw new SecretRedactionOptionsError({ field: "options", value: options, reason: "expected an object or false" });
  const enabled = resolved.enabled ?? true;
  if (typeof enabled !== "boolean") throw new SecretRedactionOptionsError({ field: "enabled", value: enabled, reason: "expected a boolean" });
  const extra = resolved.patterns ?? [];
  if (!Array.isArray(extra)) throw new SecretRedactionOptionsError({ field: "patterns", value: extra, reason: "expected an array of { kind, pattern }" });
  extra.forEach((entry: unknown, index) => {
    if (!isRecord(entry) || typeof entry.kind !== "string" || !/^[a-z][a-z0-9_]{0,63}$/.test(entry.kind)) {
      throw new SecretRedactionOptionsError({ field: `patterns[${index}].kind`, value: isRecord(entry) ? entry.kind : entry, reason: "expected a snake_case identifier (it becomes a metric label)" });
    }
    if (!(entry.pattern instanceof RegExp) || !entry.pattern.global) {
      throw new SecretRedactionOptionsError({ field: `patterns[${index}].pattern`, value: entry.pattern, reason: "expected a RegExp with the g flag" });
    }
  });
  const patterns = [...DEFAULT_SECRET_PATTERNS, ...(extra as readonly SecretPattern[])];

  const redactText = (text: string): SecretRedactionResult<string> => {
    if (!enabled || text.length === 0) return { value: text, kinds: [] };
    const kinds: string[] = [];
    let result = text;
    let lower: string | undefined;
    for (const { kind, pattern, keywords, accept } of patterns) {
      if (keywords !== undefined) {
        lower ??= result.toLowerCase();
        const present = lower;
        if (!keywords.some((keyword) => present.includes(keyword))) continue;
      }
      pattern.lastIndex = 0;
      const before = result;
      let redacted = "";
      let copiedUpTo = 0;
      for (let found = pattern.exec(before); found !== null; found = pattern.exec(before)) {
        const match = found[0];
        const groups = found.slice(1);
        if (match.length === 0) {
          pattern.lastIndex += 1;
          continue;
        }
        const kept = groups[0];
        const keptLength = typeof kept === "string" && match.startsWith(kept) ? kept.length : 0;
        if (accept !== undefined && !accept(match, ...groups)) {
          // Not a secret: look again just after the kept prefix, so a secret inside what this match spanned is still found.
          pattern.lastIndex = found.index + Math.max(1, keptLength);
          continue;
        }
        kinds.push(kind);
        redacted += `${before.slice(copiedUpTo, found.index + keptLength)}[redacted ${kind}]`;
        copiedUpTo = found.index + match.length;
      }
      result = copiedUpTo === 0 ? before : redacted + before.slice(copiedUpTo);
      if (result !== before) lower = undefined;
    }
    return { value: result, kinds };
  };

  const redactValue = <T>(value: T): SecretRedactionResult<T> => {
    if (!enabled) return { value, kinds: [] };
    const kinds: string[] = [];
    const seen = new WeakSet<object>();
    const visit = (item: unknown, depth: number): unknown => {
      if (typeof item === "string") {
        const redacted = redactText(item);
        kinds.push(...redacted.kinds);
        return redacted.value;
      }
      if (typeof item !== "object" || item === null || depth > MAX_DEPTH || seen.has(item)) return item;
      seen.add(item);
      if (Array.isArray(item)) {
        let copy: unknown[] | undefined;
        item.forEach((element, index) => {
          const next = visit(element, depth + 1);
          if (next !== element) (copy ??= [...item])[index] = next;
        });
        return copy ?? item;
      }
      if (Object.getPrototypeOf(item) !== Object.prototype && Object.getPrototypeOf(item) !== null) return item;
      let copy: Record<string, unknown> | undefined;
      for (const [key, element] of Object.entries(item)) {
        const nextKey = visit(key, depth + 1) as string;
        const next = visit(element, depth + 1);
        if (next !== element || nextKey !== key) {
          copy ??= { ...(item as Record<string, unknown>) };
          if (nextKey !== key) delete copy[key];
          // defineProperty: a key such as "__proto__" stays a plain own key.
          Object.defineProperty(copy, nextKey, { value: next, enumerable: true, writable: true, configurable: true });
        }
      }
      return copy ?? item;
    };
    return { value: visit(value, 0) as T, kinds };
  };

  return Object.freeze({ enabled, redactText, redactValue });
}

/** The default redactor (every default pattern, on). */
export const DEFAULT_SECRET_REDACTOR: SecretRedactor = createSecretRedactor();

/**
 * Redacts `text` with the default patterns.
 * @returns the text with every secret replaced by `[redacted <kind>]`, and the kinds removed
 */
export function redactSecrets(text: string): SecretRedactionResult<string> {
  return DEFAULT_SECRET_REDACTOR.redactText(text);
}
