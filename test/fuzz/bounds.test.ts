import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INT32_MAX, INT32_MIN } from "../../src/http/schemas.js";
import { type Harness, startHarness } from "../support/harness.js";
import { type JsonSchema, operationsOf } from "./requests.js";

/** Every number schema under `schema`, with where it is. */
function numbersIn(
  schema: JsonSchema,
  where: string,
  out: [string, JsonSchema][] = [],
  depth = 0,
): [string, JsonSchema][] {
  if (depth > 8) return out;
  const types = [schema.type ?? []].flat();
  if (types.includes("integer") || types.includes("number")) out.push([where, schema]);
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) numbersIn(alt, where, out, depth + 1);
  for (const [key, s] of Object.entries(schema.properties ?? {})) numbersIn(s, `${where}/${key}`, out, depth + 1);
  if (schema.items) numbersIn(schema.items, `${where}/0`, out, depth + 1);
  return out;
}

/**
 * Ajv coerces the query text `Infinity` or `1e309` to a number that passes `type: integer`, and a
 * JSON body's `1e309` parses as Infinity: only a finite minimum and maximum stop them. So every
 * number a request carries is bounded in its schema, integers within the int32 columns they land
 * in, doubles within what a 64-bit integer of cents holds (decision 0100). New routes included.
 */
describe("the bounds of request numbers in the OpenAPI document", () => {
  let h: Harness;
  let doc: Parameters<typeof operationsOf>[0];
  beforeAll(async () => {
    h = await startHarness("sqlite");
    doc = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json();
  });
  afterAll(async () => h.close());

  it("gives every integer and number of every parameter and body a finite minimum and maximum", () => {
    const unbounded: string[] = [];
    let seen = 0;
    for (const op of operationsOf(doc)) {
      const numbers = [
        ...op.params.flatMap((p) => numbersIn(p.schema, `${p.in}/${p.name}`)),
        ...(op.body ? numbersIn(op.body, "body") : []),
      ];
      for (const [where, s] of numbers) {
        seen += 1;
        const integer = [s.type].flat().includes("integer");
        const [low, high] = integer ? [INT32_MIN, INT32_MAX] : [-1e15, 1e15];
        // An exclusive bound (JSON Schema 2020-12's exclusiveMinimum: 0) bounds as well.
        const min = s.minimum ?? s.exclusiveMinimum;
        const max = s.maximum ?? s.exclusiveMaximum;
        const bounded = typeof min === "number" && typeof max === "number" && min >= low && max <= high;
        if (!bounded) unbounded.push(`${op.method} ${op.path} ${where} [${min}, ${max}]`);
      }
    }
    expect(seen).toBeGreaterThan(40);
    expect(unbounded).toEqual([]);
  });
});
