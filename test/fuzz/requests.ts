import fc from "fast-check";

/*
 * Requests made from the OpenAPI document: every operation's parameters and JSON body, as values
 * its schema accepts ("valid") and as hostile values ("hostile"). Nothing here names an operation:
 * a new operation, parameter or body field is fuzzed as soon as the document describes it.
 */

export interface JsonSchema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  pattern?: string;
  default?: unknown;
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** OpenAPI path template, e.g. `/api/v1/posts/{postId}`. */
  path: string;
  id: string;
  params: Parameter[];
  body: JsonSchema | undefined;
  /** Security alternatives; `{}` among them means anonymous callers are admitted. */
  security: Record<string, string[]>[];
  /** Keys the operation's error answers document beyond the one body's (price alerts' envelope). */
  errorKeys: ReadonlySet<string>;
}

interface Document {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId?: string;
        parameters?: Parameter[];
        security?: Operation["security"];
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
        responses?: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
      }
    >
  >;
}

const METHODS = ["get", "post", "put", "patch", "delete"];

/** Every API operation of the document (the health and OAuth pages are not `/api/`). */
export function operationsOf(doc: Document): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        id: op.operationId ?? `${method.toUpperCase()} ${path}`,
        params: (op.parameters ?? []).filter((p) => p.in !== "header"),
        body: op.requestBody?.content["application/json"]?.schema,
        security: op.security ?? [],
        errorKeys: new Set(Object.keys(op.responses?.["422"]?.content?.["application/json"]?.schema.properties ?? {})),
      })),
  );
}

export const admitsAnonymous = (op: Operation) => op.security.some((s) => Object.keys(s).length === 0);

/** Values the fuzzer can use for parameters with these names (real ids, so requests go deep). */
export type Known = Record<string, unknown[]>;

const typesOf = (s: JsonSchema): string[] => (s.type === undefined ? [] : [s.type].flat());

/** A value the schema accepts (mostly: patterns are honoured only for the few shapes we know). */
export function valid(
  schema: JsonSchema,
  name: string,
  known: Known,
  depth = 0,
  onlyKnown = false,
): fc.Arbitrary<unknown> {
  const knownValues = known[name];
  if (knownValues?.length && onlyKnown) return fc.constant(knownValues[0]);
  const own = validBySchema(schema, known, depth, onlyKnown);
  return knownValues?.length ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...knownValues) }, own) : own;
}

function validBySchema(schema: JsonSchema, known: Known, depth: number, onlyKnown = false): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => validBySchema(s, known, depth)));
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((t) => validBySchema({ ...schema, type: t }, known, depth)));
  switch (types[0]) {
    case "integer":
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -1e6), max: Math.min(schema.maximum ?? 1e6, 1e6) });
    case "number":
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? min + 3, min + 3);
      return depth > 4
        ? fc.constant([])
        : fc.array(validBySchema(schema.items ?? {}, known, depth + 1, onlyKnown), { minLength: min, maxLength: max });
    }
    case "object": {
      if (depth > 4 || !schema.properties) return fc.constant({});
      const required = new Set(schema.required ?? []);
      const entries = Object.entries(schema.properties).map(
        ([key, s]) => [key, valid(s, key, known, depth + 1, onlyKnown)] as const,
      );
      return fc.record(Object.fromEntries(entries), {
        requiredKeys: entries.map(([k]) => k).filter((k) => required.has(k)),
      });
    }
    case "string":
      return validString(schema);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function validString(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === "uuid") return fc.uuid({ version: 4 });
  if (schema.format === "date") return fc.constantFrom("2024-01-31", "2025-06-01");
  if (schema.format === "date-time") return fc.constant("2025-01-01T00:00:00.000Z");
  if (schema.pattern?.includes("\\d"))
    return fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 3 }).map((a) => a.join(","));
  const min = Math.max(schema.minLength ?? 0, 1);
  const max = Math.max(min, Math.min(schema.maxLength ?? 40, 40));
  return fc.string({ minLength: min, maxLength: max, unit: "grapheme-ascii" });
}

/**
 * The hostile values. Each list is `[core, extra]`: `npm test` sweeps the core values (one of each
 * kind of trouble); the long run (FUZZ_RUNS set) sweeps both.
 */
export type Catalogue<T> = readonly [core: readonly T[], extra: readonly T[]];
export const pick = <T>([core, extra]: Catalogue<T>, full: boolean): T[] => (full ? [...core, ...extra] : [...core]);

const LONG = "a".repeat(5000);

/** Text a hostile client puts in a number's place (in a URL: decoded; in JSON: as a string). */
export const HOSTILE_NUMBER_TEXT: Catalogue<string> = [
  [
    "Infinity",
    "-Infinity",
    "NaN",
    "1e309",
    "99999999999999999999999",
    "2147483648",
    "-2147483649",
    "9223372036854775808",
    "1.5",
    "",
  ],
  [
    "-1e309",
    "1e20",
    "2147483647",
    "4294967296",
    "9007199254740993",
    "9223372036854775807",
    "-9223372036854775809",
    "-0",
    "0x10",
    " 1",
  ],
];

/** Text a hostile client puts in a string's place. */
export const HOSTILE_TEXT: Catalogue<string> = [
  ["\u0000", "a\u0000b", "\ud800", "__proto__", "' or '1'='1", LONG],
  [
    "%00",
    "\u0001\u001f\u007f",
    "\ufffe\uffff",
    "\udc00x",
    "😀\u200f\u202e",
    "constructor",
    "toString",
    "hasOwnProperty",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "\r\nx-injected: 1",
    "  ",
    "%",
    "%zz",
  ],
];

/** Raw JSON text put where a body value goes: numbers JSON.parse cannot keep, and odd values. */
export const HOSTILE_JSON: Catalogue<string> = [
  [
    "1e309",
    "-1e309",
    "1e20",
    "2147483648",
    "9223372036854775808",
    "1.5",
    '"Infinity"',
    '"\\u0000"',
    '"\\ud800"',
    "null",
    "[]",
    "{}",
    '{"__proto__":{"polluted":1}}',
  ],
  [
    "-1e20",
    "99999999999999999999999",
    "-2147483649",
    "4.9e-324",
    "-0",
    '"NaN"',
    '"1e309"',
    '"a\\u0000b"',
    '"\\udfff\\ud800"',
    `"${"x".repeat(100_000)}"`,
    "true",
    '""',
    '{"constructor":{"prototype":{"polluted":1}}}',
    `${"[".repeat(2000)}${"]".repeat(2000)}`,
  ],
];

/**
 * The hostile JSON values for one body field: the core ones of its own kind and two of another
 * (every field also gets each one of the full catalogue in the long run).
 */
export function hostileJsonFor(schema: JsonSchema, full: boolean): string[] {
  if (full) return pick(HOSTILE_JSON, true);
  const types = [schema.type ?? []].flat();
  const [core] = HOSTILE_JSON;
  if (types.includes("integer") || types.includes("number")) {
    return [...core.filter((v) => !v.startsWith('"') || v === '"Infinity"'), '"1e309"'].filter(
      (v) => !v.startsWith("{"),
    );
  }
  if (types.includes("string")) return [...core.filter((v) => v.startsWith('"')), "1e309", "null", "{}"];
  return ["null", "[]", "{}", '{"__proto__":{"polluted":1}}', '"\\u0000"', "1e309"];
}

/** The schema of the field at `path` under `schema`. */
export function schemaAt(schema: JsonSchema, path: (string | number)[]): JsonSchema {
  let s: JsonSchema = schema;
  for (const key of path) {
    const alternatives = s.anyOf ?? s.oneOf;
    if (alternatives) s = alternatives.find((a) => a.properties || a.items) ?? s;
    s = (typeof key === "number" ? s.items : s.properties?.[key]) ?? {};
  }
  return s;
}

/** Whole-body malformations: [content-type, raw payload]; `BODY` is the valid JSON text. */
export const BODY_MALFORMATIONS: ((json: string) => { contentType?: string; payload: string | Buffer })[] = [
  (json) => ({ contentType: "application/json", payload: json.slice(0, Math.floor(json.length / 2)) }),
  (json) => ({ contentType: "application/json", payload: json.slice(0, -1) }),
  (json) => ({ contentType: "application/json", payload: duplicateFirstKey(json) }),
  (json) => ({ contentType: "application/json", payload: withKey(json, '"__proto__":{"isAdmin":true}') }),
  (json) => ({ contentType: "application/json", payload: withKey(json, '"constructor":{"prototype":{"x":1}}') }),
  (json) => ({ contentType: "application/json", payload: `\ufeff${json}` }),
  (json) => ({
    contentType: "application/json",
    payload: Buffer.concat([Buffer.from(json), Buffer.from([0xff, 0xfe, 0xc0])]),
  }),
  () => ({ contentType: "application/json", payload: Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xed, 0xa0, 0x80]) }),
  (json) => ({ contentType: "application/json; charset=utf-16", payload: json }),
  (json) => ({ contentType: "text/plain", payload: json }),
  () => ({ contentType: "application/x-www-form-urlencoded", payload: "a=1&__proto__[x]=1" }),
  () => ({ contentType: "multipart/form-data; boundary=x", payload: "--x\r\n\r\n--x--" }),
  (json) => ({ contentType: "application/xml", payload: `<a>${json}</a>` }),
  (json) => ({ payload: json }),
  () => ({ contentType: "application/json", payload: "" }),
  () => ({ contentType: "application/json", payload: "null" }),
  () => ({ contentType: "application/json", payload: "0" }),
  () => ({ contentType: "application/json", payload: '"text"' }),
  () => ({ contentType: "application/json", payload: "[1,2,3]" }),
  () => ({ contentType: "application/json", payload: "{}" }),
  () => ({ contentType: "application/json", payload: "{,}" }),
  () => ({ contentType: "application/json", payload: "NaN" }),
  () => ({ contentType: "application/json", payload: `${'{"a":'.repeat(3000)}1${"}".repeat(3000)}` }),
];

function duplicateFirstKey(json: string): string {
  const m = /^\{"([^"]+)":/.exec(json);
  return m ? `{"${m[1]}":1e309,${json.slice(1)}` : json;
}

function withKey(json: string, pair: string): string {
  return json.startsWith("{") && json !== "{}"
    ? `{${pair},${json.slice(1)}`
    : json.startsWith("{")
      ? `{${pair}}`
      : json;
}

/** The leaves of a body schema, as JSON paths (`["poll","options",0,"index"]`), for targeted mutation. */
export function leavesOf(schema: JsonSchema, path: (string | number)[] = [], depth = 0): (string | number)[][] {
  if (depth > 5) return [];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const structured = alternatives.find((s) => s.properties || s.items);
    if (structured) return leavesOf(structured, path, depth + 1);
  }
  if (schema.properties) {
    return Object.entries(schema.properties).flatMap(([key, s]) => {
      const below = leavesOf(s, [...path, key], depth + 1);
      return below.length ? [[...path, key], ...below] : [[...path, key]];
    });
  }
  if (schema.items) return leavesOf(schema.items, [...path, 0], depth + 1);
  return [];
}

const RAW = "\u0001RAW\u0001";

/** The JSON text of `value` with the value at `path` replaced by the raw JSON text `raw`. */
export function jsonWithRaw(value: unknown, path: (string | number)[], raw: string): string {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let cursor: Record<string | number, unknown> = copy;
  for (const [i, key] of path.entries()) {
    if (cursor === null || typeof cursor !== "object") return JSON.stringify(copy);
    if (i === path.length - 1) {
      cursor[key] = RAW;
    } else {
      if (cursor[key] === null || typeof cursor[key] !== "object")
        cursor[key] = typeof path[i + 1] === "number" ? [{}] : {};
      const next = cursor[key] as Record<string | number, unknown>;
      if (Array.isArray(next) && next.length === 0) next.push({});
      cursor = next;
    }
  }
  return JSON.stringify(copy).replace(JSON.stringify(RAW), raw);
}

/** A path or query value as it goes into a URL: encoded, or raw (bad escapes, stray bytes). */
export type UrlValue = { encoded: string } | { raw: string };

export const encodeValue = (v: UrlValue): string => {
  if ("raw" in v) return v.raw;
  try {
    return encodeURIComponent(v.encoded);
  } catch {
    // A lone surrogate cannot be encoded as UTF-8; send its WTF-8 bytes as a client might.
    return Buffer.from(v.encoded, "utf8").toString("hex").replace(/(..)/g, "%$1");
  }
};

/** Hostile URL components no decoder should trip over. */
export const HOSTILE_RAW_URL: Catalogue<string> = [
  ["%", "%E0%A4%A", "%ED%A0%80", "%00", "a".repeat(150)],
  ["%zz", "%C0%AF", "%FF%FE", "%25%00", "%2F..%2F", "%u0041"],
];

/** Substitutes path parameters and appends the query string. */
export function urlOf(op: Operation, path: Record<string, UrlValue>, query: [string, UrlValue][]): string {
  const base = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeValue(path[name] ?? { encoded: "x" }));
  const qs = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeValue(v)}`).join("&");
  return qs ? `${base}?${qs}` : base;
}

/** The text a URL carries for a valid value. */
export const urlText = (v: unknown): UrlValue => ({ encoded: String(v) });
