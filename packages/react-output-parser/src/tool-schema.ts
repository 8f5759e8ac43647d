import { isRecord } from "@reins/core";
import { safeParse as safeParseZodV4, type $ZodType } from "zod/v4/core";

/**
 * How a tool takes its input, as far as the parser needs to know:
 * - `"string"`: one text input (LangChain's `Tool`/`DynamicTool`, `tool()` with `z.string()`, a JSON
 *   schema of type string, or no schema at all);
 * - `"object"`: an object schema with arguments (zod v3/v4 object, JSON schema of type object);
 * - `"none"`: an object schema without any argument (`z.object({})`, `{ type: "object", properties: {} }`).
 */
export type ToolInputKind = "string" | "object" | "none";

/** One field error found when checking a tool input against the tool's schema. */
export interface ToolInputIssue {
  /** Dotted path of the field (`""` for the whole input). */
  readonly path: string;
  readonly message: string;
}

/** What the parser knows about one registered tool. */
export interface ToolInputSpec {
  readonly name: string;
  readonly kind: ToolInputKind;
  /** Argument names declared by the schema (object tools). */
  readonly properties: readonly string[];
  /** Argument names the schema requires (object tools). */
  readonly required: readonly string[];
  /** Argument type names where known (`string`, `number`, …), for messages and single-field wrapping. */
  readonly propertyTypes: Readonly<Record<string, string>>;
  /**
   * Whether the schema says it takes argument names it does not declare: zod `.passthrough()`,
   * `z.looseObject`, a `.catchall()`, a record or `any`; JSON schema `additionalProperties: true`
   * or a schema. Otherwise an undeclared name is refused ({@link unknownArgumentNames}), even
   * where the schema itself would strip it silently (zod's default) or say nothing about it.
   * @default false
   */
  readonly acceptsUnknownArguments?: boolean;
  /** Checks a parsed object input; `undefined` when the schema cannot be checked synchronously. */
  readonly validate?: (value: unknown) => readonly ToolInputIssue[];
}

/** A LangChain tool as the parser sees it: a name and (optionally) an input schema. */
export interface ParserTool {
  readonly name: string;
  /** A zod v3 or v4 schema, or a JSON schema object. */
  readonly schema?: unknown;
}

type UnknownRecord = Record<string, unknown>;


interface SchemaShape {
  kind: ToolInputKind | "unknown";
  properties: string[];
  required: string[];
  propertyTypes: Record<string, string>;
  acceptsUnknownArguments: boolean;
}

const STRING_SHAPE: SchemaShape = { kind: "string", properties: [], required: [], propertyTypes: {}, acceptsUnknownArguments: false };
const ANY_OBJECT_SHAPE: SchemaShape = { kind: "object", properties: [], required: [], propertyTypes: {}, acceptsUnknownArguments: true };

/**
 * @param open - the schema may take more keys (a no-property schema is then not a no-argument tool)
 * @param acceptsUnknown - the schema says so explicitly (see `ToolInputSpec.acceptsUnknownArguments`)
 */
function objectShape(properties: string[], required: string[], propertyTypes: Record<string, string>, open: boolean, acceptsUnknown: boolean = open): SchemaShape {
  if (properties.length === 0 && !open) return { kind: "none", properties, required, propertyTypes, acceptsUnknownArguments: false };
  return { kind: "object", properties, required, propertyTypes, acceptsUnknownArguments: acceptsUnknown };
}

// zod v4 (classic and mini): schema._zod.def.type
function zodV4TypeName(schema: unknown): string | undefined {
  if (!isRecord(schema) || !isRecord(schema._zod) || !isRecord(schema._zod.def)) return undefined;
  const type = schema._zod.def.type;
  return typeof type === "string" ? type : undefined;
}

function unwrapZodV4(schema: unknown, depth = 0): { schema: unknown; transformed: boolean } {
  let current = schema;
  let transformed = false;
  for (let step = 0; step < 20 + depth; step += 1) {
    const type = zodV4TypeName(current);
    const def = (current as { _zod: { def: UnknownRecord } })._zod?.def;
    if (type === "optional" || type === "nullable" || type === "default" || type === "prefault" || type === "readonly" || type === "catch" || type === "nonoptional") {
      current = def.innerType;
    } else if (type === "pipe") {
      transformed = true;
      current = def.in;
    } else {
      break;
    }
  }
  return { schema: current, transformed };
}

function describeZodV4(schema: unknown): SchemaShape {
  const { schema: inner, transformed } = unwrapZodV4(schema);
  const type = zodV4TypeName(inner);
  if (type === "string") return STRING_SHAPE;
  if (type !== "object") return type === "record" || type === "any" || type === "unknown" ? ANY_OBJECT_SHAPE : { ...ANY_OBJECT_SHAPE, kind: "unknown" };
  const def = (inner as { _zod: { def: UnknownRecord } })._zod.def;
  const shape = isRecord(def.shape) ? def.shape : {};
  const properties = Object.keys(shape);
  const required: string[] = [];
  const propertyTypes: Record<string, string> = {};
  for (const key of properties) {
    const field = shape[key] as { _zod?: { optin?: string } };
    if (field?._zod?.optin !== "optional") required.push(key);
    const fieldType = zodV4TypeName(unwrapZodV4(field).schema);
    if (fieldType !== undefined) propertyTypes[key] = fieldType;
  }
  // LangChain's string tools are z.object({ input: z.string().optional() }).transform(...).
  if (transformed && properties.length === 1 && properties[0] === "input" && propertyTypes.input === "string") return STRING_SHAPE;
  const catchallType = zodV4TypeName(def.catchall);
  const open = catchallType !== undefined && catchallType !== "never";
  return objectShape(properties, required, propertyTypes, open);
}

// zod v3: schema._def.typeName
function zodV3TypeName(schema: unknown): string | undefined {
  if (!isRecord(schema) || !isRecord(schema._def)) return undefined;
  const typeName = schema._def.typeName;
  return typeof typeName === "string" ? typeName : undefined;
}

function unwrapZodV3(schema: unknown): { schema: unknown; transformed: boolean } {
  let current = schema;
  let transformed = false;
  for (let step = 0; step < 20; step += 1) {
    const typeName = zodV3TypeName(current);
    const def = (current as { _def: UnknownRecord })._def;
    if (typeName === "ZodOptional" || typeName === "ZodNullable" || typeName === "ZodDefault" || typeName === "ZodReadonly" || typeName === "ZodCatch" || typeName === "ZodBranded") {
      current = def.innerType ?? def.type;
    } else if (typeName === "ZodEffects") {
      transformed = true;
      current = def.schema;
    } else if (typeName === "ZodPipeline") {
      transformed = true;
      current = def.in;
    } else {
      break;
    }
  }
  return { schema: current, transformed };
}

const ZOD_V3_TYPE_NAMES: Readonly<Record<string, string>> = {
  ZodString: "string",
  ZodNumber: "number",
  ZodBigInt: "bigint",
  ZodBoolean: "boolean",
  ZodArray: "array",
  ZodObject: "object",
  ZodEnum: "enum",
  ZodLiteral: "literal",
  ZodDate: "date",
  ZodRecord: "record",
};

function describeZodV3(schema: unknown): SchemaShape {
  const { schema: inner, transformed } = unwrapZodV3(schema);
  const typeName = zodV3TypeName(inner);
  if (typeName === "ZodString") return STRING_SHAPE;
  if (typeName !== "ZodObject") return typeName === "ZodRecord" || typeName === "ZodAny" || typeName === "ZodUnknown" ? ANY_OBJECT_SHAPE : { ...ANY_OBJECT_SHAPE, kind: "unknown" };
  const def = (inner as { _def: UnknownRecord })._def;
  const rawShape = typeof def.shape === "function" ? (def.shape as () => unknown)() : def.shape;
  const shape = isRecord(rawShape) ? rawShape : {};
  const properties = Object.keys(shape);
  const required: string[] = [];
  const propertyTypes: Record<string, string> = {};
  for (const key of properties) {
    const field = shape[key] as { isOptional?: () => boolean };
    let optional = false;
    try {
      optional = typeof field?.isOptional === "function" ? field.isOptional() : false;
    } catch {
      optional = false;
    }
    if (!optional) required.push(key);
    const fieldTypeName = zodV3TypeName(unwrapZodV3(field).schema);
    const fieldType = fieldTypeName !== undefined ? ZOD_V3_TYPE_NAMES[fieldTypeName] : undefined;
    if (fieldType !== undefined) propertyTypes[key] = fieldType;
  }
  if (transformed && properties.length === 1 && properties[0] === "input" && propertyTypes.input === "string") return STRING_SHAPE;
  const catchallTypeName = zodV3TypeName(def.catchall);
  const open = def.unknownKeys === "passthrough" || (catchallTypeName !== undefined && catchallTypeName !== "ZodNever");
  return objectShape(properties, required, propertyTypes, open);
}

function jsonSchemaTypeOf(schema: UnknownRecord): string | undefined {
  const type = schema.type;
  if (typeof type === "string") return type;
  if (Array.isArray(type)) return type.find((entry): entry is string => typeof entry === "string" && entry !== "null");
  if (isRecord(schema.properties)) return "object";
  return undefined;
}

function describeJsonSchema(schema: UnknownRecord): SchemaShape {
  const type = jsonSchemaTypeOf(schema);
  if (type === "string") return STRING_SHAPE;
  if (type !== "object") return { ...ANY_OBJECT_SHAPE, kind: "unknown" };
  const properties = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
  const required = Array.isArray(schema.required) ? schema.required.filter((entry): entry is string => typeof entry === "string") : [];
  const propertyTypes: Record<string, string> = {};
  for (const key of properties) {
    const property = (schema.properties as UnknownRecord)[key];
    const propertyType = isRecord(property) ? jsonSchemaTypeOf(property) : undefined;
    if (propertyType !== undefined) propertyTypes[key] = propertyType;
  }
  const additional = schema.additionalProperties;
  // No properties and no statement about extra keys is how no-argument tools are usually declared.
  const open = additional === true || isRecord(additional) || (additional === undefined && properties.length > 0);
  // Only an explicit statement lets a call use names the schema does not declare.
  return objectShape(properties, required, propertyTypes, open, additional === true || isRecord(additional));
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((segment) => String(segment)).join(".");
}

function zodIssues(result: unknown): readonly ToolInputIssue[] {
  if (!isRecord(result) || result.success === true) return [];
  const error = result.error as { issues?: Array<{ path?: PropertyKey[]; message?: string }> } | undefined;
  const issues = error?.issues ?? [];
  if (issues.length === 0) return [{ path: "", message: "the input does not match the tool's schema" }];
  return issues.map((issue) => ({ path: formatPath(issue.path ?? []), message: issue.message ?? "invalid value" }));
}

function jsonTypeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return isRecord(value);
    case "null":
      return value === null;
    default:
      return true;
  }
}

function validateJsonSchemaObject(schema: UnknownRecord, value: unknown): readonly ToolInputIssue[] {
  if (!isRecord(value)) return [{ path: "", message: "expected a JSON object" }];
  const issues: ToolInputIssue[] = [];
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const key of required) {
    if (typeof key === "string" && !(key in value)) issues.push({ path: key, message: "required argument is missing" });
  }
  for (const [key, fieldValue] of Object.entries(value)) {
    const property = properties[key];
    if (property === undefined) {
      if (schema.additionalProperties === false) issues.push({ path: key, message: "unknown argument" });
      continue;
    }
    if (!isRecord(property)) continue;
    const types = typeof property.type === "string" ? [property.type] : Array.isArray(property.type) ? property.type.filter((entry): entry is string => typeof entry === "string") : [];
    if (types.length > 0 && !types.some((type) => jsonTypeMatches(type, fieldValue))) {
      issues.push({ path: key, message: `expected ${types.join(" or ")}` });
    } else if (Array.isArray(property.enum) && !property.enum.some((option) => option === fieldValue)) {
      issues.push({ path: key, message: `expected one of ${property.enum.map((option) => JSON.stringify(option)).join(", ")}` });
    }
  }
  return issues;
}

/**
 * Fields a call may carry besides a tool's declared ones: the `ToolExecutor`'s dry-run
 * confirmation (`"confirm": "<token>"`), which it removes before the tool runs.
 */
const WRAPPER_FIELDS: ReadonlySet<string> = new Set(["confirm"]);

/**
 * The argument names of a call that its tool does not take: names the object schema does not
 * declare (the `ToolExecutor`'s `confirm` aside), unless the schema accepts undeclared names
 * (`acceptsUnknownArguments`). One rule for every reader (the ReAct parser's Action Input, the
 * `createAgent` tool-call repair): such a call gets a correction naming the names, instead of
 * running with them dropped by the schema (`city_name` for `city`) or ignored by the tool.
 *
 * @param spec - the tool's input spec ({@link describeToolInput})
 * @param args - the call's arguments
 * @returns the undeclared names in the order written; empty for string and no-argument tools,
 *   for schemas the parser cannot read (no declared names) and for open schemas
 */
export function unknownArgumentNames(spec: ToolInputSpec, args: Readonly<Record<string, unknown>>): readonly string[] {
  if (spec.kind !== "object" || spec.properties.length === 0 || spec.acceptsUnknownArguments === true) return [];
  return Object.keys(args).filter((key) => !spec.properties.includes(key) && !WRAPPER_FIELDS.has(key));
}

/**
 * Reads a tool's input schema (zod v3, zod v4, or JSON schema) into what the parser needs: the input
 * kind, the argument names, and a synchronous validator.
 *
 * @param tool - a LangChain tool or any `{ name, schema? }`
 * @returns the tool's input spec; a schema the parser cannot read counts as an object schema with
 *   any keys, validated by the schema itself when it can be run synchronously
 */
export function describeToolInput(tool: ParserTool): ToolInputSpec {
  const schema = tool.schema;
  const base = { name: tool.name };
  if (schema === undefined || schema === null) return { ...base, kind: "string", properties: [], required: [], propertyTypes: {}, acceptsUnknownArguments: false };
  if (zodV4TypeName(schema) !== undefined) {
    const shape = describeZodV4(schema);
    if (shape.kind === "string") return { ...base, ...shape, kind: "string" };
    return {
      ...base,
      ...shape,
      kind: shape.kind === "unknown" ? "object" : shape.kind,
      validate: (value) => {
        try {
          return zodIssues(safeParseZodV4(schema as $ZodType, value));
        } catch {
          // Async refinements cannot run here; the tool validates them itself.
          return [];
        }
      },
    };
  }
  if (zodV3TypeName(schema) !== undefined) {
    const shape = describeZodV3(schema);
    if (shape.kind === "string") return { ...base, ...shape, kind: "string" };
    const zodSchema = schema as { safeParse?: (value: unknown) => unknown };
    return {
      ...base,
      ...shape,
      kind: shape.kind === "unknown" ? "object" : shape.kind,
      validate: (value) => {
        try {
          return typeof zodSchema.safeParse === "function" ? zodIssues(zodSchema.safeParse(value)) : [];
        } catch {
          return [];
        }
      },
    };
  }
  if (isRecord(schema)) {
    const shape = describeJsonSchema(schema);
    if (shape.kind === "string") return { ...base, ...shape, kind: "string" };
    return {
      ...base,
      ...shape,
      kind: shape.kind === "unknown" ? "object" : shape.kind,
      validate: (value) => validateJsonSchemaObject(schema, value),
    };
  }
  return { ...base, kind: "string", properties: [], required: [], propertyTypes: {}, acceptsUnknownArguments: false };
}
