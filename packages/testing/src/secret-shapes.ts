/**
 * The common secret shapes every sink is tested against (issue 33): each a text as it shows up in a
 * question, a tool input, a tool result, a tool error or an answer, and the fragments of it that
 * must never leave Reins. Built at run time from a deterministic alphabet, so no secret-looking
 * literal sits in the source (secret scanners would flag it).
 */

/** `length` characters of `alphabet`, deterministic. */
export function secretTail(length: number, alphabet = "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYz"): string {
  return Array.from({ length }, (_, index) => alphabet[(index * 7 + length) % alphabet.length]).join("");
}

/** One secret shape: `text` holds it, `fragments` are the parts that must not reach a sink. */
export interface SecretShape {
  readonly shape: string;
  /** Whether the shape was already redacted before issue 33 (the first 16) or was added by it. */
  readonly since: "before" | "issue-33" | "extra";
  readonly text: string;
  readonly fragments: readonly string[];
}

const HEX = "0123456789abcdef";
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const B64 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/";

const shape = (name: string, since: SecretShape["since"], text: string, ...fragments: string[]): SecretShape => Object.freeze({ shape: name, since, text, fragments: Object.freeze(fragments) });

const jwtHeader = `eyJ${secretTail(30)}`;
const jwtPayload = `eyJ${secretTail(60)}`;
const jwtSignature = secretTail(43);
const wrappedPayload = `eyJ${secretTail(70, "QRSTUVWXYZabcdefghij0123456789")}`;
const pemBody = secretTail(64, B64);
const pgpBody = secretTail(64, B64.slice(10));

/** The 32 shapes of issue 33 (16 covered before it, 16 it adds) and a few more generic ones. */
export const SECRET_SHAPES: readonly SecretShape[] = Object.freeze([
  shape("openai key", "before", `key=sk-${secretTail(48)} end`, `sk-${secretTail(48)}`),
  shape("openai project key", "before", `sk-proj-${secretTail(64)}`, secretTail(64)),
  shape("anthropic key", "before", `anthropic key sk-ant-api03-${secretTail(80)}`, secretTail(80)),
  shape("google api key", "before", `?key=AIza${secretTail(35)}&q=1`, `AIza${secretTail(35)}`),
  shape("github classic token", "before", `token ghp_${secretTail(36)}`, `ghp_${secretTail(36)}`),
  shape("github fine-grained token", "before", `github_pat_${secretTail(60, "abcdefghijklmnop_0123456789")}`, secretTail(60, "abcdefghijklmnop_0123456789")),
  shape("slack token", "before", `xoxb-1234567890-${secretTail(24)}`, secretTail(24)),
  shape("stripe key", "before", `sk_live_${secretTail(24)}`, `sk_live_${secretTail(24)}`),
  shape("aws access key id", "before", `id AKIA${secretTail(16, UPPER)} ok`, `AKIA${secretTail(16, UPPER)}`),
  shape("aws secret access key", "before", `aws_secret_access_key = ${secretTail(40, B64)}`, secretTail(40, B64)),
  shape("jwt", "before", `token ${jwtHeader}.${jwtPayload}.${jwtSignature} used`, jwtPayload, jwtSignature),
  shape("bearer header", "before", `Authorization: Bearer ${secretTail(32)}.x-y`, secretTail(32)),
  shape("basic header", "before", `Authorization: Basic ${secretTail(28, B64)}==`, secretTail(28, B64)),
  shape("credentials in a URL", "before", `postgres://admin:${secretTail(14)}@db.internal:5432/app`, secretTail(14)),
  shape("rsa private key", "before", `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----\nafter`, pemBody),
  shape("openssh private key", "before", `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA${pemBody} (cut off)`, pemBody),
  shape("aws session token", "issue-33", `AWS_SESSION_TOKEN=FwoGZXIvYXdzE${secretTail(200, B64)}`, secretTail(200, B64).slice(0, 40)),
  shape("gitlab token", "issue-33", `glpat-${secretTail(20)}`, secretTail(20)),
  shape("stripe webhook secret", "issue-33", `whsec_${secretTail(32)}`, secretTail(32)),
  shape("google oauth client secret", "issue-33", `client secret GOCSPX-${secretTail(28)}`, secretTail(28)),
  shape("jwt wrapped over two lines", "issue-33", `${jwtHeader}.${wrappedPayload.slice(0, 40)}\n${wrappedPayload.slice(40)}.${jwtSignature}`, wrappedPayload.slice(10, 40), wrappedPayload.slice(40), jwtSignature),
  shape("x-api-key header", "issue-33", `x-api-key: ${secretTail(32, HEX)}`, secretTail(32, HEX)),
  shape("api_key in a URL", "issue-33", `https://api.example.com/v1/items?api_key=${secretTail(24)}&page=2`, secretTail(24)),
  shape("password in JSON", "issue-33", `{"user": "ada", "password": "${secretTail(14)}"}`, secretTail(14)),
  shape("redis URL with only a password", "issue-33", `redis://:${secretTail(18)}@cache.internal:6379/0`, secretTail(18)),
  shape("pgp private key block", "issue-33", `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${pgpBody}\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----`, pgpBody),
  shape("azure storage account key", "issue-33", `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${secretTail(86, B64)}==;EndpointSuffix=core.windows.net`, secretTail(86, B64).slice(0, 40)),
  shape("hugging face token", "issue-33", `hf_${secretTail(34)}`, secretTail(34)),
  shape("langsmith key", "issue-33", `lsv2_pt_${secretTail(32, HEX)}_${secretTail(10, HEX)}`, secretTail(32, HEX)),
  shape("npm token", "issue-33", `//registry.npmjs.org/:_authToken=npm_${secretTail(36)}`, secretTail(36)),
  shape("sendgrid key", "issue-33", `SG.${secretTail(22)}.${secretTail(43)}`, secretTail(22), secretTail(43)),
  shape("session cookie", "issue-33", `Cookie: theme=dark; sessionid=${secretTail(32, HEX)}`, secretTail(32, HEX)),
  shape("generic assignment", "extra", `DB_PASSWORD=${secretTail(16)}`, secretTail(16)),
  shape("password in escaped JSON", "extra", `{\\"user\\": \\"ada\\", \\"password\\": \\"${secretTail(15)}\\"}`, secretTail(15)),
  shape("set-cookie session", "extra", `Set-Cookie: connect.sid=s%3A${secretTail(30)}; Path=/; HttpOnly`, secretTail(30)),
]);

/** The fragments of `shapes` found in `text` (empty: nothing leaked). */
export function leakedFragments(text: string, shapes: readonly SecretShape[] = SECRET_SHAPES): string[] {
  return shapes.flatMap((entry) => entry.fragments.filter((fragment) => text.includes(fragment)).map((fragment) => `${entry.shape}: ${fragment}`));
}
