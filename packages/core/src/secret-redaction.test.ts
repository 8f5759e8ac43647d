import { SECRET_SHAPES, leakedFragments } from "@reins/testing";
import { DEFAULT_SECRET_PATTERNS, SECRET_KINDS, SecretRedactionOptionsError, createSecretRedactor, redactSecrets } from "./secret-redaction";

// Built at run time so no secret-looking literal sits in the source (scanners would flag it).
const tail = (length: number, alphabet = "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYz"): string => Array.from({ length }, (_, index) => alphabet[(index * 7) % alphabet.length]).join("");

describe("redactSecrets", () => {
  describe("on each default kind", () => {
    it.each([
      ["openai_api_key", `key=sk-${tail(48)} end`, "key=[redacted openai_api_key] end"],
      ["openai_api_key", `sk-proj-${tail(64)}`, "[redacted openai_api_key]"],
      ["anthropic_api_key", `x-api-key: sk-ant-api03-${tail(80)}`, "x-api-key: [redacted anthropic_api_key]"],
      ["google_api_key", `?key=AIza${tail(35)}&q=1`, "?key=[redacted google_api_key]&q=1"],
      ["github_token", `token ghp_${tail(36)}`, "token [redacted github_token]"],
      ["github_token", `github_pat_${tail(60, "abcdefghijklmnop_0123456789")}`, "[redacted github_token]"],
      ["slack_token", `xoxb-1234567890-${tail(24)}`, "[redacted slack_token]"],
      ["stripe_api_key", `sk_live_${tail(24)}`, "[redacted stripe_api_key]"],
      ["aws_access_key_id", "id AKIA" + "ABCDEFGHIJKLMNOP" + " ok", "id [redacted aws_access_key_id] ok"],
      ["aws_secret_access_key", `aws_secret_access_key = ${tail(40, "abcdefghijklmnopqrstuvwxyz0123456789+/")}`, "aws_secret_access_key = [redacted aws_secret_access_key]"],
      ["jwt", `eyJ${tail(20)}.eyJ${tail(30)}.${tail(43)}`, "[redacted jwt]"],
      ["authorization", "Authorization: Bearer abc.DEF-123_456~xyz", "Authorization: Bearer [redacted authorization]"],
      ["authorization", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [redacted authorization]"],
      ["url_credentials", "postgres://admin:hunter2@db.internal:5432/app", "postgres://[redacted url_credentials]db.internal:5432/app"],
      ["private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\nafter", "[redacted private_key]\nafter"],
      ["private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA (cut off)", "[redacted private_key]"],
    ])("redacts %s", (kind, input, expected) => {
      const result = redactSecrets(input);
      expect(result.value).toBe(expected);
      expect(result.kinds).toContain(kind);
    });
  });

  describe("on every common shape (issue 33's 32 and the generic ones)", () => {
    it.each(SECRET_SHAPES.map((entry) => [entry.shape, entry] as const))("redacts %s", (_shape, entry) => {
      const result = redactSecrets(entry.text);
      expect(leakedFragments(result.value, [entry])).toEqual([]);
      expect(result.kinds.length).toBeGreaterThan(0);
      expect(result.kinds.every((kind) => SECRET_KINDS.includes(kind))).toBe(true);
    });

    it("redacts them all inside one text, and a second pass changes nothing", () => {
      const once = redactSecrets(SECRET_SHAPES.map((entry) => entry.text).join("\n"));
      expect(leakedFragments(once.value)).toEqual([]);
      expect(redactSecrets(once.value)).toEqual({ value: once.value, kinds: [] });
    });

    it.each([
      ["a JSON password field", '{"password": "correct horse battery"}', '{"password": "[redacted generic_secret]"}'],
      ["an escaped JSON secret", String.raw`{\"client_secret\": \"abc123def456\"}`, String.raw`{\"client_secret\": \"[redacted generic_secret]\"}`],
      ["a query parameter", "https://x.test/cb?code=1&access_token=abcdef123456&state=2", "https://x.test/cb?code=1&access_token=[redacted generic_secret]&state=2"],
      ["a YAML assignment", "db:\n  password: hunter22\n  host: db", "db:\n  password: [redacted generic_secret]\n  host: db"],
    ])("keeps the key and redacts only the value of %s", (_what, input, expected) => {
      expect(redactSecrets(input).value).toBe(expected);
    });

    it("keeps at most 20 kinds (the bounded metric label)", () => {
      expect(SECRET_KINDS.length).toBeLessThanOrEqual(20);
      expect(new Set(SECRET_KINDS).size).toBe(SECRET_KINDS.length);
    });
  });

  describe("on ordinary text", () => {
    it.each([
      ["prose", "The task-runner ask-me-anything sk- page is fine."],
      ["a URL without credentials", "https://example.com:8080/path?x=1"],
      ["a short bearer word", "the Bearer of bad news"],
      ["the word token in prose", "the token expired12345 yesterday"],
      ["a UUID", "id 123e4567-e89b-12d3-a456-426614174000"],
      ["token counts", '{"max_tokens": 1024, "input_tokens": 88, "token_type": "bearer"}'],
      ["a password policy field", "password_min_length: 12, password_required: true"],
      ["a placeholder", 'api_key: "<your key>", password: "***"'],
      ["a session word in prose", "the session ended; sessions=3"],
      ["a URL with a short user", "ssh://git@github.com/org/repo.git"],
    ])("keeps %s", (_what, input) => {
      expect(redactSecrets(input)).toEqual({ value: input, kinds: [] });
    });
  });
});

describe("createSecretRedactor", () => {
  describe("with extra patterns", () => {
    it("redacts them after the defaults and names their kind", () => {
      const redactor = createSecretRedactor({ patterns: [{ kind: "acme_token", pattern: /acme_[a-z0-9]{8}/g }] });
      expect(redactor.redactText(`acme_12345678 and sk-${tail(40)}`)).toEqual({ value: "[redacted acme_token] and [redacted openai_api_key]", kinds: ["openai_api_key", "acme_token"] });
    });
  });

  describe("turned off", () => {
    it("keeps everything, with enabled: false or false", () => {
      const secret = `sk-${tail(40)}`;
      expect(createSecretRedactor({ enabled: false }).redactText(secret)).toEqual({ value: secret, kinds: [] });
      expect(createSecretRedactor(false).redactValue({ secret })).toEqual({ value: { secret }, kinds: [] });
    });
  });

  describe("redactValue", () => {
    it("redacts strings inside objects and arrays, copying only what changed", () => {
      const unchanged = { city: "Paris" };
      const input = { headers: { authorization: "Bearer abcdefghijklmnop" }, list: ["ok", `AIza${tail(35)}`], unchanged, count: 3 };
      const { value, kinds } = createSecretRedactor().redactValue(input);
      expect(value).toEqual({ headers: { authorization: "Bearer [redacted authorization]" }, list: ["ok", "[redacted google_api_key]"], unchanged, count: 3 });
      expect(value.unchanged).toBe(unchanged);
      expect(input.headers.authorization).toBe("Bearer abcdefghijklmnop");
      expect(kinds).toEqual(["authorization", "google_api_key"]);
    });

    it("keeps a __proto__ key an own key of the copy", () => {
      const input = JSON.parse('{"__proto__": {"token": "Bearer abcdefghijklmnop"}}') as Record<string, unknown>;
      const { value } = createSecretRedactor().redactValue(input);
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ token: "Bearer [redacted authorization]" });
    });

    it("stops at cycles", () => {
      const cyclic: Record<string, unknown> = { token: "Bearer abcdefghijklmnop" };
      cyclic.self = cyclic;
      const { value } = createSecretRedactor().redactValue(cyclic);
      expect((value as Record<string, unknown>).token).toBe("Bearer [redacted authorization]");
    });
  });

  describe("with invalid options", () => {
    it.each([
      [{ enabled: "yes" }, "enabled"],
      [{ patterns: "sk-" }, "patterns"],
      [{ patterns: [{ kind: "Bad Kind", pattern: /x/g }] }, "patterns[0].kind"],
      [{ patterns: [{ kind: "acme", pattern: /x/ }] }, "patterns[0].pattern"],
    ])("rejects %j naming the field", (options, field) => {
      expect(() => createSecretRedactor(options as never)).toThrow(SecretRedactionOptionsError);
      expect(() => createSecretRedactor(options as never)).toThrow(expect.objectContaining({ field }));
    });
  });

  describe("on hostile input", () => {
    // Each pattern's keywords repeated, glued to the characters its body accepts and to the
    // separators that end it: 100 KB+ of near-matches for every rule. Growth is measured by the
    // hostile-text bench (examples/bench/hostile-text-bench.ts); here each must just complete.
    const hostile = DEFAULT_SECRET_PATTERNS.flatMap((entry) =>
      (entry.keywords ?? ["x"]).flatMap((keyword) => [
        [`${entry.kind} ${keyword} repeated`, keyword.repeat(Math.ceil(120_000 / keyword.length))],
        [`${entry.kind} ${keyword} + body`, `${keyword}=aB3dE5fG7hJ9kL1m:`.repeat(Math.ceil(120_000 / (keyword.length + 18)))],
        [`${entry.kind} ${keyword} + line breaks`, `${keyword}: eyJabc.\n`.repeat(Math.ceil(120_000 / (keyword.length + 9)))],
      ]),
    );
    it.each(hostile.slice(0, 400))("completes on %s", (_what, text) => {
      expect(text.length).toBeGreaterThanOrEqual(100_000);
      expect(typeof createSecretRedactor().redactText(text).value).toBe("string");
    });

    it("stays linear on long runs of near-matches", () => {
      const text = `${"sk-".repeat(20_000)}${"Bearer ".repeat(20_000)}${"-----BEGIN PRIVATE KEY-----".repeat(2_000)}`;
      expect(createSecretRedactor().redactText(text).value.length).toBeGreaterThan(0);
      expect(DEFAULT_SECRET_PATTERNS.every((entry) => entry.pattern.global)).toBe(true);
    });
  });
});
