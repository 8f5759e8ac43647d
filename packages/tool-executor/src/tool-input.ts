import { isRecord } from "@reins/core";
import {
  extendInteropZodObject,
  interopSafeParseAsync,
  isInteropZodObject,
  isInteropZodSchema,
  isZodSchemaV3,
  type InteropZodIssue,
  type InteropZodObject,
  type InteropZodType,
} from "@langchain/core/utils/types";
import { z as zodV3 } from "zod/v3";
import { z as zodV4 } from "zod/v4";
import type { ToolInputIssue } from "./errors";
import { MODEL_MESSAGES } from "./messages";
import type { ResolvedToolPolicy } from "./tool-policy";

/** How a wrapped tool takes its input. */
export type ToolInputKind = "string" | "object";

/** What {@link prepareToolInput} needs to know about the tool. */
export interface ToolInputTarget {
  readonly toolName: string;
  readonly kind: ToolInputKind;
  /** The original tool's schema. */
  readonly schema: unknown;
  readonly policy: ResolvedToolPolicy;
}

/** An accepted input. */
export interface PreparedToolInput {
  readonly toolInput: unknown;
  /** The `confirm` value the model wrote for a side-effect tool (removed from `toolInput`), if any. */
  readonly confirmation: unknown;
  /** The input with its `confirm` field, for a user's `confirmWhen`. */
  readonly confirmationInput: unknown;
  /**
   * The JSON text an object input was parsed from, when no hook (`validate`, `sanitize`) or
   * confirmation rewrote it: the cache key keeps its number literals as written.
   */
  readonly sourceText?: string;
}

/** A rejected input: field-level issues and the observation for the model. */
export interface RejectedToolInput {
  readonly issues: ToolInputIssue[];
  readonly observation: string;
}

/** `{"input": "…", "confirm": "<token>"}` written as the text of a string-input side-effect tool. */
function confirmedStringInput(text: string): { input: string; confirm: unknown } | undefined {
  const trimmed = stripCodeFence(text);
  if (!trimmed.startsWith("{") || !trimmed.includes("confirm")) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    if (isRecord(value) && typeof value.input === "string" && "confirm" in value && Object.keys(value).length === 2) return { input: value.input, confirm: value.confirm };
  } catch {
    // Not the confirmation form: the text is the input.
  }
  return undefined;
}

function stripCodeFence(text: string): string {
  const trimmed = text.trim();
  const fenced = /^```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)\n?```$/.exec(trimmed);
  return fenced === null ? trimmed : fenced[1].trim();
}

function issuesOf(issues: readonly InteropZodIssue[]): ToolInputIssue[] {
  return issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));
}

function describeSchemaFields(schema: unknown): string | undefined {
  if (!isInteropZodObject(schema)) return undefined;
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  if (!isRecord(shape)) return undefined;
  const keys = Object.keys(shape);
  return keys.length === 0 ? undefined : `an object with ${keys.map((key) => `"${key}"`).join(", ")}`;
}

type SafeParseResult = { success: true; data: unknown } | { success: false; error: { issues: readonly InteropZodIssue[] } };

/**
 * Parses with the schema's own `safeParseAsync` when it has one (zod v3 and classic zod v4), so
 * issue messages come from the schema's own zod copy with its locale ("Invalid input: expected
 * number, received string"); `@langchain/core` 0.3 parses v4 schemas with a locale-less
 * `zod/v4/core` that only says "Invalid input". Other schemas go through `interopSafeParseAsync`.
 */
async function safeParse(schema: InteropZodType, value: unknown): Promise<SafeParseResult> {
  const own = (schema as { safeParseAsync?: unknown }).safeParseAsync;
  if (typeof own === "function") return (await (own as (input: unknown) => Promise<SafeParseResult>).call(schema, value));
  return (await interopSafeParseAsync(schema, value)) as SafeParseResult;
}

/**
 * The input exactly, as compact JSON: a string in quotes with its escapes (so every space, line
 * break and quote shows), an object as `JSON.stringify` writes it. `undefined` when the value
 * cannot be written as JSON (a circular object, a BigInt).
 */
export function inputJsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value ?? null);
  } catch {
    return undefined;
  }
}

/** The input as compact JSON for a log or callback (bounded to 400 characters). */
export function previewText(value: unknown): string {
  const text = inputJsonText(value);
  if (text === undefined) return "(unprintable input)";
  return text.length > 400 ? `${text.slice(0, 399)}…` : text;
}

/** What a dry run shows of an input: its exact JSON text when within `maxChars`, else its start with the cut marked. */
export interface DryRunInputText {
  readonly text: string;
  /** Whether `text` is the whole input (only then may a token confirm it). */
  readonly whole: boolean;
}

/**
 * The input as a side-effect tool's dry run shows it: whole up to `maxChars` characters of its
 * JSON text ({@link inputJsonText}); a longer input shows its first `maxChars` characters (never
 * half a surrogate pair) and how many more were left out. An input that cannot be written as JSON
 * is never whole.
 */
export function dryRunInputText(value: unknown, maxChars: number): DryRunInputText {
  const text = inputJsonText(value);
  if (text === undefined) return { text: "(unprintable input)", whole: false };
  if (text.length <= maxChars) return { text, whole: true };
  let cut = maxChars;
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return { text: `${text.slice(0, cut)}… (${text.length - cut} more characters not shown)`, whole: false };
}

/**
 * Parses, validates and sanitises a tool input, and extracts the side-effect confirmation (the
 * `confirm` value; whether it confirms is decided in `confirmation.ts`).
 * String tools accept a string, `{ input }` (a `ToolCall`'s args) or nothing; object-schema tools
 * accept an object or JSON text (a code fence around it is removed), validated against the
 * original schema (zod v3/v4) and then the policy's `validate` schema.
 *
 * @returns the input to run with and whether it is confirmed, or the issues and the model-facing
 *   observation that rejects it
 */
export async function prepareToolInput(
target: ToolInputTarget,
rawInput: unknown,
): Promise<PreparedToolInput | RejectedToolInput> {
const { policy, toolName } = target;
  let toolInput: unknown;
  let confirmation: unknown;
  let confirmationInput: unknown = rawInput;
  let sourceText: string | undefined;
  if (target.kind === "string") {
    if (typeof rawInput === "string") toolInput = rawInput;
    else if (rawInput === undefined || rawInput === null) toolInput = "";
    else if (isRecord(rawInput) && Object.keys(rawInput).length <= 2 && (typeof rawInput.input === "string" || rawInput.input === undefined) && Object.keys(rawInput).every((key) => key === "input" || key === "confirm")) {
      toolInput = rawInput.input ?? "";
      confirmation = rawInput.confirm;
    } else toolInput = inputJsonText(rawInput) ?? previewText(rawInput);
    if (policy.sideEffects && typeof toolInput === "string") {
      const confirmed = confirmedStringInput(toolInput);
      if (confirmed !== undefined) {
        confirmationInput = { input: confirmed.input, confirm: confirmed.confirm };
        toolInput = confirmed.input;
        confirmation = confirmed.confirm;
      }
    }
  } else {
    let value = rawInput;
    if (typeof value === "string") {
      const text = stripCodeFence(value);
      try {
        value = JSON.parse(text);
        sourceText = text;
      } catch {
        const expected = describeSchemaFields(target.schema) ?? "see the tool description";
        return { issues: [{ path: "", message: "input is not JSON" }], observation: MODEL_MESSAGES.notJson(toolName, expected) };
      }
    }
    if (value === undefined || value === null) value = {};
    if (!isRecord(value)) {
      const expected = describeSchemaFields(target.schema) ?? "see the tool description";
      return { issues: [{ path: "", message: "input must be a JSON object" }], observation: MODEL_MESSAGES.notJson(toolName, expected) };
    }
    if (policy.sideEffects) {
      confirmationInput = value;
      confirmation = value.confirm;
      if ("confirm" in value) {
        const { confirm: _confirm, ...rest } = value;
        value = rest;
        sourceText = undefined;
      }
    }
    if (isInteropZodSchema(target.schema)) {
      const parsed = await safeParse(target.schema as InteropZodType, value);
      if (!parsed.success) {
        const issues = issuesOf(parsed.error.issues);
        return { issues, observation: MODEL_MESSAGES.invalidInput(toolName, issues, describeSchemaFields(target.schema)) };
      }
    }
    toolInput = value;
  }
  if (policy.validate !== undefined) {
    const parsed = await safeParse(policy.validate, toolInput);
    if (!parsed.success) {
      const issues = issuesOf(parsed.error.issues);
      return { issues, observation: MODEL_MESSAGES.invalidInput(toolName, issues) };
    }
    toolInput = parsed.data;
  }
  if (policy.sanitize !== undefined) toolInput = await policy.sanitize(toolInput, { toolName });
  const unchanged = sourceText !== undefined && policy.validate === undefined && policy.sanitize === undefined;
  return unchanged ? { toolInput, confirmation, confirmationInput, sourceText } : { toolInput, confirmation, confirmationInput };
}

/**
 * Adds an optional `confirm` (the dry run's token; a boolean is accepted and gets the dry run) to an object schema (zod v3, zod v4 or JSON schema). */
export function withConfirmField(schema: unknown): unknown {
  const description = "The confirmation token from this tool's dry-run preview; set it only to really perform the previewed action. Without it you get the dry-run preview.";
  try {
    if (isInteropZodObject(schema)) {
      const confirm = isZodSchemaV3(schema) ? zodV3.union([zodV3.string(), zodV3.boolean()]).optional().describe(description) : zodV4.union([zodV4.string(), zodV4.boolean()]).optional().describe(description);
      return extendInteropZodObject(schema as InteropZodObject, { confirm } as never);
    }
  } catch {
    return schema;
  }
  if (isRecord(schema) && schema.type === "object" && !isInteropZodSchema(schema)) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    return { ...schema, properties: { ...properties, confirm: { type: ["string", "boolean"], description } } };
  }
  return schema;
}
