import fc from "fast-check";
import Fastify, { type FastifyError, type FastifyInstance } from "fastify";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mapError } from "../../src/http/errors.js";
import { AJV_OPTIONS, problemOf, type SchemaError, schemaDetails } from "../../src/http/validation-messages.js";

/** Text without its JSON-quoted parts (values quoted as the client or the schema wrote them). */
const unquoted = (s: string) => s.replace(/"(?:[^"\\]|\\.)*"/g, '""');

/** One sentence: a capital first, a single period last, no line break, no sentence boundary inside. */
function expectOneSentence(s: string): void {
  expect(s, s).toMatch(/^[A-Z]/);
  expect(s, s).toMatch(/[^.]\.$/);
  expect(s, s).not.toMatch(/[\r\n]/);
  expect(unquoted(s), s).not.toMatch(/[.!?]\s+[A-Z]/);
}

const KEYWORDS = [
  "required",
  "dependentRequired",
  "dependencies",
  "additionalProperties",
  "unevaluatedProperties",
  "type",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "uniqueItems",
  "format",
  "pattern",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "not",
  "contains",
  "if",
  "propertyNames",
  "discriminator",
];

const name = fc.oneof(fc.stringMatching(/^[A-Za-z][\w-]{0,11}$/), fc.string({ maxLength: 12 }));
const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string(), fc.double(), fc.constant(undefined));
const schemaError: fc.Arbitrary<SchemaError> = fc.record({
  instancePath: fc
    .array(fc.oneof(name, fc.nat({ max: 20 }).map(String)), { maxLength: 4 })
    .map((steps) => steps.map((s) => `/${s.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("")),
  schemaPath: fc.constantFrom("#/properties/a/type", "#/required", "#/properties/a/anyOf", "#/anyOf/0/const"),
  keyword: fc.oneof(fc.constantFrom(...KEYWORDS), fc.string({ maxLength: 10 })),
  params: fc.record(
    {
      limit: value,
      comparison: fc.constantFrom(">=", ">", "<=", "<", "??"),
      type: fc.oneof(
        fc.constantFrom("integer", "number", "string", "boolean", "object", "array", "null"),
        fc.array(fc.constantFrom("number", "null", "string"), { minLength: 1, maxLength: 3 }),
        value,
      ),
      format: fc.oneof(fc.constantFrom("uuid", "date", "date-time", "int32", "uri"), fc.string()),
      pattern: fc.string(),
      allowedValues: fc.oneof(fc.array(value, { maxLength: 4 }), value),
      allowedValue: value,
      missingProperty: name,
      additionalProperty: name,
      property: value,
      multipleOf: value,
      i: value,
      j: value,
      passingSchemas: value,
      constants: fc.array(value, { maxLength: 3 }),
      types: fc.array(value, { maxLength: 3 }),
    },
    { requiredKeys: [] },
  ),
  message: fc.option(fc.string(), { nil: undefined }),
});

describe("schema validation messages", () => {
  it("every Ajv error, whatever its keyword and parameters, reads as one sentence naming its wire path", () => {
    fc.assert(
      fc.property(
        fc.array(schemaError, { minLength: 1, maxLength: 6 }),
        fc.constantFrom("body", "querystring", "params", "headers"),
        (errors, where) => {
          const details = schemaDetails(errors, where);
          expect(details.length).toBeGreaterThan(0);
          for (const d of details) {
            expect(d.field === where || d.field.startsWith(`${where}/`)).toBe(true);
            expectOneSentence(d.message);
          }
          const mapped = mapError(
            Object.assign(new Error("x"), { validation: errors, validationContext: where }),
            "service-public",
          );
          expect(mapped.code).toBe("ValidationFailed");
          expectOneSentence(mapped.message);
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["minimum", { comparison: ">=", limit: 0 }, "must be at least 0"],
    ["exclusiveMinimum", { comparison: ">", limit: 0 }, "must be greater than 0"],
    ["maximum", { comparison: "<=", limit: 100 }, "must be at most 100"],
    ["exclusiveMaximum", { comparison: "<", limit: 1.5 }, "must be less than 1.5"],
    ["minLength", { limit: 1 }, "must not be empty"],
    ["minLength", { limit: 3 }, "must be at least 3 characters long"],
    ["maxLength", { limit: 280 }, "must be at most 280 characters long"],
    ["minItems", { limit: 2 }, "must hold at least 2 items"],
    ["maxItems", { limit: 1 }, "must hold at most 1 item"],
    ["format", { format: "uuid" }, "must be a UUID"],
    ["format", { format: "date" }, "must be a date (YYYY-MM-DD)"],
    ["format", { format: "mac" }, "must be in the mac format"],
    ["enum", { allowedValues: ["Asc", "Desc"] }, "must be one of Asc or Desc"],
    ["type", { type: "integer" }, "must be an integer"],
    ["type", { type: ["number", "null"] }, "must be a number or null"],
    ["required", { missingProperty: "Leverage" }, "is required"],
    ["pattern", { pattern: "^\\d+$" }, 'must match the pattern "^\\\\d+$"'],
    ["uniqueItems", { i: 3, j: 1 }, "must not hold the same item twice (items 1 and 3 are equal)"],
    ["propertyNames", {}, "breaks the schema's propertyNames rule"],
  ])("%s %j: %s", (keyword, params, expected) => {
    expect(problemOf({ instancePath: "/a", schemaPath: `#/${keyword}`, keyword, params })).toBe(expected);
  });

  describe("through Fastify's validator, with the app's options", () => {
    let app: FastifyInstance;
    const seen: FastifyError[] = [];
    const Body = Type.Object({
      take: Type.Integer({ minimum: 1, maximum: 100 }),
      ratio: Type.Number({ exclusiveMinimum: 0, multipleOf: 0.5 }),
      id: Type.String({ format: "uuid" }),
      day: Type.Optional(Type.String({ format: "date" })),
      name: Type.String({ minLength: 1, maxLength: 5, pattern: "^[a-z]+$" }),
      order: Type.Union([Type.Literal("Asc"), Type.Literal("Desc")]),
      rate: Type.Unsafe<number | null>({ type: ["number", "null"] }),
      tags: Type.Array(Type.String({ maxLength: 3 }), { minItems: 1, maxItems: 3, uniqueItems: true }),
      nested: Type.Optional(
        Type.Union([Type.Object({ x: Type.Integer(), y: Type.Boolean() }), Type.Null()], { default: null }),
      ),
      kind: Type.Optional(Type.Unsafe<string>({ enum: ["a", "b", 3] })),
      count: Type.Optional(Type.Integer({ format: "int32" })),
    });

    beforeAll(async () => {
      app = Fastify({ ajv: { customOptions: AJV_OPTIONS } });
      app.setErrorHandler((error: FastifyError, _request, reply) => {
        seen.push(error);
        // Bodies that are not JSON the parser accepts (a __proto__ key) never reach the validator.
        void reply.status(error.validation ? 422 : 400).send(mapError(error, "service-public"));
      });
      app.post("/x", { schema: { body: Body, querystring: Type.Object({ n: Type.Integer({ maximum: 9 }) }) } }, () => ({
        ok: true,
      }));
      await app.ready();
    });
    afterAll(async () => app.close());

    const field = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ maxLength: 8 }), fc.integer(), fc.double());
    const body = fc.dictionary(
      fc.constantFrom(
        "take",
        "ratio",
        "id",
        "day",
        "name",
        "order",
        "rate",
        "tags",
        "nested",
        "kind",
        "count",
        "other",
      ),
      field,
    );

    it("any body the schema refuses gets one sentence per detail, each on a body/… path", async () => {
      await fc.assert(
        fc.asyncProperty(body, fc.oneof(fc.constant("1"), fc.string({ maxLength: 4 })), async (payload, n) => {
          const res = await app.inject({ method: "POST", url: `/x?n=${encodeURIComponent(n)}`, payload });
          if (res.statusCode !== 422) return;
          const mapped = res.json() as { message: string; details: { field: string; message: string }[] };
          expect(mapped.details.length).toBeGreaterThan(0);
          for (const d of mapped.details) {
            expect(d.field).toMatch(/^(body|querystring)(\/|$)/);
            expectOneSentence(d.message);
          }
          expectOneSentence(mapped.message);
        }),
        { numRuns: 300 },
      );
      // The generator reached the validator's keywords.
      const keywords = new Set(seen.flatMap((e) => (e.validation ?? []).map((v) => v.keyword)));
      for (const k of ["type", "required", "minimum", "format", "maxLength", "anyOf", "const"]) {
        expect(keywords, k).toContain(k);
      }
    });

    it("collapses a union into one rule, follows the branch the value took, and a wrong type hides the format", async () => {
      const res = await app.inject({
        method: "POST",
        url: "/x?n=1",
        payload: {
          take: 1,
          ratio: 1,
          id: 12,
          name: "abc",
          order: "Up",
          rate: "x",
          tags: ["a"],
          nested: { x: "q", y: true },
          count: 2.5,
        },
      });
      expect(res.json().details).toEqual([
        // Coerced to "12" (coerceTypes), then refused by its format.
        { field: "body/id", message: "Body field id must be a UUID." },
        { field: "body/order", message: "Body field order must be one of Asc or Desc." },
        { field: "body/rate", message: "Body field rate must be a number or null." },
        { field: "body/nested/x", message: "Body field nested/x must be an integer." },
        { field: "body/count", message: "Body field count must be an integer." },
      ]);
      expect(res.json().message).toBe(
        "The request has 5 problems in body/id, body/order, body/rate, body/nested/x and body/count; see details.",
      );
    });

    it("names a missing property by its path, and the query string by its parameter", async () => {
      const valid = {
        take: 1,
        ratio: 1,
        id: "6c9b1f9e-2f7e-4a7c-9d7e-0c1b2a3d4e5f",
        name: "a",
        order: "Asc",
        rate: null,
      };
      const query = await app.inject({ method: "POST", url: "/x?n=10", payload: { ...valid, tags: ["a"] } });
      expect(query.json().details).toEqual([
        { field: "querystring/n", message: "Query parameter n must be at most 9." },
      ]);
      const { take: _take, ...noTake } = valid;
      const missing = await app.inject({ method: "POST", url: "/x?n=1", payload: { ...noTake, tags: ["a"] } });
      expect(missing.json()).toEqual({
        code: "ValidationFailed",
        message: "Body field take is required.",
        details: [{ field: "body/take", message: "Body field take is required." }],
      });
    });
  });
});
