import { listOf, sentence } from "../core/errors.js";
import { subjectOf } from "./wire-fields.js";

/*
 * The schema validator's (Ajv's) errors as the error model's details: one per broken rule, each a
 * sentence naming the wire path ("Query parameter take must be at most 100."), instead of Ajv's
 * "must be <= 100" fragments. docs/decisions/0097.
 */

/**
 * The validator's options (src/app.ts): every error at once, values coerced to the schema's types (a
 * scalar to an array too), extra properties removed where a schema forbids them, defaults filled in.
 */
export const AJV_OPTIONS = {
  allErrors: true,
  coerceTypes: "array",
  removeAdditional: true,
  useDefaults: true,
  // strictNumbers off: with it on (Ajv's default), a query's `Infinity` is coerced to a number
  // that then skips every numeric keyword (minimum, maximum); off, the bounds every request
  // number has (src/http/schemas.ts) refuse it, and a JSON body's 1e309 alike (decision 0100).
  strictNumbers: false,
} as const;

/** The part of an Ajv error read here (Fastify hands them over as `error.validation`). */
export interface SchemaError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string | undefined;
}

export interface WireDetail {
  field: string;
  message: string;
}

const TYPE_NAMES: Record<string, string> = {
  integer: "an integer",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
};

const FORMAT_NAMES: Record<string, string> = {
  uuid: "a UUID",
  date: "a date (YYYY-MM-DD)",
  "date-time": "a date and time (RFC 3339, e.g. 2024-01-31T12:00:00Z)",
  time: "a time (RFC 3339)",
  email: "an email address",
  uri: "an absolute URI",
  "uri-reference": "a URI reference",
  url: "a URL",
  hostname: "a host name",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
  int32: "a 32-bit integer",
  int64: "a 64-bit integer",
  float: "a number",
  double: "a number",
  byte: "base64 text",
  regex: "a regular expression",
};

/** A value from the schema, as a sentence shows it: plain words bare, anything else as JSON. */
function shown(value: unknown): string {
  if (typeof value === "string" && /^[\w:+-]+$/.test(value)) return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return JSON.stringify(value) ?? String(value);
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function typeName(type: unknown): string {
  const types = (Array.isArray(type) ? type : [type]).map((t) => TYPE_NAMES[String(t)] ?? shown(t));
  return listOf(types, "or");
}

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0;
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** The rest of the sentence for one Ajv error, by keyword; a keyword without words of its own gets a generic one. */
export function problemOf(error: SchemaError): string {
  const p = error.params ?? {};
  switch (error.keyword) {
    case "required":
      return "is required";
    case "dependentRequired":
    case "dependencies":
      return typeof p.property === "string" ? `is required when ${shown(p.property)} is present` : "is required";
    case "additionalProperties":
    case "unevaluatedProperties":
      return "is not allowed";
    case "type":
      return `must be ${typeName(p.type)}`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum": {
      if (!isNumber(p.limit)) break;
      const words: Record<string, string> = {
        ">=": "at least",
        ">": "greater than",
        "<=": "at most",
        "<": "less than",
      };
      const fallback = error.keyword === "minimum" ? ">=" : error.keyword === "maximum" ? "<=" : "";
      const comparison = words[String(p.comparison)] ?? words[fallback];
      return comparison ? `must be ${comparison} ${p.limit}` : `must respect the limit ${p.limit}`;
    }
    case "multipleOf":
      return isNumber(p.multipleOf) ? `must be a multiple of ${p.multipleOf}` : "must be a multiple of the step";
    case "minLength":
      if (!isCount(p.limit)) break;
      return p.limit === 1
        ? "must not be empty"
        : `must be at least ${plural(p.limit, "character", "characters")} long`;
    case "maxLength":
      if (!isCount(p.limit)) break;
      return `must be at most ${plural(p.limit, "character", "characters")} long`;
    case "minItems":
      if (!isCount(p.limit)) break;
      return `must hold at least ${plural(p.limit, "item", "items")}`;
    case "maxItems":
      if (!isCount(p.limit)) break;
      return `must hold at most ${plural(p.limit, "item", "items")}`;
    case "minProperties":
      if (!isCount(p.limit)) break;
      return `must have at least ${plural(p.limit, "property", "properties")}`;
    case "maxProperties":
      if (!isCount(p.limit)) break;
      return `must have at most ${plural(p.limit, "property", "properties")}`;
    case "uniqueItems":
      return isCount(p.i) && isCount(p.j)
        ? `must not hold the same item twice (items ${p.j} and ${p.i} are equal)`
        : "must not hold the same item twice";
    case "format": {
      const format = String(p.format);
      return `must be ${FORMAT_NAMES[format] ?? `in the ${shown(format)} format`}`;
    }
    case "pattern":
      return typeof p.pattern === "string" ? `must match the pattern ${shown(p.pattern)}` : "must match its pattern";
    case "enum":
      return Array.isArray(p.allowedValues) && p.allowedValues.length > 0
        ? `must be one of ${listOf(p.allowedValues.map(shown), "or")}`
        : "must be one of the allowed values";
    case "const":
      return "allowedValue" in p ? `must be ${shown(p.allowedValue)}` : "must be the one allowed value";
    case "anyOf": {
      // Set by collapseUnions: the constants and types of the union's branches.
      const constants = Array.isArray(p.constants) ? p.constants.map(shown) : [];
      const types = Array.isArray(p.types) ? p.types.map(typeName) : [];
      if (constants.length > 0 && types.length === 0) return `must be one of ${listOf(constants, "or")}`;
      if (constants.length + types.length > 0) return `must be ${listOf([...constants, ...types], "or")}`;
      return "must match one of the allowed forms";
    }
    case "oneOf":
      return Array.isArray(p.passingSchemas)
        ? "must match only one of the allowed forms"
        : "must match one of the allowed forms";
    case "not":
      return "must not match the excluded form";
    case "contains":
    case "minContains":
    case "maxContains":
      return "must hold the items the schema asks for";
  }
  return `breaks the schema's ${/^[A-Za-z$]+$/.test(error.keyword) ? error.keyword : "validation"} rule`;
}

/** JSON pointer (`/attachments/0/url`) → path (`attachments/0/url`), unescaped. */
const pathOf = (pointer: string) =>
  pointer
    .split("/")
    .slice(1)
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"))
    .join("/");

function fieldOf(error: SchemaError, where: string): string {
  const p = error.params ?? {};
  const named =
    error.keyword === "required" || error.keyword === "dependentRequired" || error.keyword === "dependencies"
      ? p.missingProperty
      : error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties"
        ? (p.additionalProperty ?? p.unevaluatedProperty)
        : undefined;
  const path = [pathOf(error.instancePath), typeof named === "string" ? named : ""].filter(Boolean).join("/");
  return path ? `${where}/${path}` : where;
}

const isUnion = (e: SchemaError) => e.keyword === "anyOf" || e.keyword === "oneOf";

/**
 * A union's failure reads as one rule. Ajv reports each branch's failure plus the union's own;
 * when a branch failed only inside the value (the value has that branch's type), that branch's
 * errors are the ones worth reading; otherwise the branches' constants and types make one
 * "must be A, B or null".
 */
function collapseUnions(errors: readonly SchemaError[]): SchemaError[] {
  let list = [...errors];
  const done = new Set<SchemaError>();
  for (;;) {
    const union = list
      .filter((e) => isUnion(e) && !done.has(e))
      .reduce<SchemaError | undefined>((a, e) => (!a || e.schemaPath.length < a.schemaPath.length ? e : a), undefined);
    if (!union) return list;
    const prefix = `${union.schemaPath}/`;
    const inside = new Set(list.filter((e) => e.schemaPath.startsWith(prefix)));
    const branches = new Map<string, SchemaError[]>();
    for (const e of inside) {
      const branch = e.schemaPath.slice(prefix.length).split("/")[0]!;
      branches.set(branch, [...(branches.get(branch) ?? []), e]);
    }
    const deeper = [...branches.values()].find((errs) =>
      errs.every((e) => e.instancePath.length > union.instancePath.length),
    );
    let replacement: SchemaError[] = [];
    if (!deeper) {
      const atValue = [...inside].filter((e) => e.instancePath === union.instancePath);
      const constants: unknown[] = [];
      const types: unknown[] = [];
      let plain = atValue.length > 0;
      for (const e of atValue) {
        if (e.keyword === "const" && "allowedValue" in e.params) constants.push(e.params.allowedValue);
        else if (e.keyword === "enum" && Array.isArray(e.params.allowedValues))
          constants.push(...e.params.allowedValues);
        else if (e.keyword === "type") types.push(e.params.type);
        else plain = false;
      }
      const merged = plain ? { ...union, keyword: "anyOf", params: { constants, types } } : union;
      done.add(merged);
      replacement = [merged];
    }
    const kept = new Set(deeper ?? []);
    list = list.flatMap((e) => (e === union ? replacement : inside.has(e) && !kept.has(e) ? [] : [e]));
  }
}

/**
 * The details of a schema validation failure in `where` (Fastify's validationContext: body,
 * querystring, params or headers): one sentence per broken rule, in Ajv's order. A value of the
 * wrong type gets that one problem, not also its format's.
 */
export function schemaDetails(errors: readonly SchemaError[], where: string): WireDetail[] {
  const collapsed = collapseUnions(errors);
  const typed = new Set(collapsed.filter((e) => e.keyword === "type").map((e) => e.instancePath));
  const out: WireDetail[] = [];
  const seen = new Set<string>();
  for (const error of collapsed) {
    if (error.keyword !== "type" && typed.has(error.instancePath) && error.keyword !== "required") continue;
    const field = fieldOf(error, where);
    const message = sentence(subjectOf(field), problemOf(error));
    const key = `${field}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, message });
  }
  return out;
}
