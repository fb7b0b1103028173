import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REQUEST_PARTS } from "../../src/http/route-table.js";
import { AJV_OPTIONS } from "../../src/http/validation-messages.js";
import { type BuildValidator, fastifyValidators, lazyValidators, type Validate } from "../../src/http/validators.js";
import { type Harness, startHarness } from "../support/harness.js";

/*
 * Request validators are compiled on a route's first request (docs/decisions/0196), so a schema
 * Ajv cannot compile would no longer stop the app at start: these tests compile every route's,
 * and check that the lazy validator validates, coerces and reports as the eager one does.
 */
describe("request validators", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("sqlite");
  });
  afterAll(async () => h.close());

  it("compile for every request schema of every route", () => {
    const compile = fastifyValidators()({}, { customOptions: AJV_OPTIONS, plugins: [] });
    let compiled = 0;
    for (const route of h.app.routeTable) {
      for (const part of REQUEST_PARTS) {
        const schema = route.requests[part];
        if (schema === undefined) continue;
        expect(() => compile({ schema, url: route.url, method: route.method, httpPart: part })).not.toThrow();
        compiled++;
      }
    }
    // Every operation with an input declares it.
    expect(compiled).toBeGreaterThan(150);
  });

  it("are compiled on first use, once, and answer what the eager validator answers", () => {
    const schema = {
      type: "object",
      properties: {
        take: { type: "integer", minimum: 1, maximum: 100, default: 20 },
        tags: { type: "array", items: { type: "string" } },
      },
      additionalProperties: false,
    };
    const route = { schema, url: "/x", method: "GET", httpPart: "querystring" };
    const options = { customOptions: AJV_OPTIONS, plugins: [] };
    const eager = fastifyValidators()({}, options)(route);
    let compiles = 0;
    const counting: BuildValidator = (external, opts) => {
      const compile = fastifyValidators()(external, opts);
      return (r) => {
        compiles++;
        return compile(r);
      };
    };
    const lazy = (lazyValidators(counting) as unknown as BuildValidator)({}, options)(route) as Validate;
    expect(compiles).toBe(0);
    // Fastify reads schemaEnv first (validation.js): it is the compiled function's.
    expect(lazy.schemaEnv).toBeDefined();
    expect(compiles).toBe(1);
    const run = (v: Validate, data: Record<string, unknown>) => {
      const ok = v(data);
      return { ok, data, errors: v.errors };
    };
    // Coercion, defaults and removal of extra properties act on the data alike.
    expect(run(lazy, { take: "5", tags: "a", extra: 1 })).toEqual(run(eager, { take: "5", tags: "a", extra: 1 }));
    expect(run(lazy, {})).toEqual(run(eager, {}));
    const bad = run(lazy, { take: "500" });
    expect(bad.ok).toBe(false);
    expect(bad).toEqual(run(eager, { take: "500" }));
    // The parent is given through, so a root value can be replaced as Fastify expects.
    const parent = { querystring: { take: "7" } };
    expect(lazy(parent.querystring, { parentData: parent, parentDataProperty: "querystring" })).toBe(true);
    expect(parent.querystring).toEqual({ take: 7 });
    expect(compiles).toBe(1);
  });
});
