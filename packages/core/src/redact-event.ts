/**
 * Redaction at the one place where things leave Reins: every event (through {@link emitEvent}),
 * every log line's message and fields, every error a sink reads. One redactor serves all of them,
 * so an `onEvent` listener, a recorder that captures content, an OpenTelemetry span status and a
 * logger all receive the same redacted text.
 */
import type { SecretRedactor } from "./secret-redaction";

const MAX_ERROR_DEPTH = 8;

// Identity and closed-set fields of events: never text from outside, left as they are.
const IDENTITY_FIELDS: ReadonlySet<string> = new Set([
  "type",
  "runId",
  "toolName",
  "callId",
  "kind",
  "kinds",
  "surface",
  "reason",
  "repair",
  "step",
  "phase",
  "status",
  "stopReason",
  "outcome",
  "state",
  "operation",
  "level",
]);

/** What a redaction of a record did: the (possibly copied) record and the kinds removed. */
export interface RecordRedaction<T> {
  readonly value: T;
  readonly kinds: readonly string[];
}

/**
 * An error whose message, stack, string fields and `cause` chain are redacted: the same error
 * when nothing changed, else a copy with the same prototype (so `instanceof`, `name` and a
 * `Symbol.for` brand still hold) and the original's own fields. The original is never mutated:
 * the caller that threw it keeps it as it was.
 *
 * @param error - the error to redact
 * @param redactor - the redactor (see `createSecretRedactor`)
 * @returns the error (or its redacted copy) and the kinds removed
 */
export function redactError<E extends Error>(error: E, redactor: SecretRedactor): RecordRedaction<E> {
  return redactErrorAt(error, redactor, 0);
}

function redactErrorAt<E extends Error>(error: E, redactor: SecretRedactor, depth: number): RecordRedaction<E> {
  if (!redactor.enabled || depth > MAX_ERROR_DEPTH) return { value: error, kinds: [] };
  const kinds: string[] = [];
  let changed = false;
  const descriptors = Object.getOwnPropertyDescriptors(error) as Record<string | symbol, PropertyDescriptor>;
  for (const key of Reflect.ownKeys(descriptors)) {
    const descriptor = descriptors[key as string];
    if (descriptor === undefined || !("value" in descriptor)) continue;
    const field = descriptor.value as unknown;
    let next: unknown = field;
    if (typeof field === "string") {
      const redacted = redactor.redactText(field);
      next = redacted.value;
      kinds.push(...redacted.kinds);
    } else if (field instanceof Error) {
      const redacted = redactErrorAt(field, redactor, depth + 1);
      next = redacted.value;
      kinds.push(...redacted.kinds);
    } else if (typeof field === "object" && field !== null) {
      const redacted = redactor.redactValue(field);
      next = redacted.value;
      kinds.push(...redacted.kinds);
    }
    if (next !== field) {
      descriptors[key as string] = { ...descriptor, value: next };
      changed = true;
    }
  }
  // A message or stack inherited or held in an accessor is not an own data field: read it too.
  if (!("message" in descriptors) || !("value" in (descriptors.message ?? {}))) {
    const message = redactor.redactText(String(error.message ?? ""));
    if (message.value !== String(error.message ?? "")) {
      descriptors.message = { value: message.value, writable: true, enumerable: false, configurable: true };
      kinds.push(...message.kinds);
      changed = true;
    }
  }
  if (!changed) return { value: error, kinds };
  const copy = Object.create(Object.getPrototypeOf(error) as object | null, descriptors) as E;
  return { value: copy, kinds };
}

/**
 * Redacts every text field of a record (an event, a log line's fields): strings, JSON-like values
 * and errors, leaving identity and closed-set fields (`type`, `runId`, `toolName`, `outcome`, …)
 * as they are. Returns the same record when nothing changed.
 *
 * @param record - the record
 * @param redactor - the redactor
 * @returns the record (or its redacted copy) and the kinds removed
 */
export function redactRecord<T extends object>(record: T, redactor: SecretRedactor): RecordRedaction<T> {
  if (!redactor.enabled) return { value: record, kinds: [] };
  const kinds: string[] = [];
  let copy: Record<string, unknown> | undefined;
  for (const [key, field] of Object.entries(record)) {
    if (IDENTITY_FIELDS.has(key) || field === undefined || field === null || typeof field === "number" || typeof field === "boolean") continue;
    const redacted = field instanceof Error ? redactError(field, redactor) : redactor.redactValue(field);
    if (redacted.value !== field) {
      copy ??= { ...(record as Record<string, unknown>) };
      copy[key] = redacted.value;
    }
    kinds.push(...redacted.kinds);
  }
  return { value: (copy ?? record) as T, kinds };
}
