import { readFileSync } from "node:fs";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

/**
 * Upstream's published OpenAPI document (its shapes only: test/contract/extract-upstream.mjs) and a
 * validator of our answers against it. Decision 0088 says what is checked and where we are lenient.
 */

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch"] as const;

type Schema = Record<string, unknown>;

interface Response {
  content?: { "application/json"?: { schema: Schema } };
}

interface Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  components: { schemas: Record<string, Schema> };
}

export interface Operation {
  /** `GET /api/v1/posts/{}`: the method and the path with its parameter names blanked. */
  key: string;
  method: string;
  path: string;
  /** Status → upstream's JSON body schema for it, or null when upstream documents no body. */
  responses: Map<number, Schema | null>;
}

/** Two paths name one operation when they differ only in their parameters' names. */
export const operationKey = (method: string, path: string): string =>
  `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, "{}")}`;

/** Every operation of an OpenAPI document, by key. */
export function operationsOf(doc: { paths: Record<string, Record<string, unknown>> }): Map<string, Operation> {
  const out = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!(HTTP_METHODS as readonly string[]).includes(method)) continue;
      const responses = new Map<number, Schema | null>();
      for (const [status, response] of Object.entries((op as { responses?: Record<string, Response> }).responses ?? {}))
        if (/^\d{3}$/.test(status))
          responses.set(Number(status), response.content?.["application/json"]?.schema ?? null);
      const key = operationKey(method, path);
      out.set(key, { key, method: method.toUpperCase(), path, responses });
    }
  }
  return out;
}

/**
 * Where we accept less than upstream's document says, and why. Each entry is applied to the schema
 * tree before compiling; the test file and decision 0088 carry the same list.
 */
export const LENIENCIES = {
  extraFields:
    "`additionalProperties: false` is dropped: our answers may carry fields upstream does not list " +
    "(e.g. `requestId` and `details` on errors, `isPublic` on watchlists); a client that ignores unknown " +
    "fields, as JSON clients do, is unaffected.",
  formatNullableTypo:
    '`format: "nullable"` (OrderForOpenInfoResponse.errorCode and .errorMessage) is read as ' +
    "`nullable: true`: a typo in upstream's document, whose descriptions say the fields are null when " +
    "the order succeeded.",
  integerMoneyTypo:
    "`orderForOpen.amount`, `.stopLossRate`, `.takeProfitRate` and `.totalExternalCosts` of the open-order " +
    "answers (by-amount, by-units) are read as numbers where upstream types them `integer`: a typo (types " +
    "taken from an example with whole values) — upstream's request takes the same values as doubles, its " +
    "own OrderForOpen schema types them as floats, and our spec calls them numbers.",
} as const;

/** The fields of LENIENCIES.integerMoneyTypo. */
const MONEY_FIELDS = ["amount", "stopLossRate", "takeProfitRate", "totalExternalCosts"];

/**
 * Upstream's document in the dialect Ajv compiles: OpenAPI 3.0 schemas are draft-04-like JSON
 * Schemas plus `nullable`. Besides the leniencies, one rewrite keeps the meaning: `nullable` on a
 * schema without `type` (Discussion.reason) allows any value anyway, so it is dropped.
 */
function normalise(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalise);
  if (node === null || typeof node !== "object") return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && value && typeof value === "object") {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, normalise(s)]));
      continue;
    }
    // LENIENCIES.extraFields
    if (key === "additionalProperties" && value === false) continue;
    // LENIENCIES.formatNullableTypo
    if (key === "format" && value === "nullable") {
      out.nullable = true;
      continue;
    }
    out[key] = normalise(value);
  }
  // LENIENCIES.integerMoneyTypo
  const order = (out.properties as Record<string, Schema> | undefined)?.orderForOpen?.properties as
    | Record<string, Schema>
    | undefined;
  for (const field of MONEY_FIELDS)
    if (order?.[field]?.type === "integer") order[field] = { ...order[field], type: "number" };
  if (out.nullable === true && out.type === undefined) delete out.nullable;
  // OpenAPI 3.0.3: `nullable` does not widen an `enum`; null must be listed. Upstream means null.
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

const DOC_ID = "upstream-openapi.json";

const INT = (bits: number) => ({
  type: "number" as const,
  validate: (n: number) => Number.isInteger(n) && n >= -(2 ** (bits - 1)) && n < 2 ** (bits - 1),
});
const ANY_NUMBER = { type: "number" as const, validate: (n: number) => Number.isFinite(n) };

export interface UpstreamContract {
  version: string;
  operations: Map<string, Operation>;
  /**
   * What is wrong with an answer of `key` with `status` by upstream's document: its status is not
   * one upstream documents; its body does not match upstream's schema for that status (a 4xx/5xx
   * without one is held to upstream's error envelope, PublicErrorResponse); a 204 has a body.
   */
  problems(key: string, status: number, body: string): string[];
}

export function loadUpstream(): UpstreamContract {
  const doc = JSON.parse(readFileSync(new URL("./upstream-openapi.json", import.meta.url), "utf8")) as Document;
  const schemas = Object.fromEntries(Object.entries(doc.components.schemas).map(([name, s]) => [name, normalise(s)]));
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false, logger: false });
  addFormats.default(ajv);
  ajv.addFormat("int16", INT(16));
  ajv.addFormat("int32", INT(32));
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) });
  for (const f of ["float", "double", "decimal"]) ajv.addFormat(f, ANY_NUMBER);
  // Formats that say how a client shows or sends a string, not what it holds.
  for (const f of ["password", "binary"]) ajv.addFormat(f, true);
  // The document's schemas, addressed as `upstream-openapi.json#/components/schemas/<name>`.
  ajv.addKeyword("components");
  // An annotation (names of an integer enum's values, e.g. PublicAggregatedInfoAccountStatus): no rule.
  ajv.addKeyword("x-enumNames");
  ajv.addSchema({ $id: DOC_ID, components: { schemas } });

  const operations = operationsOf(doc);
  const compiled = new Map<Schema, ValidateFunction>();
  const validatorOf = (schema: Schema): ValidateFunction => {
    let v = compiled.get(schema);
    if (!v) {
      v = ajv.compile(rebase(normalise(schema)) as Schema);
      compiled.set(schema, v);
    }
    return v;
  };
  const errorEnvelope = ajv.compile({ $ref: `${DOC_ID}#/components/schemas/PublicErrorResponse` });

  return {
    version: doc.info.version,
    operations,
    problems(key, status, body) {
      const op = operations.get(key);
      if (!op) return [`upstream has no operation ${key}`];
      if (!op.responses.has(status)) return [`upstream does not document ${status} for ${key}`];
      const schema = op.responses.get(status) ?? null;
      if (status === 204) return body === "" ? [] : [`a 204 has a body: ${body.slice(0, 200)}`];
      const validate = schema ? validatorOf(schema) : status >= 400 ? errorEnvelope : null;
      if (!validate) return [];
      let value: unknown;
      try {
        value = JSON.parse(body);
      } catch {
        return [`the body is not JSON: ${body.slice(0, 200)}`];
      }
      return validate(value) ? [] : describe(validate.errors ?? [], value);
    },
  };
}

/** Response schemas live under `paths`; their `#/components/...` refs point into the document. */
function rebase(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebase);
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `${DOC_ID}${v}` : rebase(v),
    ]),
  );
}

/** One line per error, with the offending value, so a failure says what to fix. */
function describe(errors: ErrorObject[], value: unknown): string[] {
  return errors.map((e) => {
    const at = e.instancePath || "/";
    const actual = e.instancePath
      .split("/")
      .slice(1)
      .reduce<unknown>(
        (v, seg) =>
          v && typeof v === "object"
            ? (v as Record<string, unknown>)[seg.replace(/~1/g, "/").replace(/~0/g, "~")]
            : undefined,
        value,
      );
    const params = e.keyword === "enum" ? ` ${JSON.stringify(e.params)}` : "";
    return `${at} ${e.message}${params} (got ${JSON.stringify(actual)?.slice(0, 120)})`;
  });
}
