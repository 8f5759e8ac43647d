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
}

/** The patterns redacted by default, most specific first. */
export const DEFAULT_SECRET_PATTERNS: readonly SecretPattern[] = Object.freeze([
  { kind: "private_key", pattern: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----[\s\S]{0,16384}?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|$)/g },
  { kind: "anthropic_api_key", pattern: /(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_-]{20,300}/g },
  { kind: "openai_api_key", pattern: /(?<![A-Za-z0-9])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}/g },
  { kind: "stripe_api_key", pattern: /(?<![A-Za-z0-9])[rs]k_(?:live|test)_[A-Za-z0-9]{16,255}/g },
  { kind: "google_api_key", pattern: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}/g },
  { kind: "github_token", pattern: /(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})/g },
  { kind: "slack_token", pattern: /(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,250}/g },
  { kind: "aws_access_key_id", pattern: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}(?![A-Z0-9])/g },
  { kind: "aws_secret_access_key", pattern: /((?:aws_?secret_?access_?key|secretAccessKey)["']?\s{0,4}[:=]\s{0,4}["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/gi },
  { kind: "jwt", pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{8,4096}/g },
  { kind: "authorization", pattern: /((?:Proxy-)?Authorization["']?\s{0,4}[:=]\s{0,4}["']?(?:(?:Bearer|Basic|Token|Digest)\s{1,4})?)[^\s"',;]{8,4096}/gi },
  { kind: "authorization", pattern: /(Bearer\s{1,4})[A-Za-z0-9\-._~+/]{16,4096}={0,2}/gi },
  { kind: "url_credentials", pattern: /((?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/)[^\s:@/?#]{1,256}:[^\s@/?#]{1,256}@/g },
].map((entry) => Object.freeze(entry)));

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
    for (const { kind, pattern } of patterns) {
      pattern.lastIndex = 0;
      if (!pattern.test(result)) continue;
      pattern.lastIndex = 0;
      result = result.replace(pattern, (match: string, kept: unknown) => {
        kinds.push(kind);
        return `${typeof kept === "string" && match.startsWith(kept) ? kept : ""}[redacted ${kind}]`;
      });
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
